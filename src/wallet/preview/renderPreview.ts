/**
 * Renders a pass preview: the element tree of the wallet's layout (appleLayout.ts,
 * googleLayout.ts) laid out and drawn as SVG by satori (https://github.com/vercel/satori; Yoga
 * flexbox, text shaped with HarfBuzz in Inter and, for what Inter's Latin subset lacks, the fallback
 * fonts of src/wallet/preview/fontFallback.ts, and drawn as paths, so the SVG looks the same in
 * every viewer), rasterised to PNG by resvg (https://github.com/thx/resvg-js) at 1x, 2x or 3x; with the
 * warnings a designer needs (values truncated, images missing, contrast below WCAG AA, fields the
 * style does not show, characters no font has). Pure apart from the font files read the first
 * time a text needs them; the {@link PreviewCache} keeps
 * rendered output by entity tag.
 *
 * Text layer: as the drawn text is paths, the SVG also carries every text as an invisible
 * `<text>` element (`fill-opacity="0"`, so it can be selected, searched and read by assistive
 * technology) at the position satori laid it out at, with `data-region` (top, primary, secondary,
 * auxiliary, back, barcode; title, header, points, textModules on Google cards), `data-pointer`
 * (the template member) and `data-part` (label, value…). Positions and texts come from satori's
 * own layout (its `onNodeDetected` hook), not from a second computation.
 *
 * This is the function the holder page can use to show its card: `renderPreview(card, options)`.
 *
 * @module wallet/preview/renderPreview
 */
import { Resvg } from '@resvg/resvg-js';
import { LRUCache } from 'lru-cache';
import satori from 'satori';
import { appleBack, appleFront } from './appleLayout.ts';
import { contrastRatio, WCAG_AA_CONTRAST } from './barcodeImage.ts';
import { LayoutRecord, type Element, type PreviewWarning, type Region } from './elements.ts';
import { satoriFonts } from './fontFallback.ts';
import { googleCard } from './googleLayout.ts';
import type { PreviewCard } from './previewCard.ts';

export type { PreviewWarning } from './elements.ts';

/** What to render. */
export interface PreviewOptions {
  platform: 'apple' | 'google';
  /** The back of an Apple pass; Google cards have one side (`back` draws the front). */
  side: 'front' | 'back';
}

/** A text of the preview as laid out. */
export interface PreviewText {
  region: Region;
  pointer: string;
  part: string;
  text: string;
  /** Box in points from the top left of the card. */
  x: number;
  y: number;
  width: number;
  height: number;
}

/** A rendered preview. */
export interface RenderedPreview {
  svg: string;
  /** Size in points (1x pixels). */
  width: number;
  height: number;
  warnings: PreviewWarning[];
  texts: PreviewText[];
}

const escapeXml = (text: string) => text.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);

/** The design warnings that do not come from laying out text: images and colours. */
function designWarnings(card: PreviewCard, options: PreviewOptions, record: LayoutRecord): void {
  const missing = (member: string, why: string) => record.warn({ code: 'image_missing', pointer: `/images/${member}`, detail: why });
  if (options.platform === 'apple') {
    if (!card.images.icon) missing('icon', 'Apple Wallet does not add a pass without an icon (icon.png); set images.icon.');
    if (['storeCard', 'coupon', 'eventTicket'].includes(card.appleStyle) && !card.images.strip) {
      missing('banner', `A ${card.appleStyle} pass shows its strip image behind the primary field; set images.banner.`);
    }
  } else if ((card.googleType === 'loyalty' || card.googleType === 'transit') && !card.images.logo) {
    missing('logo', `Google Wallet ${card.googleType} cards need a logo (${card.googleType === 'loyalty' ? 'programLogo' : 'logo'}); set images.logo.`);
  }
  if (options.platform === 'apple') {
    for (const member of ['text', 'label'] as const) {
      const ratio = contrastRatio(card.colors[member], card.colors.background);
      if (ratio < WCAG_AA_CONTRAST) {
        record.warn({
          code: 'contrast_low',
          pointer: `/colors/${member}`,
          detail: `colors.${member} ${card.colors[member]} on colors.background ${card.colors.background} has a contrast of ${ratio.toFixed(2)}:1, below WCAG AA's 4.5:1 (https://www.w3.org/TR/WCAG22/#contrast-minimum).`,
        });
      }
    }
  }
}

/** The natural size of an image `data:` URL: a PNG's IHDR, or an SVG's `viewBox` (null when neither is found). */
function naturalSize(src: string): { width: number; height: number } | null {
  const comma = src.indexOf(',');
  if (src.startsWith('data:image/png;base64,')) {
    const head = Buffer.from(src.slice(comma + 1, comma + 1 + 44), 'base64');
    return head.length >= 24 ? { width: head.readUInt32BE(16), height: head.readUInt32BE(20) } : null;
  }
  if (src.startsWith('data:image/svg+xml;base64,')) {
    const svg = Buffer.from(src.slice(comma + 1), 'base64').toString('utf8', 0, 300);
    const box = /viewBox="0 0 (\d+(?:\.\d+)?) (\d+(?:\.\d+)?)"/.exec(svg);
    return box ? { width: Number(box[1]), height: Number(box[2]) } : null;
  }
  return null;
}

