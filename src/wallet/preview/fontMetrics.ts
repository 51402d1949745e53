/**
 * The font faces of the previews and their advance widths, so that a text is measured — and
 * truncated — with the metrics satori lays it out with. The previews write in Inter (the
 * `@fontsource/inter` package, https://fontsource.org/fonts/inter, SIL Open Font License), its
 * Latin subset always loaded; what Inter's Latin subset lacks is drawn with the fallback faces of
 * src/wallet/preview/fontFallback.ts, each measured here the same way.
 *
 * The widths are read from the WOFF files themselves (W3C WOFF 1.0,
 * https://www.w3.org/TR/WOFF/: a table directory of zlib-compressed OpenType tables) through the
 * OpenType tables `head` (units per em), `hhea` (number of horizontal metrics), `hmtx` (advance
 * widths) and `cmap` formats 4 and 12 (code point → glyph;
 * https://learn.microsoft.com/typography/opentype/spec/cmap). Kerning (GPOS) and the contextual
 * forms of Arabic are not applied, so a measured width is the unshaped one: within a fraction of
 * a point of what is drawn for Latin text.
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
  /** The family name texts name in `fontFamily` (`Inter`, `Noto Sans JP 57`: one per unicode-range subset). */
  name: string;
  data: Buffer;
  weight: FontWeight;
  style: 'normal';
}

/** A font file at one weight, with what measuring needs of it. */
export interface FontFace {
  font: PreviewFont;
  unitsPerEm: number;
  advances: Uint16Array;
  /** The glyph of a code point; 0 (`.notdef`) when the face has none. */
  glyphOf: (codePoint: number) => number;
}

/** An OpenType table of a WOFF file, decompressed, with the checksum the WOFF directory gives it. */
interface Table {
  tag: string;
  checksum: number;
  data: Buffer;
}

function woffTables(woff: Buffer): Table[] {
  const count = woff.readUInt16BE(12);
  return Array.from({ length: count }, (_, i) => {
    const entry = 44 + i * 20;
    const offset = woff.readUInt32BE(entry + 4);
    const compressed = woff.readUInt32BE(entry + 8);
    const original = woff.readUInt32BE(entry + 12);
    const bytes = woff.subarray(offset, offset + compressed);
    return {
      tag: woff.toString('latin1', entry, entry + 4),
      checksum: woff.readUInt32BE(entry + 16),
      data: compressed < original ? inflateSync(bytes) : bytes,
    };
  });
}

/**
 * The OpenType (sfnt) file a WOFF file wraps: its header, table directory and tables, each table
 * padded to four bytes (OpenType, "Organization of an OpenType font",
 * https://learn.microsoft.com/typography/opentype/spec/otff#organization-of-an-opentype-font).
 * Satori is given this rather than the WOFF file, which it would inflate in JavaScript, slowly.
 */
function sfntOf(woff: Buffer, tables: Table[]): Buffer {
  const sorted = [...tables].sort((a, b) => (a.tag < b.tag ? -1 : 1));
  const entrySelector = Math.floor(Math.log2(sorted.length));
  const searchRange = 2 ** entrySelector * 16;
  const header = Buffer.alloc(12 + sorted.length * 16);
  header.writeUInt32BE(woff.readUInt32BE(4), 0);
  header.writeUInt16BE(sorted.length, 4);
  header.writeUInt16BE(searchRange, 6);
  header.writeUInt16BE(entrySelector, 8);
  header.writeUInt16BE(sorted.length * 16 - searchRange, 10);
  const parts: Buffer[] = [header];
  let offset = header.length;
  sorted.forEach((table, i) => {
    header.write(table.tag, 12 + i * 16, 'latin1');
    header.writeUInt32BE(table.checksum, 16 + i * 16);
    header.writeUInt32BE(offset, 20 + i * 16);
    header.writeUInt32BE(table.data.length, 24 + i * 16);
    const padded = (table.data.length + 3) & ~3;
    parts.push(table.data, Buffer.alloc(padded - table.data.length));
    offset += padded;
  });
  return Buffer.concat(parts, offset);
}

/** The last index `i` in `0…count-1` with `key(i) <= value`, or -1 (keys ascending). */
function lastAtMost(count: number, key: (i: number) => number, value: number): number {
  let low = 0;
  let high = count - 1;
  let found = -1;
  while (low <= high) {
    const mid = (low + high) >> 1;
    if (key(mid) <= value) {
      found = mid;
      low = mid + 1;
    } else high = mid - 1;
  }
  return found;
}

/** A format 12 subtable (segmented coverage, every plane) as a lookup. */
function format12(cmap: Buffer, table: number): (codePoint: number) => number {
  const groups = cmap.readUInt32BE(table + 12);
  const group = (i: number) => table + 16 + i * 12;
  return (codePoint) => {
    const i = lastAtMost(groups, (g) => cmap.readUInt32BE(group(g)), codePoint);
    if (i < 0 || codePoint > cmap.readUInt32BE(group(i) + 4)) return 0;
    return cmap.readUInt32BE(group(i) + 8) + codePoint - cmap.readUInt32BE(group(i));
  };
}

