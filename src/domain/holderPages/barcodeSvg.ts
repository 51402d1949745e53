/**
 * A pass's barcode drawn as SVG for the holder page's web pass, by bwip-js
 * (https://github.com/metafloor/bwip-js, `toSVG`), in the pass's own symbology: the same code a
 * wallet app shows (Apple `PKBarcodeFormat*`, Google `BarcodeType`), so a till that scans the
 * wallet pass scans the web pass.
 *
 * Drawn black on white with the quiet zone a scanner needs around it (QR: 4 modules,
 * https://www.qrcode.com/en/howto/code.html; Code 128: 10 modules,
 * https://en.wikipedia.org/wiki/Code_128; PDF417: 2 modules, https://en.wikipedia.org/wiki/PDF417;
 * Aztec needs none, https://en.wikipedia.org/wiki/Aztec_Code, 2 are kept), at a scale of one
 * unit per module: the page sizes it with CSS (`viewBox` only), and
 * `shape-rendering="crispEdges"` keeps module edges sharp at any size.
 *
 * @module domain/holderPages/barcodeSvg
 */
import bwipjs from 'bwip-js';
import type { components } from '../../../generated/api.d.ts';

/** A symbology of the contract's `BarcodeType`. */
export type BarcodeType = components['schemas']['BarcodeType'];

/** bwip-js's symbology id and quiet zone (modules) per type. */
const SYMBOLOGIES: Record<BarcodeType, { bcid: string; quietX: number; quietY: number }> = {
  qr: { bcid: 'qrcode', quietX: 4, quietY: 4 },
  aztec: { bcid: 'azteccode', quietX: 2, quietY: 2 },
  pdf417: { bcid: 'pdf417', quietX: 2, quietY: 2 },
  code128: { bcid: 'code128', quietX: 10, quietY: 0 },
};

/** Whether a type is two-dimensional and square (QR, Aztec) rather than wide (PDF417, Code 128). */
export function isMatrixCode(type: BarcodeType): boolean {
  return type === 'qr' || type === 'aztec';
}

/**
 * The SVG element of a barcode.
 * @param type The pass's symbology.
 * @param value The encoded message (the pass's barcode value, as in its `pass.json` `barcodes[].message`).
 * @param label The accessible name of the image (`aria-label`, with `role="img"`).
 * @returns The `<svg>` markup (generated, so trusted; `label` is escaped by the caller), or null
 *   when the value cannot be encoded in that symbology (e.g. a character outside Code 128's set).
 */
export function barcodeSvg(type: BarcodeType, value: string, label: string): string | null {
  const { bcid, quietX, quietY } = SYMBOLOGIES[type];
  let svg: string;
  try {
    svg = bwipjs.toSVG({
      bcid,
      text: value,
      scale: 1,
      // bwip-js pads in points (its scale 1 is 2 units per module for 2-D codes): padding is in modules × module width.
      paddingwidth: quietX * (type === 'code128' ? 1 : 2),
      paddingheight: quietY * (type === 'code128' ? 1 : 2),
      backgroundcolor: 'FFFFFF',
      ...(type === 'code128' ? { height: 15 } : {}),
    });
  } catch {
    return null;
  }
  return svg.trim().replace('<svg ', `<svg role="img" aria-label="${label}" shape-rendering="crispEdges" preserveAspectRatio="xMidYMid meet" `);
}
