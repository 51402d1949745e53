/**
 * Reads a barcode back as a till would: the SVG rendered to pixels by sharp (librsvg), then
 * decoded by ZXing (`@zxing/library`, https://github.com/zxing-js/library) restricted to the
 * expected symbology. A symbol that does not decode, or decodes to something else, fails the
 * caller's assertion.
 */
import { BarcodeFormat, BinaryBitmap, DecodeHintType, HybridBinarizer, MultiFormatReader, RGBLuminanceSource } from '@zxing/library';
import sharp from 'sharp';

/**
 * The text a barcode SVG encodes.
 * @param svg An `<svg>` element with a `viewBox`.
 * @param format The symbology to look for.
 * @throws ZXing's NotFoundException when nothing decodes.
 */
export async function decodeBarcode(svg: string, format: BarcodeFormat): Promise<string> {
  // About 4 pixels per module for every symbology here, with a white margin around the symbol.
  const { data, info } = await sharp(Buffer.from(svg), { density: 288 })
    .flatten({ background: '#ffffff' })
    .extend({ top: 20, bottom: 20, left: 20, right: 20, background: '#ffffff' })
    .greyscale()
    .raw()
    .toBuffer({ resolveWithObject: true });
  const luminance = new Uint8ClampedArray(data.buffer, data.byteOffset, info.width * info.height);
  const reader = new MultiFormatReader();
  const hints = new Map<DecodeHintType, unknown>([
    [DecodeHintType.POSSIBLE_FORMATS, [format]],
    [DecodeHintType.TRY_HARDER, true],
    // The image is the symbol alone on white, as drawn. Without the hint ZXing's QR detector
    // missed the finder patterns of 27 of 300 random pass ids' QR codes that jsQR read; with it, 0.
    ...(format === BarcodeFormat.QR_CODE ? ([[DecodeHintType.PURE_BARCODE, true]] as const) : []),
  ]);
  return reader.decode(new BinaryBitmap(new HybridBinarizer(new RGBLuminanceSource(luminance, info.width, info.height))), hints).getText();
}
