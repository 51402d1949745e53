/**
 * The Google Wallet class of a template (Google Wallet API v1 reference: `genericClass`,
 * `eventTicketClass`, `loyaltyClass`, `transitClass`, `offerClass`, `giftCardClass`, `LocalizedString`, `TextModuleData`,
 * `AppLinkData`, `Image`, `LatLongPoint`), in two steps:
 *
 * - {@link renderGoogleWalletClass}: a template design → the class and the members its pass
 *   objects take from the template. The issuer is not known at template level: the class `id` is
 *   `{issuerId}.<template id>` and `issuerName` is `{issuerName}`; barcode values that depend on
 *   the pass are `{passId}` and `{extId}`.
 * - {@link issuerClass}: the class as it is written for an issuer — the placeholders replaced by
 *   the issuer's id and name, images as public URLs (Google fetches them: "Image.sourceUri",
 *   https://developers.google.com/wallet/reference/rest/v1/Image), Smart Tap (`enableSmartTap`,
 *   `redemptionIssuers`, https://developers.google.com/wallet/smart-tap) when the account's
 *   readers have a collector id, and `callbackOptions.url` when save and delete callbacks are on
 *   (https://developers.google.com/wallet/generic/use-cases/use-callbacks-for-saves-and-deletions;
 *   https://developers.google.com/wallet/reference/rest/v1/CallbackOptions). Pure.
 *
 * Where each thing lives (Google, "Pass customization",
 * https://developers.google.com/wallet/retail/loyalty-cards/use-cases/pass-customization, and the
 * loyalty template reference, https://developers.google.com/wallet/retail/loyalty-cards/resources/template):
 * the layout is the class's `classTemplateInfo` — `cardTemplateOverride.cardRowTemplateInfos`
 * (header, central and details fields, up to 3 rows of up to 3 items) and
 * `detailsTemplateOverride` (the back fields) — whose items name a field with
 * `FieldReference.fieldPath`: the holder's value `object.textModulesData['<id>']` first, the
 * template's shared text `class.textModulesData['<id>']` when the object has none (a field
 * selector shows the first reference that has a value). Colours, logo, images, links and shared
 * texts are class members; objects carry the holder's values only. Google shows an item's label
 * from the `header` of the text module the reference finds, so objects keep the field's label as
 * their modules' `header`: a change of colours, images, links, layout or shared texts is one class
 * PATCH, while a change of labels also changes every object (sent by the
 * `google-object-rewrite` job through Google's batch endpoint). Bodies type-check against the
 * API's own types (`@googleapis/walletobjects`, `walletobjects_v1.Schema$…`).
 *
 * @module wallet/google/walletClass
 */
import type { walletobjects_v1 } from '@googleapis/walletobjects';
import {
  barcodeMessage,
  fieldTranslations,
  giftCardCurrency,
  placedFields,
  type PlacedField,
  type PreferredBarcodeType,
  type TemplateDesign,
  type TemplateType,
  type TransitType,
} from '../templateDesign.ts';

/** The Google Wallet class type per template type (the contract's TemplateType table). */
export const GOOGLE_CLASS_TYPE = {
  generic: 'genericClass',
  eventTicket: 'eventTicketClass',
  storeCard: 'genericClass',
  loyalty: 'loyaltyClass',
  transit: 'transitClass',
  coupon: 'offerClass',
  giftCard: 'giftCardClass',
} as const satisfies Record<TemplateType, string>;

export type GoogleClassType = (typeof GOOGLE_CLASS_TYPE)[TemplateType];

/** What processing stores for Google Wallet. */
export interface GoogleWalletArtefact {
  classType: GoogleClassType;
  /** The class resource, ready to insert once the issuer placeholders are replaced. */
  class: Record<string, unknown>;
  /**
   * Members every pass object of the class gets from the template: the barcode, and for
   * `genericClass` the visual members Google keeps on generic objects (`cardTitle`, `header`,
   * `logo`, `heroImage`, `hexBackgroundColor`).
   */
  objectTemplate: Record<string, unknown>;
  /** Google's barcode type shown in place of the pass's when its value fits (`barcode.preferredType`); absent: none. */
  preferredBarcodeType?: PreferredBarcodeType;
  /** The currency of a gift card's balances (ISO 4217); absent for other classes. */
  balanceCurrency?: string;
}

/** A Google `LocalizedString`. */
export interface LocalizedString {
  defaultValue: { language: string; value: string };
  translatedValues?: { language: string; value: string }[];
}

