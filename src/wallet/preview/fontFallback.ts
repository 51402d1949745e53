/**
 * The fonts a preview draws what Inter's Latin subset lacks with, loaded when a text first needs
 * them: the other unicode-range subsets of Inter (Latin Extended, Cyrillic, Greek, Vietnamese; one
 * typeface with the Latin text around them), then Noto Sans (the same subsets and Devanagari, for
 * what Inter lacks), Noto Sans Hebrew and Arabic, and Noto Sans JP, SC, TC and KR — each from its
 * `@fontsource` package (https://fontsource.org/, SIL Open Font License), whose `unicode.json`
 * lists the code points of each subset file (Google Fonts' slices: about a hundred files of
 * 20–60 kB per CJK family, so a name loads the few files its characters are in).
 *
 * For a text, {@link textFonts} picks per character the first face of that order whose subset
 * covers it and which has a glyph for it, reading the WOFF file the first time (synchronously:
 * a file of at most 85 kB from the package folder). Chinese characters are in all four CJK
 * families, drawn differently: the family of the text's script comes first (kana: Japanese,
 * hangul: Korean), else that of the card's language (`ja`, `ko`, `zh-Hant`/`zh-TW`/`zh-HK`,
 * `zh`), else Simplified Chinese. A character no face has is reported as missing.
 *
 * The faces of a text are named in its `fontFamily` (Inter first), which is the order satori
 * picks a font for each character in; satori shapes each run with HarfBuzz and orders
 * right-to-left runs (Hebrew, Arabic) with its bidirectional algorithm
 * (https://github.com/vercel/satori#language-and-typography). The faces of a card are handed to
 * satori in one fonts array per set of faces ({@link satoriFonts}), not through satori's
 * `loadAdditionalAsset`: satori asks that only for characters that none of the fonts it already
 * holds has, so once one Chinese font were in, a card in another (or at another weight) would be
 * drawn in the font already there rather than in the one it was measured with.
 *
 * Memory: faces are kept by recency up to {@link FACE_CACHE_BYTES} of font data (satori keeps its
 * own parse of each face while a fonts array holding it is cached); a Latin card loads none.
 *
 * @module wallet/preview/fontFallback
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { LRUCache } from 'lru-cache';
import { interFace, previewFonts, readFace, type FontFace, type FontWeight, type PreviewFont } from './fontMetrics.ts';

const require = createRequire(import.meta.url);

/** One unicode-range subset of a family: a WOFF file per weight. */
interface Subset {
  /** The family name satori knows its faces by, e.g. `Noto Sans JP 57`. */
  name: string;
  /** Inclusive code point ranges, ascending by start. */
  ranges: [number, number][];
  file: (weight: FontWeight) => string;
}

/** A fontsource package and the subsets of it the previews use. */
interface FamilySource {
  family: string;
  /** The package's id, e.g. `noto-sans-jp`. */
  id: string;
  /** Which subsets of its `unicode.json` to use. */
  subsets: (key: string) => boolean;
}

const NUMBERED = (key: string) => /^\[\d+\]$/.test(key);

/** Fallback families before the CJK ones, in the order they are tried. */
const ALPHABETS: readonly FamilySource[] = [
  { family: 'Inter', id: 'inter', subsets: (key) => key !== 'latin' },
  { family: 'Noto Sans', id: 'noto-sans', subsets: () => true },
  { family: 'Noto Sans Hebrew', id: 'noto-sans-hebrew', subsets: (key) => key === 'hebrew' },
  { family: 'Noto Sans Arabic', id: 'noto-sans-arabic', subsets: (key) => key === 'arabic' },
];

/** The CJK families, by the language whose glyph forms they draw. */
const CJK = {
  ja: { family: 'Noto Sans JP', id: 'noto-sans-jp', subsets: NUMBERED },
  zhHans: { family: 'Noto Sans SC', id: 'noto-sans-sc', subsets: NUMBERED },
  zhHant: { family: 'Noto Sans TC', id: 'noto-sans-tc', subsets: NUMBERED },
  ko: { family: 'Noto Sans KR', id: 'noto-sans-kr', subsets: NUMBERED },
} as const satisfies Record<string, FamilySource>;
type CjkKey = keyof typeof CJK;

/** `U+0041-005A,U+00C0` → ranges. */
function parseRanges(unicodeRange: string): [number, number][] {
  return unicodeRange
    .split(',')
    .map((part) => part.trim().replace(/^U\+/i, ''))
    .filter(Boolean)
    .map((part): [number, number] => {
      const [start, end = start] = part.split('-') as [string, string?];
      return [Number.parseInt(start, 16), Number.parseInt(end!, 16)];
    })
    .sort((a, b) => a[0] - b[0]);
}

const families = new Map<string, Subset[]>();

