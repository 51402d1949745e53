/**
 * Launches Debian's Chromium for the browser tests (docs portal, holder page, console) through
 * playwright-core, headless, with the flags this machine needs: no sandbox (root), and none of
 * Chromium's background connections, which the closed network refuses
 * (https://playwright.dev/docs/api/class-browsertype#browser-type-launch).
 *
 * @module test/support/chromium
 */
import { chromium, type Browser } from 'playwright-core';

/** The command-line flags every launch here passes (also scripts/bench/consoleLighthouse.ts, through puppeteer-core). */
export const CHROMIUM_FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Launches Chromium at `executablePath`; rejects after 20 s. */
export function launchChromium(executablePath: string): Promise<Browser> {
  return chromium.launch({ executablePath, args: CHROMIUM_FLAGS, timeout: 20_000 });
}