const TRANSIT_TYPE: Record<TransitType, string> = { airplane: 'OTHER', bus: 'BUS', train: 'RAIL', ferry: 'FERRY', other: 'OTHER' };

const BARCODE_TYPE = { qr: 'QR_CODE', code128: 'CODE_128', aztec: 'AZTEC', pdf417: 'PDF_417' } as const;

/** `offerClass.redemptionChannel` per `offerDetails.redemptionChannel` (https://developers.google.com/wallet/reference/rest/v1/offerclass#redemptionchannel). */
const REDEMPTION_CHANNEL = { inStore: 'INSTORE', online: 'ONLINE', both: 'BOTH', temporaryPriceReduction: 'TEMPORARY_PRICE_REDUCTION' } as const;

/** A picture's size in pixels (or points: only the ratio counts). */
export interface ImageSize {
  width: number;
  height: number;
}

/**
 * A logo at least this many times as wide as high is a wide logo (5:4). Google Wallet masks the
 * logo of a card into a circle and asks for a square one (1:1, at least 660 × 660 px; brand
 * guidelines, "Logo image guidelines",
 * https://developers.google.com/wallet/generic/resources/brand-guidelines), so a logo of 5:4 or
 * wider loses at least a fifth of its width to the circle; for such logos Google has a wide logo
 * member, shown without the circle "in place of the logo in the top left of the card view"
 * (REST reference: `genericObject.wideLogo`, `loyaltyClass.wideProgramLogo`,
 * `giftCardClass.wideProgramLogo`, `eventTicketClass.wideLogo`, `transitClass.wideLogo`;
 * recommended 1280 × 400 px, 3.2:1, the same ratio as Apple's 160 × 50 point logo box).
 */
export const WIDE_LOGO_MIN_ASPECT = 1.25;

/** Whether a logo of this size is sent as Google's wide logo ({@link WIDE_LOGO_MIN_ASPECT}); false when the size is unknown. */
export function isWideLogo(size: ImageSize | null | undefined): boolean {
  return !!size && size.height > 0 && size.width / size.height >= WIDE_LOGO_MIN_ASPECT;
}

/** The processed logo file whose size decides between Google's circle and wide logo ({@link isWideLogo}): drawn at the logo's own ratio. */
export const LOGO_FILE = 'logo@3x.png';

/** The size of a version's processed logo among its image files (`{name, width, height}`, e.g. pass_template_images rows); null when it has none. */
export function logoSizeOf(images: readonly { name: string; width: number; height: number }[]): ImageSize | null {
  const logo = images.find((i) => i.name === LOGO_FILE);
  return logo ? { width: logo.width, height: logo.height } : null;
}

/**
 * The circle-logo member and wide-logo member of each Google class type, where the logo lives
 * (generic: on the object; the others: on the class). `offerClass` has no wide member: its logo
 * (`titleImage`) is always sent as it is.
 */
export const LOGO_MEMBERS = {
  genericClass: { circle: 'logo', wide: 'wideLogo' },
  loyaltyClass: { circle: 'programLogo', wide: 'wideProgramLogo' },
  giftCardClass: { circle: 'programLogo', wide: 'wideProgramLogo' },
  eventTicketClass: { circle: 'logo', wide: 'wideLogo' },
  transitClass: { circle: 'logo', wide: 'wideLogo' },
  offerClass: { circle: 'titleImage', wide: null },
} as const satisfies Record<GoogleClassType, { circle: string; wide: string | null }>;

/**
 * Where a design's logo goes on Google (the members of {@link LOGO_MEMBERS} of its class type):
 * a square logo (or one of unknown size) as the circle logo; a wide logo
 * ({@link isWideLogo}) as the wide logo, with the template's icon — square by Apple's rules —
 * as the circle logo that list views and notifications still show (the logo itself when the
 * template has no icon: `programLogo` is required of loyalty classes). Images are the design's
 * references here; {@link withIssuer} makes them public URLs.
 */
function logoMembers(
  design: TemplateDesign,
  classType: GoogleClassType,
  logoSize: ImageSize | null | undefined,
): Record<string, walletobjects_v1.Schema$Image> {
  const { logo, icon } = design.images;
  if (!logo) return {};
  const { circle, wide } = LOGO_MEMBERS[classType];
  if (!wide || !isWideLogo(logoSize)) return { [circle]: image(logo) };
  return { [circle]: image(icon ?? logo), [wide]: image(logo) };
}

/**
 * The members of an `offerClass` (https://developers.google.com/wallet/reference/rest/v1/offerclass):
 * `title` (the template's `centralTitle`), `provider` (the offer's, else the issuer's name) and
 * `redemptionChannel` (required by Google; `BOTH` when the template names none). The logo
 * (`titleImage`) is added by {@link logoMembers}.
 */