/** The subsets of a family (its `unicode.json` read the first time). */
function subsetsOf(source: FamilySource): Subset[] {
  let subsets = families.get(source.id);
  if (!subsets) {
    const unicode = JSON.parse(readFileSync(require.resolve(`@fontsource/${source.id}/unicode.json`), 'utf8')) as Record<string, string>;
    subsets = Object.entries(unicode)
      .filter(([key]) => source.subsets(key))
      .map(([key, range]) => {
        const subset = key.replace(/^\[(\d+)\]$/, '$1');
        return {
          name: `${source.family} ${subset}`,
          ranges: parseRanges(range),
          file: (weight: FontWeight) => require.resolve(`@fontsource/${source.id}/files/${source.id}-${subset}-${weight}-normal.woff`),
        };
      });
    families.set(source.id, subsets);
  }
  return subsets;
}

function covers(subset: Subset, codePoint: number): boolean {
  let low = 0;
  let high = subset.ranges.length - 1;
  while (low <= high) {
    const mid = (low + high) >> 1;
    const [start, end] = subset.ranges[mid]!;
    if (codePoint < start) high = mid - 1;
    else if (codePoint > end) low = mid + 1;
    else return true;
  }
  return false;
}

/** The most font data (OpenType, as handed to satori) the face cache keeps; the faces in use stay loaded through satori's fonts arrays. */
export const FACE_CACHE_BYTES = 32 * 1024 * 1024;

const faces = new LRUCache<string, FontFace>({ maxSize: FACE_CACHE_BYTES, sizeCalculation: (face) => face.font.data.byteLength });

function faceOf(subset: Subset, weight: FontWeight): FontFace {
  const key = `${subset.name}|${weight}`;
  let face = faces.get(key);
  if (!face) {
    face = readFace(subset.name, subset.file(weight), weight);
    faces.set(key, face);
  }
  return face;
}

/** The CJK families in the order they are tried for a text on a card in `language`. */
function cjkOrder(text: string, language: string): FamilySource[] {
  let first: CjkKey = 'zhHans';
  if (/[\p{Script=Hiragana}\p{Script=Katakana}]/u.test(text)) first = 'ja';
  else if (/\p{Script=Hangul}/u.test(text)) first = 'ko';
  else if (/^ja\b/i.test(language)) first = 'ja';
  else if (/^ko\b/i.test(language)) first = 'ko';
  else if (/^zh-(hant|tw|hk|mo)\b/i.test(language)) first = 'zhHant';
  const order: CjkKey[] = ['ja', 'zhHans', 'zhHant', 'ko'];
  return [CJK[first], ...order.filter((key) => key !== first).map((key) => CJK[key])];
}

/** Characters no font is asked for: white space, controls, and default-ignorable marks (joiners, variation selectors). */
const NOT_DRAWN = /[\s\p{Cc}\p{Default_Ignorable_Code_Point}]/u;

/** The faces a text is drawn with, and the characters none of them has. */
export interface TextFonts {
  /** Inter at the text's weight, then the fallback faces it needs, in the order tried. */
  faces: FontFace[];
  /** The characters no face of the previews has (drawn as the missing-glyph box), each once. */
  missing: string[];
}

/**
 * The faces of a text at a weight (loading those not read yet), and what none has.
 * @param language The card's language (BCP 47), which decides among the CJK families.
 * @throws Error when a font file of an installed package cannot be read.
 */
export function textFonts(text: string, weight: FontWeight, language: string): TextFonts {
  const inter = interFace(weight);
  const found: { face: FontFace; rank: number }[] = [];
  const missing = new Set<string>();
  let order: FamilySource[] | undefined;
  for (const char of text) {
    const codePoint = char.codePointAt(0)!;
    if (inter.glyphOf(codePoint) !== 0 || NOT_DRAWN.test(char) || found.some(({ face }) => face.glyphOf(codePoint) !== 0)) continue;
    order ??= [...ALPHABETS, ...cjkOrder(text, language)];
    let rank = 0;
    let face: FontFace | undefined;
    search: for (const source of order) {
      for (const subset of subsetsOf(source)) {
        rank++;
        if (!covers(subset, codePoint)) continue;
        const candidate = faceOf(subset, weight);
        if (candidate.glyphOf(codePoint) !== 0) {
          face = candidate;
          break search;
        }
      }
    }
    if (face) found.push({ face, rank });
    else missing.add(char);
  }
  found.sort((a, b) => a.rank - b.rank);
  return { faces: [inter, ...found.map(({ face }) => face)], missing: [...missing] };
}

/** Fonts arrays by the faces they add to Inter's, kept so satori reuses the engine it built for each. */
const fontArrays = new LRUCache<string, PreviewFont[]>({ max: 32 });

/**
 * The fonts array of a preview: Inter's (the same array every time) plus the fallback faces its
 * texts use; the same array for the same set of faces (not to be changed by the caller).
 */
export function satoriFonts(fallbacks: Iterable<FontFace>): PreviewFont[] {
  const added = [...new Set(fallbacks)].map((face) => face.font).sort((a, b) => (a.name === b.name ? a.weight - b.weight : a.name < b.name ? -1 : 1));
  if (!added.length) return previewFonts();
  const key = added.map((font) => `${font.name}|${font.weight}`).join(',');
  let fonts = fontArrays.get(key);
  if (!fonts) {
    fonts = [...previewFonts(), ...added];
    fontArrays.set(key, fonts);
  }
  return fonts;
}
