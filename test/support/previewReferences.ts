/**
 * Reference images of the preview tests (test/references/previews/), compared with pixelmatch
 * (https://github.com/mapbox/pixelmatch) on PNGs decoded by pngjs. `UPDATE_REFERENCES=1` rewrites
 * them: then look at every changed image before committing it.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import pixelmatch from 'pixelmatch';
import { PNG } from 'pngjs';

export const REFERENCES = resolve(fileURLToPath(import.meta.url), '../../references/previews');
const UPDATE = process.env.UPDATE_REFERENCES === '1';
/** Differing pixels (pixelmatch, per-pixel threshold 0.1) a PNG may have against its reference: anti-aliasing noise only. */
export const MAX_DIFF_RATIO = 0.002;

/** The share of pixels that differ (1 when the sizes differ). */
export function diffRatio(actual: Buffer, expected: Buffer): number {
  const a = PNG.sync.read(actual);
  const b = PNG.sync.read(expected);
  if (a.width !== b.width || a.height !== b.height) return 1;
  return pixelmatch(a.data, b.data, null, a.width, a.height, { threshold: 0.1 }) / (a.width * a.height);
}

/** Expects a PNG to match its reference (or writes the reference with `UPDATE_REFERENCES=1`). */
export function expectMatchesReference(name: string, png: Buffer): void {
  const file = resolve(REFERENCES, `${name}.png`);
  if (UPDATE || !existsSync(file)) {
    mkdirSync(REFERENCES, { recursive: true });
    writeFileSync(file, png);
    if (!UPDATE) throw new Error(`No reference ${file}; wrote one. Look at it, commit it, and run again.`);
    return;
  }
  expect(diffRatio(png, readFileSync(file))).toBeLessThanOrEqual(MAX_DIFF_RATIO);
}