function offerMembers(design: TemplateDesign, title: LocalizedString | undefined): walletobjects_v1.Schema$OfferClass {
  const offer = design.offerDetails;
  return {
    title: design.centralTitle ?? '',
    ...(title ? { localizedTitle: title } : {}),
    provider: offer?.provider ?? '{issuerName}',
    redemptionChannel: REDEMPTION_CHANNEL[offer?.redemptionChannel ?? 'both'],
  };
}

/**
 * The members of a `giftCardClass` (https://developers.google.com/wallet/reference/rest/v1/giftcardclass):
 * `merchantName` (the template's `centralTitle`, else the issuer's name); the logo
 * (`programLogo`, `wideProgramLogo`) is added by {@link logoMembers}. The balance is the object's (`Money`).
 */
function giftCardMembers(design: TemplateDesign, title: LocalizedString | undefined): walletobjects_v1.Schema$GiftCardClass {
  return {
    merchantName: design.centralTitle ?? '{issuerName}',
    ...(title ? { localizedMerchantName: title } : {}),
  };
}

/**
 * The members of an `eventTicketClass` (https://developers.google.com/wallet/reference/rest/v1/eventticketclass):
 * `eventName` and with `eventDetails` the `venue` (name and address, both required by
 * Google once a venue is given: the address falls back to the name) and `dateTime` (start, end).
 */
function eventTicketMembers(design: TemplateDesign, title: LocalizedString | undefined): walletobjects_v1.Schema$EventTicketClass {
  const event = design.eventDetails;
  const text = (value: string) => localizedString(design.defaultLanguage, value);
  return {
    ...(title ? { eventName: title } : {}),
    ...(event
      ? {
          venue: { name: text(event.venueName), address: text(event.venueAddress ?? event.venueName) },
          dateTime: { start: event.startsAt, ...(event.endsAt ? { end: event.endsAt } : {}) },
        }
      : {}),
  };
}

/** Builds a `LocalizedString` from a default-language text and its translations (language → text). */
export function localizedString(language: string, value: string, translations: Record<string, string> = {}): LocalizedString {
  const translatedValues = Object.entries(translations).map(([lang, text]) => ({ language: lang, value: text }));
  return { defaultValue: { language, value }, ...(translatedValues.length ? { translatedValues } : {}) };
}

const image = (uri: string): walletobjects_v1.Schema$Image => ({ sourceUri: { uri } });

function textModule(placed: PlacedField, design: TemplateDesign): walletobjects_v1.Schema$TextModuleData {
  const { field } = placed;
  const translations = fieldTranslations([placed]);
  const localized = (member: 'label' | 'defaultValue', text: string) =>
    localizedString(design.defaultLanguage, text, Object.fromEntries(translations.filter((t) => t.member === member).map((t) => [t.language, t.translated])));
  return {
    id: field.id,
    ...(field.label ? { header: field.label, localizedHeader: localized('label', field.label) } : {}),
    ...(field.defaultValue ? { body: field.defaultValue, localizedBody: localized('defaultValue', field.defaultValue) } : {}),
  };
}

function appLinkData(design: TemplateDesign): walletobjects_v1.Schema$AppLinkData | undefined {
  const { app, displayText } = design.appLinking.google;
  if (!app) return undefined;
  const packageName = new URL(app.playStoreUrl).searchParams.get('id');
  return {
    androidAppLinkInfo: { appTarget: { packageName } },
    ...(displayText ? { displayText: localizedString(design.defaultLanguage, displayText.text) } : {}),
  };
}

/** The field selector of a template field: the holder's value, else the class's shared text. */
function fieldSelector(id: string): walletobjects_v1.Schema$TemplateItem {
  return { firstValue: { fields: [{ fieldPath: `object.textModulesData['${id}']` }, { fieldPath: `class.textModulesData['${id}']` }] } };
}

/** A card row of up to 3 fields (`oneItem`, `twoItems`, `threeItems`). */
function cardRow(ids: string[]): walletobjects_v1.Schema$CardRowTemplateInfo {
  const [a, b, c] = ids.map(fieldSelector);
  if (c) return { threeItems: { startItem: a, middleItem: b, endItem: c } };
  if (b) return { twoItems: { startItem: a, endItem: b } };
  return { oneItem: { item: a } };
}

