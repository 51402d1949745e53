/**
 * Barcodes and colours of a preview: the symbol drawn by bwip-js (https://github.com/metafloor/bwip-js,
 * Barcode Writer in Pure PostScript) as SVG, embedded as a `data:` URL image; and the WCAG 2.x
 * contrast ratio of two colours (https://www.w3.org/TR/WCAG22/#dfn-contrast-ratio, relative
 * luminance https://www.w3.org/TR/WCAG22/#dfn-relative-luminance). Pure.
 *
 * @module wallet/preview/barcodeImage
 */
import bwipjs from 'bwip-js';
import { LRUCache } from 'lru-cache';
import type { LayoutRecord } from './elements.ts';
import type { PreviewBarcode } from './previewCard.ts';

/** The bwip-js symbology per barcode format (Apple PKBarcodeFormat…, Google QR_CODE, CODE_128, AZTEC, PDF_417). */
const SYMBOLOGY = { qr: 'qrcode', code128: 'code128', aztec: 'azteccode', pdf417: 'pdf417' } as const;

/** A drawn barcode: an SVG `data:` URL and its aspect (width / height). */
export interface BarcodeImage {
  src: string;
  aspect: number;
}

/** Symbols drawn lately, by format and message: a design changes far more often than its barcode. */
const drawn = new LRUCache<string, BarcodeImage>({ max: 1000 });

/**
 * Draws a barcode (symbol only; the caption is laid out by the preview with the pass's font).
 * @throws Error from bwip-js when the message cannot be encoded in the format (e.g. too long).
 */
export function barcodeImage(barcode: PreviewBarcode): BarcodeImage {
  const key = `${barcode.format}\u0000${barcode.message}`;
  const hit = drawn.get(key);
  if (hit) return hit;
  const image = drawSymbol(barcode);
  drawn.set(key, image);
  return image;
}

function drawSymbol(barcode: PreviewBarcode): BarcodeImage {
  const svg = bwipjs.toSVG({ bcid: SYMBOLOGY[barcode.format], text: barcode.message, ...(barcode.format === 'pdf417' ? { columns: 4 } : {}) });
  const [, width, height] = /viewBox="0 0 (\d+(?:\.\d+)?) (\d+(?:\.\d+)?)"/.exec(svg) ?? [];
  return { src: `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}`, aspect: Number(width) / Number(height) || 1 };
}

/**
 * The barcode of a preview, or, when its message is empty or cannot be encoded in its format, a
 * crossed-out box of the barcode's shape and a `barcode_invalid` warning (the wallet would show
 * no barcode, or refuse the pass).
 */
export function previewBarcode(barcode: PreviewBarcode, record: LayoutRecord): BarcodeImage {
  let problem = 'The barcode has no message; a custom barcode needs barcode.value.';
  if (barcode.message !== '') {
    try {
      return barcodeImage(barcode);
    } catch (error) {
      problem = `The message cannot be encoded as ${barcode.format}: ${error instanceof Error ? error.message : String(error)}`;
    }
  }
  record.warn({ code: 'barcode_invalid', pointer: '/barcode/value', detail: problem.slice(0, 900) });
  const square = barcode.format === 'qr' || barcode.format === 'aztec';
  const [w, h] = square ? [100, 100] : [300, 100];
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${w} ${h}"><rect width="${w}" height="${h}" fill="#E0E0E0"/><path d="M0 0L${w} ${h}M${w} 0L0 ${h}" stroke="#9E9E9E" stroke-width="4"/></svg>`;
  return { src: `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}`, aspect: w / h };
}

/** The relative luminance of `#RRGGBB` (WCAG 2.x). */
export function relativeLuminance(hex: string): number {
  const value = Number.parseInt(hex.slice(1), 16);
  const channel = (c: number) => {
    const s = c / 255;
    return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel((value >> 16) & 255) + 0.7152 * channel((value >> 8) & 255) + 0.0722 * channel(value & 255);
}

/** The contrast ratio of two `#RRGGBB` colours, 1 to 21. */
export function contrastRatio(a: string, b: string): number {
  const [light, dark] = [relativeLuminance(a), relativeLuminance(b)].sort((x, y) => y - x) as [number, number];
  return (light + 0.05) / (dark + 0.05);
}

/** WCAG 2.x level AA minimum contrast of normal text (success criterion 1.4.3). */
export const WCAG_AA_CONTRAST = 4.5;
