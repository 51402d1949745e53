/**
 * The Apple Wallet `pass.json` (Apple, "Pass", https://developer.apple.com/documentation/walletpasses/pass;
 * "PassFieldContent", https://developer.apple.com/documentation/walletpasses/passfieldcontent;
 * "Pass.NFC", "Pass.Barcodes", "Pass.Locations", "Pass.Beacons"), in two steps:
 *
 * - {@link renderApplePass}: a template design → the `pass.json` skeleton with every key the design
 *   decides, and the localised strings of the bundle (`<lang>.lproj/pass.strings`). The keys of one
 *   pass or of the issuer — `passTypeIdentifier`, `teamIdentifier`, `serialNumber`,
 *   `organizationName`, `description`, `authenticationToken`, `webServiceURL` — are added when a
 *   pass is issued, as are field values; barcode messages that depend on the pass are the
 *   placeholders `{passId}` and `{extId}`.
 * - {@link renderPassJson}: the skeleton completed with the keys of the issuer and of one pass —
 *   identifiers, `serialNumber`, `authenticationToken`, `webServiceURL`, field values, barcode,
 *   NFC, locations and beacons, expiry, `voided` — and {@link applePassProblems}, the checks of
 *   Apple's rules that passkit-generator and Wallet's own tooling leave to the device.
 *
 * @module wallet/apple/passJson
 */
import { APPLE_PREFERRED_FORMAT, fitsSymbology } from '../barcodeSymbology.ts';
import {
  barcodeMessage,
  giftCardCurrency,
  currencyDigits,
  fieldTranslations,
  placedFields,
  type PlacedField,
  type PreferredBarcodeType,
  type TemplateDesign,
  type TemplateType,
  type TransitType,
} from '../templateDesign.ts';

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

/**
 * `pass.json` style key per template type (the contract's TemplateType table; Apple's pass styles:
 * https://developer.apple.com/documentation/walletpasses/pass). The previews draw the same style.
 */
export const APPLE_PASS_STYLE = {
  generic: 'generic',
  eventTicket: 'eventTicket',
  storeCard: 'storeCard',
  loyalty: 'storeCard',
  transit: 'boardingPass',
  coupon: 'coupon',
  giftCard: 'storeCard',
} as const satisfies Record<TemplateType, string>;

/** How long an event without `endsAt` is relevant on the lock screen from its start (`relevantDates` needs an end). */
const EVENT_RELEVANCE_MS = 4 * 3600_000;
/** The longest `relevantDates` interval Wallet honours (at most 24 hours: Apple, "Pass.RelevantDates", https://developer.apple.com/documentation/walletpasses/pass/relevantdates-data.dictionary). */
const MAX_RELEVANCE_MS = 24 * 3600_000;

/**
 * The iOS 18 poster event ticket keys of an `eventTicket` design with `eventDetails` (Apple,
 * "Pass": `preferredStyleSchemes`, `relevantDates`, https://developer.apple.com/documentation/walletpasses/pass;
 * "SemanticTags": `eventName`, `venueName`, `eventStartDate`, `eventEndDate`, `performerNames`,
 * https://developer.apple.com/documentation/walletpasses/semantictags; WWDC24 session 10108).
 * `relevantDates` replaces the deprecated `relevantDate`; an event without an end is relevant
 * for 4 hours from its start, a longer one for its first 24 hours (the longest interval Apple
 * takes). The poster's `eventLogo.png` is the template logo (templateImages).
 */
function posterEventTicket(design: TemplateDesign): Record<string, unknown> {
  const event = design.eventDetails;
  if (design.templateType !== 'eventTicket' || !event) return {};
  const start = new Date(event.startsAt);
  const end = event.endsAt ? new Date(event.endsAt) : new Date(start.getTime() + EVENT_RELEVANCE_MS);
  return {
    preferredStyleSchemes: ['posterEventTicket', 'eventTicket'],
    semantics: {
      ...(design.centralTitle ? { eventName: design.centralTitle } : {}),
      venueName: event.venueName,
      eventStartDate: w3cDate(start),
      ...(event.endsAt ? { eventEndDate: w3cDate(end) } : {}),
      ...(event.performerNames?.length ? { performerNames: event.performerNames } : {}),
    },
    relevantDates: [{ startDate: w3cDate(start), endDate: w3cDate(new Date(Math.min(end.getTime(), start.getTime() + MAX_RELEVANCE_MS))) }],
  };
}