/** A format 4 subtable (segment mapping, the Basic Multilingual Plane) as a lookup. */
function format4(cmap: Buffer, table: number): (codePoint: number) => number {
  const segments = cmap.readUInt16BE(table + 6) / 2;
  const ends = table + 14;
  const starts = ends + segments * 2 + 2;
  const deltas = starts + segments * 2;
  const rangeOffsets = deltas + segments * 2;
  return (codePoint) => {
    if (codePoint > 0xffff) return 0;
    // The first segment whose end is at or after the code point (ends ascending).
    const s = lastAtMost(segments, (i) => cmap.readUInt16BE(ends + i * 2), codePoint - 1) + 1;
    if (s >= segments) return 0;
    const start = cmap.readUInt16BE(starts + s * 2);
    if (start > codePoint) return 0;
    const delta = cmap.readInt16BE(deltas + s * 2);
    const rangeOffset = cmap.readUInt16BE(rangeOffsets + s * 2);
    if (rangeOffset === 0) return (codePoint + delta) & 0xffff;
    const glyph = cmap.readUInt16BE(rangeOffsets + s * 2 + rangeOffset + (codePoint - start) * 2);
    return glyph === 0 ? 0 : (glyph + delta) & 0xffff;
  };
}

/** The Unicode subtable of `cmap` as a lookup: format 12 where the font has one (it covers every plane), else format 4. */
function cmapLookup(cmap: Buffer): (codePoint: number) => number {
  const count = cmap.readUInt16BE(2);
  let table4 = -1;
  let table12 = -1;
  for (let i = 0; i < count; i++) {
    const offset = cmap.readUInt32BE(8 + i * 8);
    const format = cmap.readUInt16BE(offset);
    if (format === 12) table12 = offset;
    else if (format === 4) table4 = offset;
  }
  if (table12 >= 0) return format12(cmap, table12);
  return table4 >= 0 ? format4(cmap, table4) : () => 0;
}

/**
 * Reads a WOFF file as a face of the previews (its font data the OpenType file it wraps).
 * @param name The family name satori knows it by.
 * @param path The file (resolved in node_modules).
 * @throws Error when the file cannot be read.
 */
export function readFace(name: string, path: string, weight: FontWeight): FontFace {
  const woff = readFileSync(path);
  const list = woffTables(woff);
  const tables = new Map(list.map((table) => [table.tag, table.data]));
  const hhea = tables.get('hhea')!;
  const hmtx = tables.get('hmtx')!;
  const count = hhea.readUInt16BE(34);
  const advances = new Uint16Array(count);
  for (let i = 0; i < count; i++) advances[i] = hmtx.readUInt16BE(i * 4);
  return {
    font: { name, data: sfntOf(woff, list), weight, style: 'normal' },
    unitsPerEm: tables.get('head')!.readUInt16BE(18),
    advances,
    glyphOf: cmapLookup(tables.get('cmap')!),
  };
}

const require = createRequire(import.meta.url);
const interFaces = new Map<FontWeight, FontFace>();

/** Inter's Latin subset at a weight (read once): the first face of every text. */
export function interFace(weight: FontWeight): FontFace {
  let face = interFaces.get(weight);
  if (!face) {
    face = readFace('Inter', require.resolve(`@fontsource/inter/files/inter-latin-${weight}-normal.woff`), weight);
    interFaces.set(weight, face);
  }
  return face;
}

let interFonts: PreviewFont[] | undefined;

/**
 * The Inter fonts of every weight, for satori: one array for the life of the process, so that
 * satori keeps the font engine it builds for it (satori caches engines by fonts array) and a Latin
 * card costs no font work. Not to be changed by the caller.
 */
export function previewFonts(): PreviewFont[] {
  interFonts ??= FONT_WEIGHTS.map((weight) => interFace(weight).font);
  return interFonts;
}

/** The advance of a code point in the first face that has it (the last resort: the first face's `.notdef`), in font units per em. */
function advance(faces: readonly FontFace[], codePoint: number): number {
  for (const face of faces) {
    const glyph = face.glyphOf(codePoint);
    if (glyph !== 0) return (face.advances[Math.min(glyph, face.advances.length - 1)]! * 1000) / face.unitsPerEm;
  }
  const first = faces[0]!;
  return (first.advances[0]! * 1000) / first.unitsPerEm;
}

/**
 * The advance width of a text on one line, in the unit of `size` (points here), each character
 * in the first of `faces` that has it — the order satori picks a font from a `fontFamily` list
 * in. A character none has counts as the first face's `.notdef` glyph (glyph 0).
 * @param faces The faces of the text (src/wallet/preview/fontFallback.ts `textFonts`), Inter first.
 */
export function textWidth(text: string, size: number, faces: readonly FontFace[]): number {
  let units = 0;
  for (const char of text) units += advance(faces, char.codePointAt(0)!);
  return (units * size) / 1000;
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
export function fitText(text: string, size: number, faces: readonly FontFace[], maxWidth: number): FittedText {
  if (textWidth(text, size, faces) <= maxWidth) return { text, truncated: false };
  const chars = [...text];
  let low = 0;
  let high = chars.length;
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (textWidth(`${chars.slice(0, mid).join('')}…`, size, faces) <= maxWidth) low = mid;
    else high = mid - 1;
  }
  return { text: `${chars.slice(0, low).join('').trimEnd()}…`, truncated: true };
}
