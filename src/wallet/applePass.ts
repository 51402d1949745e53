/**
 * Renders a pass template design into the Apple Wallet `pass.json` skeleton and the localised
 * strings of a PassKit bundle (Apple Developer, "Wallet Passes": `Pass`, `PassFields`,
 * `PassFieldContent`, `Pass.Barcodes`, `Pass.Locations`, `Pass.Beacons`; localisation through
 * `<lang>.lproj/pass.strings`).
 *
 * The skeleton holds every key the design decides. The keys of one pass or of the issuer —
 * `passTypeIdentifier`, `teamIdentifier`, `serialNumber`, `organizationName`, `description`,
 * `authenticationToken`, `webServiceURL` — are added when a pass is issued, as are field values.
 * Barcode messages that depend on the pass are the placeholders `{passId}` and `{extId}`.
 *
 * @module wallet/applePass
 */
import { fieldTranslations, placedFields, type PlacedField, type TemplateDesign, type TemplateType, type TransitType } from './templateDesign.ts';

/** What processing stores for Apple Wallet. */
export interface ApplePassArtefact {
  /** `pass.json` without the per-pass and per-issuer keys. */
  passJson: Record<string, unknown>;
  /**
   * `pass.strings` per language other than the default one: default-language text → translation
   * (written as `"text" = "translation";` lines into `<lang>.lproj/pass.strings`).
   */
  strings: Record<string, Record<string, string>>;
}

/** `pass.json` style key per template type (the contract's TemplateType table). */
const STYLE: Record<TemplateType, string> = {
  generic: 'generic',
  eventTicket: 'eventTicket',
  storeCard: 'storeCard',
  loyalty: 'storeCard',
  transit: 'boardingPass',
};

/** `boardingPass.transitType` per transit type. */
const TRANSIT_TYPE: Record<TransitType, string> = {
  airplane: 'PKTransitTypeAir',
  bus: 'PKTransitTypeBus',
  train: 'PKTransitTypeTrain',
  ferry: 'PKTransitTypeBoat',
  other: 'PKTransitTypeGeneric',
};

/** `pass.json` field dictionary per template area. */
const AREA_KEY = { header: 'headerFields', central: 'primaryFields', details: 'secondaryFields', back: 'backFields' } as const;

const BARCODE_FORMAT = {
  qr: 'PKBarcodeFormatQR',
  code128: 'PKBarcodeFormatCode128',
  aztec: 'PKBarcodeFormatAztec',
  pdf417: 'PKBarcodeFormatPDF417',
} as const;

/** The barcode message of a source: the custom value, or the placeholder filled per pass. */
export function barcodeMessage(barcode: TemplateDesign['barcode']): string {
  if (barcode.source === 'custom') return barcode.value ?? '';
  return barcode.source === 'uuid' ? '{passId}' : '{extId}';
}

/**
 * `#RRGGBB` → `rgb(r, g, b)`, the colour form of `pass.json`.
 * @example appleColor('#1A2B3C') === 'rgb(26, 43, 60)'
 */
export function appleColor(hex: string): string {
  const value = Number.parseInt(hex.slice(1), 16);
  return `rgb(${(value >> 16) & 255}, ${(value >> 8) & 255}, ${value & 255})`;
}

function fieldDictionary({ field }: PlacedField): Record<string, string> {
  return {
    key: field.id ?? '',
    ...(field.label ? { label: field.label } : {}),
    value: field.defaultValue ?? '',
    ...(field.changeMessage ? { changeMessage: field.changeMessage } : {}),
  };
}

function localisedStrings(fields: PlacedField[]): ApplePassArtefact['strings'] {
  const strings: ApplePassArtefact['strings'] = {};
  for (const { language, text, translated } of fieldTranslations(fields)) (strings[language] ??= {})[text] = translated;
  return strings;
}

/**
 * Renders the Apple Wallet artefact of a design. Pure: the same design gives the same artefact.
 * Assumes the design passed `designProblems` (every slot has an id).
 */
export function renderApplePass(design: TemplateDesign): ApplePassArtefact {
  const fields = placedFields(design);
  const structure: Record<string, unknown> = {};
  if (design.transitType) structure.transitType = TRANSIT_TYPE[design.transitType];
  for (const [area, key] of Object.entries(AREA_KEY)) {
    structure[key] = fields.filter((f) => f.area === area).map(fieldDictionary);
  }
  structure.auxiliaryFields = [];

  const passJson: Record<string, unknown> = {
    formatVersion: 1,
    ...(design.centralTitle ? { logoText: design.centralTitle } : {}),
    backgroundColor: appleColor(design.colors.background),
    foregroundColor: appleColor(design.colors.text),
    labelColor: appleColor(design.colors.label),
    [STYLE[design.templateType]]: structure,
  };
  if (design.barcode.enabled) {
    passJson.barcodes = [{ format: BARCODE_FORMAT[design.barcode.type], message: barcodeMessage(design.barcode), messageEncoding: 'iso-8859-1' }];
  }
  if (design.locations.length) {
    passJson.locations = design.locations.map((l) => ({ latitude: l.latitude, longitude: l.longitude, ...(l.message ? { relevantText: l.message } : {}) }));
    const radii = design.locations.flatMap((l) => (l.radius === undefined ? [] : [l.radius]));
    if (radii.length) passJson.maxDistance = Math.max(...radii);
  }
  if (design.beacons.length) {
    passJson.beacons = design.beacons.map((b) => ({
      proximityUUID: b.proximityUuid.toUpperCase(),
      ...(b.major === undefined ? {} : { major: b.major }),
      ...(b.minor === undefined ? {} : { minor: b.minor }),
      ...(b.message ? { relevantText: b.message } : {}),
    }));
  }
  const storeIds = design.appLinking.apple.appStoreUrl.map((url) => Number(/\/id(\d+)/.exec(url)?.[1]));
  if (storeIds.length) passJson.associatedStoreIdentifiers = storeIds;
  return { passJson, strings: localisedStrings(fields) };
}