/**
 * Replaces every image of the tree by a stand-in of the same natural size (an empty SVG), so that
 * satori lays out and crops by the real size without decoding the image (decoding the PNGs and
 * parsing barcode SVGs was most of a render's time); the caller puts the real sources back into
 * satori's output.
 * @returns The stand-in source → real source.
 */
function standIns(element: Element, found = new Map<string, string>()): Map<string, string> {
  const { src, children } = element.props;
  if (element.type === 'img' && src) {
    const size = naturalSize(src);
    if (size) {
      const standIn = `data:image/svg+xml;base64,${Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="${size.width}" height="${size.height}" id="i${found.size}"></svg>`).toString('base64')}`;
      found.set(standIn, src);
      element.props.src = standIn;
    }
  }
  for (const child of Array.isArray(children) ? children : children && typeof children === 'object' ? [children] : []) standIns(child, found);
  return found;
}

function layout(card: PreviewCard, options: PreviewOptions, record: LayoutRecord): { element: Element; width: number; height: number | null } {
  if (options.platform === 'google') return googleCard(card, record);
  return options.side === 'back' ? appleBack(card, record) : appleFront(card, record);
}

/**
 * Renders the SVG of a preview with its warnings and text layer.
 * @throws Error when a barcode message cannot be encoded in its format (bwip-js).
 */
export async function renderPreview(card: PreviewCard, options: PreviewOptions): Promise<RenderedPreview> {
  const record = new LayoutRecord(card.language);
  designWarnings(card, options, record);
  const { element, width, height } = layout(card, options, record);
  const texts: PreviewText[] = [];
  const images = standIns(element);
  const drawn = await satori(element as never, {
    width,
    ...(height === null ? {} : { height }),
    fonts: satoriFonts(record.fallbackFaces),
    onNodeDetected: (node) => {
      const key = typeof node.key === 'string' ? node.key.split('|') : [];
      if (key.length !== 3 || typeof node.textContent !== 'string') return;
      const [region, pointer, part] = key as [Region, string, string];
      texts.push({ region, pointer, part, text: node.textContent, x: node.left, y: node.top, width: node.width, height: node.height });
    },
  });
  let svg = drawn;
  for (const [standIn, src] of images) svg = svg.replaceAll(standIn, src);
  const size = /^<svg width="(\d+(?:\.\d+)?)" height="(\d+(?:\.\d+)?)"/.exec(svg);
  const layer = texts
    .map(
      (t) =>
        `<text x="${t.x}" y="${t.y + t.height * 0.8}" font-size="${(t.height / 1.2).toFixed(2)}" data-region="${t.region}" data-pointer="${escapeXml(t.pointer)}" data-part="${t.part}">${escapeXml(t.text)}</text>`,
    )
    .join('');
  const withLayer = svg.replace(/<\/svg>$/, `<g fill-opacity="0" font-family="Inter, sans-serif">${layer}</g></svg>`);
  return { svg: withLayer, width: Number(size?.[1] ?? width), height: Number(size?.[2] ?? height ?? 0), warnings: record.warnings, texts };
}

/** The scales a PNG is drawn at (Apple's 1x, 2x and 3x screens). */
export type PreviewScale = 1 | 2 | 3;

/** Rasterises a preview SVG to PNG at a scale (resvg; the text layer is skipped: no system fonts are loaded). */
export function rasterisePreview(svg: string, scale: PreviewScale): Uint8Array {
  const resvg = new Resvg(svg, { fitTo: { mode: 'zoom', value: scale }, font: { loadSystemFonts: false }, shapeRendering: 2, textRendering: 1 });
  return resvg.render().asPng();
}

/** A rendered representation kept by the cache. */
export interface CachedPreview {
  /** SVG text, PNG bytes or the JSON text of the JSON:API document. */
  body: string | Uint8Array;
  warnings: PreviewWarning[];
}

/**
 * Rendered previews by entity tag (lru-cache, https://github.com/isaacs/node-lru-cache), at most
 * `maxBytes` of bodies (64 MB by default). An entity tag names a template version, a pass version
 * and the options, so an entry never goes stale; eviction is by recency.
 */
export class PreviewCache {
  private readonly cache: LRUCache<string, CachedPreview>;

  constructor(maxBytes = 64 * 1024 * 1024) {
    this.cache = new LRUCache<string, CachedPreview>({
      maxSize: maxBytes,
      sizeCalculation: (entry) => Math.max(1, typeof entry.body === 'string' ? entry.body.length : entry.body.byteLength),
    });
  }

  get(etag: string): CachedPreview | undefined {
    return this.cache.get(etag);
  }

  set(etag: string, entry: CachedPreview): void {
    this.cache.set(etag, entry);
  }

  /**
   * The cached entry of `etag`, or the one `render` makes (then cached). Concurrent misses of one
   * tag each render (a preview is cheap and idempotent).
   */
  async getOrRender(etag: string, render: () => Promise<CachedPreview>): Promise<CachedPreview> {
    const hit = this.cache.get(etag);
    if (hit) return hit;
    const entry = await render();
    this.cache.set(etag, entry);
    return entry;
  }
}