/** A coupon's validity (`offerDetails`): `expirationDate` from `validUntil` (a pass's own expiry replaces it). */
function couponValidity(design: TemplateDesign): Record<string, unknown> {
  const until = design.templateType === 'coupon' ? design.offerDetails?.validUntil : undefined;
  return until ? { expirationDate: w3cDate(new Date(until)) } : {};
}

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

/**
 * `#RRGGBB` → `rgb(r, g, b)`, the colour form of `pass.json`.
 * @example appleColor('#1A2B3C') === 'rgb(26, 43, 60)'
 */
export function appleColor(hex: string): string {
  const value = Number.parseInt(hex.slice(1), 16);
  return `rgb(${(value >> 16) & 255}, ${(value >> 8) & 255}, ${value & 255})`;
}

/** The loyalty field, whose value is the pass's balance (for a gift card, an amount in minor units). */
const BALANCE_FIELD_KEY = 'points';

function fieldDictionary({ field }: PlacedField, design: TemplateDesign): Record<string, string> {
  const amount = design.templateType === 'giftCard' && field.id === BALANCE_FIELD_KEY;
  return {
    key: field.id ?? '',
    ...(field.label ? { label: field.label } : {}),
    value: field.defaultValue ?? '',
    ...(field.changeMessage ? { changeMessage: field.changeMessage } : {}),
    // Apple shows a numeric value with currencyCode as an amount (PassFieldContent, https://developer.apple.com/documentation/walletpasses/passfieldcontent).
    ...(amount ? { currencyCode: giftCardCurrency(design) } : {}),
  };
}