/**
 * The layout of a design's fields for Google (`ClassTemplateInfo`,
 * https://developers.google.com/wallet/reference/rest/v1/ClassTemplateInfo): a card row for each
 * front area in use (header, central — less the generic header's field, shown as the object's
 * `header` — and details; at most 3 fields each, as Google's rows hold), and the back fields as
 * the details section's items. Undefined for a design without fields.
 */
export function classTemplateInfo(design: TemplateDesign): walletobjects_v1.Schema$ClassTemplateInfo | undefined {
  const fields = placedFields(design);
  const genericHeader = GOOGLE_CLASS_TYPE[design.templateType] === 'genericClass' ? fields.find((f) => f.area === 'central') : undefined;
  const front = (['header', 'central', 'details'] as const)
    .map((area) => fields.flatMap((f) => (f.area === area && f !== genericHeader && f.field.id ? [f.field.id] : [])).slice(0, 3))
    .filter((ids) => ids.length);
  const back = fields.flatMap((f) => (f.area === 'back' && f.field.id ? [f.field.id] : []));
  if (!front.length && !back.length) return undefined;
  return {
    ...(front.length ? { cardTemplateOverride: { cardRowTemplateInfos: front.map(cardRow) } } : {}),
    ...(back.length ? { detailsTemplateOverride: { detailsItemInfos: back.map((id) => ({ item: fieldSelector(id) })) } } : {}),
  };
}

/**
 * Renders the Google Wallet artefact of a design. Pure: the same template id, design and logo
 * size give the same artefact. Assumes the design passed `designProblems`.
 * @param templateId The template UUID (the class id suffix).
 * @param logoSize The size of the processed logo (`logo@3x.png`, drawn at the logo's own ratio),
 *   which decides between Google's circle and wide logo ({@link isWideLogo}); absent: circle.
 */
export function renderGoogleWalletClass(templateId: string, design: TemplateDesign, logoSize?: ImageSize | null): GoogleWalletArtefact {
  const classType = GOOGLE_CLASS_TYPE[design.templateType];
  const generic = classType === 'genericClass';
  const fields = placedFields(design);
  const title = design.centralTitle ? localizedString(design.defaultLanguage, design.centralTitle) : undefined;
  const background = design.colors.background.toLowerCase();
  const { banner } = design.images;
  const logos = logoMembers(design, classType, logoSize);

  const cls: Record<string, unknown> = { id: `{issuerId}.${templateId}` };
  const objectTemplate: Record<string, unknown> = {};
  const artefactExtras: Pick<GoogleWalletArtefact, 'preferredBarcodeType' | 'balanceCurrency'> = {};
  if (generic) {
    if (title) objectTemplate.cardTitle = title;
    const central = fields.find((f) => f.area === 'central');
    if (central?.field.defaultValue) objectTemplate.header = localizedString(design.defaultLanguage, central.field.defaultValue);
    Object.assign(objectTemplate, logos);
    if (banner) objectTemplate.heroImage = image(banner);
    objectTemplate.hexBackgroundColor = background;
  } else {
    cls.issuerName = '{issuerName}';
    cls.reviewStatus = 'UNDER_REVIEW';
    cls.hexBackgroundColor = background;
    if (classType === 'loyaltyClass') {
      cls.programName = design.centralTitle;
      cls.localizedProgramName = title;
    } else if (classType === 'offerClass') {
      Object.assign(cls, offerMembers(design, title));
    } else if (classType === 'giftCardClass') {
      Object.assign(cls, giftCardMembers(design, title));
      artefactExtras.balanceCurrency = giftCardCurrency(design);
    } else if (classType === 'eventTicketClass') {
      Object.assign(cls, eventTicketMembers(design, title));
    } else {
      if (design.transitType) cls.transitType = TRANSIT_TYPE[design.transitType];
    }
    Object.assign(cls, logos);
    // A class written with a wide logo keeps it through a PATCH that does not name it: null clears
    // it (as `callbackOptions: null` does) once the logo is square or gone.
    const { wide } = LOGO_MEMBERS[classType];
    if (wide && !(wide in logos)) cls[wide] = null;
    if (banner) cls.heroImage = image(banner);
    if (design.locations.length) cls.locations = design.locations.map((l) => ({ latitude: l.latitude, longitude: l.longitude }));
  }
  if (fields.length) cls.textModulesData = fields.map((f) => textModule(f, design));
  const layout = classTemplateInfo(design);
  if (layout) cls.classTemplateInfo = layout;
  const links = appLinkData(design);
  if (links) cls.appLinkData = links;
  if (design.barcode.enabled) {
    objectTemplate.barcode = { type: BARCODE_TYPE[design.barcode.type], value: barcodeMessage(design.barcode) };
    if (design.barcode.preferredType) artefactExtras.preferredBarcodeType = design.barcode.preferredType;
  }
  // An offer's validity is every object's (offerobject `validTimeInterval`); a pass's own expiry replaces its end.
  const offer = classType === 'offerClass' ? design.offerDetails : null;
  if (offer?.validFrom || offer?.validUntil) {
    objectTemplate.validTimeInterval = {
      ...(offer.validFrom ? { start: { date: offer.validFrom } } : {}),
      ...(offer.validUntil ? { end: { date: offer.validUntil } } : {}),
    } satisfies walletobjects_v1.Schema$TimeInterval;
  }
  return { classType, class: cls, objectTemplate, ...artefactExtras };
}

