/**
 * The barcode symbologies Apple Wallet added in iOS 27 that Google Wallet shows too (the
 * contract's `PreferredBarcodeType`): their `pass.json` format and Google `BarcodeType`, and what
 * each can encode so that both wallets draw it.
 *
 * Sources: Apple, "Pass.Barcodes" (`format`:
 * https://developer.apple.com/documentation/walletpasses/pass/barcodes-data.dictionary; the
 * formats as passkit-generator 3.6 validates them: `PKBarcodeFormatEAN13`,
 * `PKBarcodeFormatCode39`, `PKBarcodeFormatCodabar`, `PKBarcodeFormatI2of5`); Google Wallet
 * `BarcodeType` (https://developers.google.com/wallet/reference/rest/v1/BarcodeType: `EAN_13`,
 * `CODE_39`, `CODABAR`, `ITF_14`). What each symbology encodes: EAN-13 13 digits (GS1 General
 * Specifications, section 5.2), ITF-14 14 digits (the same, section 5.3; Apple's Interleaved 2 of 5 takes any even
 * number of digits, so 14 is what both take), Code 39 digits, capital letters, space and
 * `-.$/+%` (ISO/IEC 16388), Codabar digits and `-$:/.+` (ANSI/AIM BC3; the start and stop
 * characters are added by the renderer).
 *
 * @module wallet/barcodeSymbology
 */
import type { PreferredBarcodeType } from './templateDesign.ts';

/** `pass.json` `barcodes[].format` per preferred type. */
export const APPLE_PREFERRED_FORMAT = {
  ean13: 'PKBarcodeFormatEAN13',
  code39: 'PKBarcodeFormatCode39',
  codabar: 'PKBarcodeFormatCodabar',
  itf: 'PKBarcodeFormatI2of5',
} as const satisfies Record<PreferredBarcodeType, string>;

/** Google Wallet `Barcode.type` per preferred type. */
export const GOOGLE_PREFERRED_TYPE = { ean13: 'EAN_13', code39: 'CODE_39', codabar: 'CODABAR', itf: 'ITF_14' } as const satisfies Record<
  PreferredBarcodeType,
  string
>;

/** What each symbology encodes, as both wallets draw it. */
const ENCODABLE: Record<PreferredBarcodeType, { pattern: RegExp; what: string }> = {
  ean13: { pattern: /^\d{13}$/, what: 'exactly 13 digits' },
  itf: { pattern: /^\d{14}$/, what: 'exactly 14 digits (ITF-14)' },
  code39: { pattern: /^[0-9A-Z \-.$/+%]+$/, what: 'digits, capital letters, space and -.$/+%' },
  codabar: { pattern: /^[0-9\-$:/.+]+$/, what: 'digits and -$:/.+' },
};

/** Whether a value can be encoded in a symbology. */
export function fitsSymbology(type: PreferredBarcodeType, value: string): boolean {
  return ENCODABLE[type].pattern.test(value);
}

/** The sentence saying what a symbology takes, for error details. */
export function symbologyTakes(type: PreferredBarcodeType): string {
  return ENCODABLE[type].what;
}

/**
 * Why a template's preferred symbology cannot show its barcode, or null when it can (as far as
 * the template knows: an `extId` source is checked per pass).
 * @param customValue The `custom` value (null for the other sources).
 * @returns The barcode member to name (`source` or `value`) and a sentence.
 */
export function preferredBarcodeProblem(
  type: PreferredBarcodeType,
  source: 'uuid' | 'extId' | 'custom',
  customValue: string | null,
): { member: 'source' | 'value'; detail: string } | null {
  if (source === 'uuid') {
    return { member: 'source', detail: `A ${type} barcode encodes ${symbologyTakes(type)}; a pass UUID does not fit. Use source extId or custom.` };
  }
  if (source === 'custom' && customValue !== null && !fitsSymbology(type, customValue)) {
    return { member: 'value', detail: `A ${type} barcode encodes ${symbologyTakes(type)}; "${customValue}" does not fit.` };
  }
  return null;
}