function localisedStrings(fields: PlacedField[]): ApplePassArtefact['strings'] {
  const strings: ApplePassArtefact['strings'] = {};
  for (const { language, text, translated } of fieldTranslations(fields)) {
    strings[language] ??= {};
    strings[language][text] = translated;
  }
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
    structure[key] = fields.filter((f) => f.area === area).map((f) => fieldDictionary(f, design));
  }
  structure.auxiliaryFields = [];

  const passJson: Record<string, unknown> = {
    formatVersion: 1,
    ...(design.centralTitle ? { logoText: design.centralTitle } : {}),
    backgroundColor: appleColor(design.colors.background),
    foregroundColor: appleColor(design.colors.text),
    labelColor: appleColor(design.colors.label),
    [APPLE_PASS_STYLE[design.templateType]]: structure,
    ...posterEventTicket(design),
    ...couponValidity(design),
  };
  if (design.barcode.enabled) {
    const formats = [...(design.barcode.preferredType ? [APPLE_PREFERRED_FORMAT[design.barcode.preferredType]] : []), BARCODE_FORMAT[design.barcode.type]];
    passJson.barcodes = formats.map((format) => ({ format, message: barcodeMessage(design.barcode), messageEncoding: 'iso-8859-1' }));
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

/** Barcode formats of `pass.json` (`Pass.Barcodes.format`). */
export const APPLE_BARCODE_FORMATS = [
  'PKBarcodeFormatQR',
  'PKBarcodeFormatPDF417',
  'PKBarcodeFormatAztec',
  'PKBarcodeFormatCode128',
  ...Object.values(APPLE_PREFERRED_FORMAT),
] as const;
export type AppleBarcodeFormat = (typeof APPLE_BARCODE_FORMATS)[number];

/** The style keys, exactly one of which a pass has. */
const STYLE_KEYS = ['boardingPass', 'coupon', 'eventTicket', 'generic', 'storeCard'] as const;
const FIELD_LISTS = ['headerFields', 'primaryFields', 'secondaryFields', 'auxiliaryFields', 'backFields'] as const;

/** Most locations and beacons Wallet uses (Apple: "up to 10"). */
export const MAX_RELEVANCE_ENTRIES = 10;
/** Longest NFC message, in bytes of UTF-8 (`Pass.NFC.message`: "no more than 64 bytes"). */
export const MAX_NFC_MESSAGE_BYTES = 64;
/** Shortest `authenticationToken` (Apple: "must be 16 characters or longer"). */
export const MIN_AUTHENTICATION_TOKEN_LENGTH = 16;

/** A `pass.json` field dictionary. */
export interface PassField {
  key: string;
  label?: string;
  value: string;
  changeMessage?: string;
  [key: string]: unknown;
}

/** What one pass adds to its template's skeleton. */
export interface ApplePassData {
  passTypeIdentifier: string;
  teamIdentifier: string;
  organizationName: string;
  /** Shown by accessibility features and on the lock screen. */
  description: string;
  /** The pass UUID. */
  serialNumber: string;
  /** Never changes for the pass; at least 16 characters. */
  authenticationToken: string;
  /** `<PUBLIC_BASE_URL>/wallet/apple`, or null for a pass that is not updatable. */
  webServiceURL: string | null;
  /** Field values by field key (the template's field ids); fields not named keep the skeleton's. */
  fieldValues: Record<string, string>;
  /** `changeMessage` per field key (each with `%@`, where Wallet puts the new value). */
  changeMessages: Record<string, string>;
  /** Back fields added after the template's (e.g. the latest message). */
  extraBackFields: PassField[];
  barcode: { format: AppleBarcodeFormat; message: string; altText?: string } | null;
  nfc: { message: string; encryptionPublicKey: string; requiresAuthentication?: boolean } | null;
  locations: { latitude: number; longitude: number; altitude?: number; relevantText?: string }[];
  /** Largest distance in metres at which the locations are relevant. */
  maxDistance?: number;
  beacons: { proximityUUID: string; major?: number; minor?: number; relevantText?: string }[];
  expirationDate: Date | null;
  voided: boolean;
}

/** A W3C date-time with seconds and `Z` (`Pass.expirationDate`). */
const w3cDate = (date: Date) => date.toISOString().replace(/\.\d{3}Z$/, 'Z');

/**
 * Completes a skeleton for one pass. Pure.
 * @param skeleton The template version's `pass.json` skeleton.
 * @returns A new `pass.json` object.
 */
export function renderPassJson(skeleton: Record<string, unknown>, data: ApplePassData): Record<string, unknown> {
  const pass: Record<string, unknown> = structuredClone(skeleton);
  const style = STYLE_KEYS.find((key) => key in pass);
  if (style) {
    const structure = pass[style] as Record<string, unknown>;
    for (const list of FIELD_LISTS) {
      const fields = (structure[list] as PassField[] | undefined) ?? [];
      structure[list] = fields.map((field) => {
        const text = data.fieldValues[field.key];
        const changeMessage = data.changeMessages[field.key];
        // A gift card's balance counts minor units; Apple shows the amount of a numeric value with currencyCode.
        const value = typeof field.currencyCode === 'string' ? Number(text ?? field.value) / 10 ** currencyDigits(field.currencyCode) : text;
        return { ...field, ...(value === undefined ? {} : { value }), ...(changeMessage ? { changeMessage } : {}) };
      });
    }
    if (data.extraBackFields.length) structure.backFields = [...(structure.backFields as PassField[]), ...data.extraBackFields];
  }
  Object.assign(pass, {
    passTypeIdentifier: data.passTypeIdentifier,
    teamIdentifier: data.teamIdentifier,
    organizationName: data.organizationName,
    description: data.description,
    serialNumber: data.serialNumber,
    authenticationToken: data.authenticationToken,
  });
  if (data.webServiceURL) pass.webServiceURL = data.webServiceURL;
  // The skeleton's first barcode names the preferred symbology when the template has one: newer
  // devices show it, older ones the pass's own format, which follows (Apple uses the first it supports).
  const skeletonFormat = ((pass.barcodes as { format?: string }[] | undefined) ?? [])[0]?.format;
  const preferred = Object.values(APPLE_PREFERRED_FORMAT).find((format) => format === skeletonFormat);
  delete pass.barcodes;
  if (data.barcode) {
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the ISO-8859-1 range, control characters included, is what messageEncoding iso-8859-1 can carry
    const latin1 = /^[\u0000-\u00ff]*$/.test(data.barcode.message);
    const formats =
      preferred && preferred !== data.barcode.format && fitsPreferred(preferred, data.barcode.message)
        ? [preferred, data.barcode.format]
        : [data.barcode.format];
    pass.barcodes = formats.map((format) => ({
      format,
      message: data.barcode!.message,
      messageEncoding: latin1 ? 'iso-8859-1' : 'utf-8',
      ...(data.barcode!.altText ? { altText: data.barcode!.altText } : {}),
    }));
  }
  if (data.nfc)
    pass.nfc = {
      message: data.nfc.message,
      encryptionPublicKey: data.nfc.encryptionPublicKey,
      ...(data.nfc.requiresAuthentication ? { requiresAuthentication: true } : {}),
    };
  delete pass.locations;
  delete pass.maxDistance;
  if (data.locations.length) pass.locations = data.locations;
  if (data.maxDistance !== undefined && data.locations.length) pass.maxDistance = data.maxDistance;
  delete pass.beacons;
  if (data.beacons.length) pass.beacons = data.beacons;
  if (data.expirationDate) pass.expirationDate = w3cDate(data.expirationDate);
  if (data.voided) pass.voided = true;
  return pass;
}

/** Whether a message fits a preferred symbology (a pass whose barcode does not shows its fallback only). */
function fitsPreferred(format: string, message: string): boolean {
  const type = (Object.entries(APPLE_PREFERRED_FORMAT) as [PreferredBarcodeType, string][]).find(([, f]) => f === format)?.[0];
  return type !== undefined && fitsSymbology(type, message);
}

/** Options of {@link applePassProblems}. */
export interface ProblemOptions {
  /** Accept an `http:` `webServiceURL` (Apple allows it for development only). */
  allowHttpWebService: boolean;
}

/**
 * Apple's rules a built pass must follow that the signing tools do not check (a pass breaking
 * one is silently refused or misbehaves on the device).
 * @param passJson The rendered `pass.json`.
 * @param fileNames The other files of the bundle.
 * @returns One sentence per rule broken; empty when the pass is fine.
 */
export function applePassProblems(passJson: Record<string, unknown>, fileNames: readonly string[], options: ProblemOptions): string[] {
  const problems: string[] = [];
  for (const key of ['formatVersion', 'passTypeIdentifier', 'serialNumber', 'teamIdentifier', 'organizationName', 'description']) {
    if (passJson[key] === undefined || passJson[key] === '') problems.push(`pass.json needs ${key}.`);
  }
  const styles = STYLE_KEYS.filter((key) => key in passJson);
  if (styles.length !== 1) problems.push(`pass.json needs exactly one style key (${STYLE_KEYS.join(', ')}); it has ${styles.length}.`);
  if (!fileNames.includes('icon.png')) problems.push('The pass needs icon.png; Wallet does not open a pass without an icon.');
  const locations = (passJson.locations as unknown[] | undefined) ?? [];
  if (locations.length > MAX_RELEVANCE_ENTRIES) problems.push(`A pass has at most ${MAX_RELEVANCE_ENTRIES} locations; this one has ${locations.length}.`);
  const beacons = (passJson.beacons as unknown[] | undefined) ?? [];
  if (beacons.length > MAX_RELEVANCE_ENTRIES) problems.push(`A pass has at most ${MAX_RELEVANCE_ENTRIES} beacons; this one has ${beacons.length}.`);
  const nfc = passJson.nfc as { message?: string; encryptionPublicKey?: string } | undefined;
  if (nfc) {
    const bytes = Buffer.byteLength(nfc.message ?? '', 'utf8');
    if (bytes === 0 || bytes > MAX_NFC_MESSAGE_BYTES) problems.push(`The NFC message must be 1 to ${MAX_NFC_MESSAGE_BYTES} bytes; it has ${bytes}.`);
    if (!nfc.encryptionPublicKey) problems.push('An NFC pass needs the encryptionPublicKey of its reader configuration.');
  }
  const token = passJson.authenticationToken;
  if (typeof token === 'string' && token.length < MIN_AUTHENTICATION_TOKEN_LENGTH) {
    problems.push(`authenticationToken must have at least ${MIN_AUTHENTICATION_TOKEN_LENGTH} characters.`);
  }
  const webServiceURL = passJson.webServiceURL;
  if (typeof webServiceURL === 'string') {
    const protocol = URL.canParse(webServiceURL) ? new URL(webServiceURL).protocol : '';
    if (protocol !== 'https:' && !(protocol === 'http:' && options.allowHttpWebService)) {
      problems.push(`webServiceURL must use HTTPS (Wallet refuses http: outside development): ${webServiceURL}.`);
    }
  }
  for (const barcode of (passJson.barcodes as { format?: string }[] | undefined) ?? []) {
    if (!APPLE_BARCODE_FORMATS.includes(barcode.format as AppleBarcodeFormat)) problems.push(`Barcode format ${barcode.format} is not one Wallet knows.`);
  }
  const style = styles[0];
  if (style) {
    const keys = new Set<string>();
    for (const list of FIELD_LISTS) {
      for (const field of (passJson[style] as Record<string, PassField[] | undefined>)[list] ?? []) {
        if (keys.has(field.key)) problems.push(`Field key ${field.key} is used twice; keys must be unique across the pass.`);
        keys.add(field.key);
        if (field.changeMessage !== undefined && !field.changeMessage.includes('%@')) {
          problems.push(`The changeMessage of field ${field.key} must contain %@, where Wallet shows the new value.`);
        }
      }
    }
  }
  return problems;
}