/** A Google resource id: `<issuerId>.<suffix>`, the suffix limited to alphanumerics, `.`, `_` and `-` (Google, "genericobject.get"). */
export function googleResourceId(issuerId: string, suffix: string): string {
  return `${issuerId}.${suffix.replace(/[^\w.-]/g, '_')}`;
}

/** What the issuer adds to a class. */
export interface ClassIssuerData {
  issuerId: string;
  /** `issuerName` of non-generic classes (the account's name). */
  issuerName: string;
  /** The template id (class id suffix). */
  templateId: string;
  /** The public URL of a template image (`logo`, `banner`, `icon`), or null when it has none to show. */
  imageUrl: (member: TemplateImageMember) => string | null;
  /** Whether the issuer's readers redeem passes by Smart Tap. */
  smartTap: boolean;
  /** Where Google calls back on saves and deletions of the class's objects; null: no callbacks. */
  callbackUrl: string | null;
  /**
   * Without `callbackUrl`, send `callbackOptions: null` to clear a callback the class was written
   * with before (a patch leaves members it does not name as they are).
   */
  clearCallback?: boolean;
}

/** A class or object ready to write: its resource (`loyaltyClass`), id and body. */
export interface GoogleResource {
  resource: string;
  id: string;
  body: Record<string, unknown>;
}

/** A template image Google shows. */
export type TemplateImageMember = 'logo' | 'banner' | 'icon';

/** The template images a Google image member shows, first choice first. */
const IMAGE_MEMBERS: Record<string, TemplateImageMember[]> = {
  programLogo: ['logo'],
  logo: ['logo'],
  titleImage: ['logo'],
  wideProgramLogo: ['logo'],
  wideLogo: ['logo'],
  heroImage: ['banner'],
};
/** Beside a wide logo, the circle logo shows the icon (else the logo: see `logoMembers`). */
const CIRCLE_BESIDE_WIDE: TemplateImageMember[] = ['icon', 'logo'];

/**
 * Replaces the placeholders of a rendered member and its image URLs (dropping images that have
 * none; a member that is null, which clears it at Google, stays null). Beside a wide logo (`wideLogo`, `wideProgramLogo`), the circle logo is the template's
 * icon, or its logo when the icon has no public URL.
 */
export function withIssuer<T extends Record<string, unknown>>(rendered: T, data: Pick<ClassIssuerData, 'issuerId' | 'issuerName' | 'imageUrl'>): T {
  const text = JSON.stringify(rendered).replaceAll('{issuerId}', data.issuerId).replaceAll('{issuerName}', JSON.stringify(data.issuerName).slice(1, -1));
  const out = JSON.parse(text) as Record<string, unknown>;
  const wide = (out.wideLogo ?? out.wideProgramLogo ?? null) !== null;
  for (const [member, images] of Object.entries(IMAGE_MEMBERS)) {
    if (!(member in out) || out[member] === null) continue;
    const circle = wide && (member === 'logo' || member === 'programLogo');
    const url = (circle ? CIRCLE_BESIDE_WIDE : images).map((image) => data.imageUrl(image)).find((u) => u !== null) ?? null;
    if (url) out[member] = { sourceUri: { uri: url } };
    else delete out[member];
  }
  return out as T;
}

/** The class of a template version for an issuer. */
export function issuerClass(artefact: GoogleWalletArtefact, data: ClassIssuerData): GoogleResource {
  const id = googleResourceId(data.issuerId, data.templateId);
  const body: Record<string, unknown> = withIssuer({ ...artefact.class, id }, data);
  if (data.smartTap) Object.assign(body, { enableSmartTap: true, redemptionIssuers: [data.issuerId] });
  if (data.callbackUrl) body.callbackOptions = { url: data.callbackUrl };
  else if (data.clearCallback) body.callbackOptions = null;
  return { resource: artefact.classType, id, body };
}
