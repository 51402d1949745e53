/**
 * The Inter font of the previews (the `@fontsource/inter` package, https://fontsource.org/fonts/inter,
 * SIL Open Font License) and its advance widths, so that a text is measured — and truncated — with
 * the metrics satori lays it out with.
 *
 * The widths are read from the WOFF files themselves (W3C WOFF 1.0,
 * https://www.w3.org/TR/WOFF/: a table directory of zlib-compressed OpenType tables) through the
 * OpenType tables `head` (units per em), `hhea` (number of horizontal metrics), `hmtx` (advance
 * widths) and `cmap` format 4 (code point → glyph; https://learn.microsoft.com/typography/opentype/spec/cmap).
 * Kerning (GPOS) is not applied, so a measured width is the unkerned one: at most a fraction of
 * a point wider than what is drawn, which makes truncation err on the safe side.
 *
 * @module wallet/preview/fontMetrics
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { inflateSync } from 'node:zlib';

/** The weights the previews use. */
export type FontWeight = 400 | 500 | 600 | 700;
export const FONT_WEIGHTS: readonly FontWeight[] = [400, 500, 600, 700];

/** A font as satori takes it (https://github.com/vercel/satori#fonts). */
export interface PreviewFont {
  name: 'Inter';
  data: Buffer;
  weight: FontWeight;
  style: 'normal';
}

interface Metrics {
  unitsPerEm: number;
  advances: Uint16Array;
  glyphOf: (codePoint: number) => number;
}

function woffTables(woff: Buffer): Map<string, Buffer> {
  const tables = new Map<string, Buffer>();
  const count = woff.readUInt16BE(12);
  for (let i = 0; i < count; i++) {
    const entry = 44 + i * 20;
    const offset = woff.readUInt32BE(entry + 4);
    const compressed = woff.readUInt32BE(entry + 8);
    const original = woff.readUInt32BE(entry + 12);
    const bytes = woff.subarray(offset, offset + compressed);
    tables.set(woff.toString('latin1', entry, entry + 4), compressed < original ? inflateSync(bytes) : bytes);
  }
  return tables;
}

/** The format 4 subtable of `cmap` (Unicode BMP), as a lookup. */
function cmapLookup(cmap: Buffer): (codePoint: number) => number {
  const count = cmap.readUInt16BE(2);
  let table = -1;
  for (let i = 0; i < count; i++) {
    const offset = cmap.readUInt32BE(8 + i * 8);
    if (cmap.readUInt16BE(offset) === 4) table = offset;
  }
  if (table < 0) return () => 0;
  const segments = cmap.readUInt16BE(table + 6) / 2;
  const ends = table + 14;
  const starts = ends + segments * 2 + 2;
  const deltas = starts + segments * 2;
  const rangeOffsets = deltas + segments * 2;
  return (codePoint) => {
    for (let s = 0; s < segments; s++) {
      if (cmap.readUInt16BE(ends + s * 2) < codePoint) continue;
      const start = cmap.readUInt16BE(starts + s * 2);
      if (start > codePoint) return 0;
      const delta = cmap.readInt16BE(deltas + s * 2);
      const rangeOffset = cmap.readUInt16BE(rangeOffsets + s * 2);
      if (rangeOffset === 0) return (codePoint + delta) & 0xffff;
      const glyph = cmap.readUInt16BE(rangeOffsets + s * 2 + rangeOffset + (codePoint - start) * 2);
      return glyph === 0 ? 0 : (glyph + delta) & 0xffff;
    }
    return 0;
  };
}

function metricsOf(woff: Buffer): Metrics {
  const tables = woffTables(woff);
  const hhea = tables.get('hhea')!;
  const hmtx = tables.get('hmtx')!;
  const count = hhea.readUInt16BE(34);
  const advances = new Uint16Array(count);
  for (let i = 0; i < count; i++) advances[i] = hmtx.readUInt16BE(i * 4);
  return { unitsPerEm: tables.get('head')!.readUInt16BE(18), advances, glyphOf: cmapLookup(tables.get('cmap')!) };
}

const require = createRequire(import.meta.url);
const fonts = new Map<FontWeight, { font: PreviewFont; metrics: Metrics }>();

function loaded(weight: FontWeight) {
  let entry = fonts.get(weight);
  if (!entry) {
    const data = readFileSync(require.resolve(`@fontsource/inter/files/inter-latin-${weight}-normal.woff`));
    entry = { font: { name: 'Inter', data, weight, style: 'normal' }, metrics: metricsOf(data) };
    fonts.set(weight, entry);
  }
  return entry;
}

/** The Inter fonts of every weight, for satori (read once). */
export function previewFonts(): PreviewFont[] {
  return FONT_WEIGHTS.map((weight) => loaded(weight).font);
}

/**
 * The advance width of a text on one line, in the unit of `size` (points here).
 * A character the font lacks counts as the font's `.notdef` glyph (glyph 0).
 */
export function textWidth(text: string, size: number, weight: FontWeight): number {
  const { metrics } = loaded(weight);
  let units = 0;
  for (const char of text) {
    const glyph = metrics.glyphOf(char.codePointAt(0)!);
    units += metrics.advances[Math.min(glyph, metrics.advances.length - 1)]!;
  }
  return (units * size) / metrics.unitsPerEm;
}

/**
 * Whether the preview font has a glyph for every character of a text (white space aside). Inter's
 * Latin subset lacks, for instance, Polish `ł` and every CJK character, which satori draws as
 * empty boxes.
 */
export function drawsText(text: string): boolean {
  const { metrics } = loaded(400);
  for (const char of text) if (!/\s/u.test(char) && metrics.glyphOf(char.codePointAt(0)!) === 0) return false;
  return true;
}

/** A text as drawn on one line of a given width. */
export interface FittedText {
  text: string;
  /** True when the text did not fit and ends in an ellipsis. */
  truncated: boolean;
}

/**
 * Fits a text on one line of `maxWidth`, as Wallet does: a text that is too wide is cut at the
 * last character that leaves room for "…" (U+2026), trailing spaces dropped.
 */
export function fitText(text: string, size: number, weight: FontWeight, maxWidth: number): FittedText {
  if (textWidth(text, size, weight) <= maxWidth) return { text, truncated: false };
  const chars = [...text];
  let low = 0;
  let high = chars.length;
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (textWidth(`${chars.slice(0, mid).join('')}…`, size, weight) <= maxWidth) low = mid;
    else high = mid - 1;
  }
  return { text: `${chars.slice(0, low).join('').trimEnd()}…`, truncated: true };
}
