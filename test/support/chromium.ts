/**
 * Launches Debian's Chromium for the browser tests (docs portal, holder page, console) through
 * playwright-core, headless, with the flags this machine needs: no sandbox (root), and none of
 * Chromium's background connections, which the closed network refuses
 * (https://playwright.dev/docs/api/class-browsertype#browser-type-launch); and what the console's
 * browser tests check on every page: axe-core's violations, the CSP violations, requests that
 * left the service.
 *
 * @module test/support/chromium
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

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

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/**
 * axe-core's violations (every rule it runs by default: WCAG 2.x A/AA and best practices,
 * https://github.com/dequelabs/axe-core/blob/develop/doc/API.md#api-name-axerun) on `page` as it
 * is now, each as `rule id: [targets]`. The page's CSP must let the script run (the console's does:
 * `page.evaluate` is not an inline script).
 */
export async function axeViolations(page: Page): Promise<string[]> {
  await page.evaluate(axeSource);
  return page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(): Promise<{ violations: { id: string; nodes: { target: unknown }[] }[] }> } }).axe;
    return (await axe.run()).violations.map((v) => `${v.id}: ${JSON.stringify(v.nodes.map((n) => n.target))}`);
  });
}

/**
 * A browser context for pages of the service at `origin`: its requests (and `blob:`, `data:`) go
 * through, any other is refused and its URL pushed to `offService`; every page records the
 * Content-Security-Policy violations it sees (read them with {@link cspViolationsOf}). Viewport
 * 1280 × 900 unless given, 15 s default timeout.
 */
export async function guardedContext(browser: Browser, origin: string, offService: string[], viewport = { width: 1280, height: 900 }): Promise<BrowserContext> {
  const context = await browser.newContext({ viewport });
  context.setDefaultTimeout(15_000);
  await context.route('**/*', (route) => {
    const url = route.request().url();
    if (new URL(url).origin === origin || url.startsWith('blob:') || url.startsWith('data:')) return route.continue();
    offService.push(url);
    return route.abort('blockedbyclient');
  });
  await context.addInitScript(() => {
    const seen: string[] = [];
    const g = globalThis as any;
    g.cspViolations = seen;
    g.document.addEventListener('securitypolicyviolation', (e: any) => seen.push(`${e.violatedDirective} ${e.blockedURI}`));
  });
  return context;
}

/** The Content-Security-Policy violations a page of a {@link guardedContext} has seen, as `directive blocked-URI`. */
export function cspViolationsOf(page: Page): Promise<string[]> {
  return page.evaluate(() => (globalThis as unknown as { cspViolations: string[] }).cspViolations);
}
