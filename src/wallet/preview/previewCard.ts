/**
 * What a preview shows, independent of how a wallet lays it out: the pass style and Google class
 * of the template, its colours and images, its fields by Apple area (localised, with the values of
 * a pass or the template's defaults), the barcode, the loyalty points and the latest message.
 * {@link previewCard} builds it from a template design the way the pass renderers read one
 * (src/wallet/apple/passJson.ts, src/wallet/google/walletClass.ts and walletObject.ts), so that a
 * preview shows what the wallets are sent. Pure.
 *
 * @module wallet/preview/previewCard
 */
import { APPLE_PASS_STYLE } from '../apple/passJson.ts';
import { GOOGLE_CLASS_TYPE, type ImageSize } from '../google/walletClass.ts';
import { barcodeMessage, currencyDigits, giftCardCurrency, placedFields, type PlacedField, type TemplateDesign, type TransitType } from '../templateDesign.ts';

/** The Apple `pass.json` styles (Apple, "Pass", https://developer.apple.com/documentation/walletpasses/pass). */
export type AppleStyle = 'storeCard' | 'eventTicket' | 'generic' | 'coupon' | 'boardingPass';
/** The Google Wallet card kinds the service sends (loyaltyClass, eventTicketClass, transitClass, genericClass, offerClass, giftCardClass). */
export type GoogleCardType = 'loyalty' | 'eventTicket' | 'transit' | 'generic' | 'offer' | 'giftCard';

const GOOGLE_TYPE = {
  genericClass: 'generic',
  eventTicketClass: 'eventTicket',
  loyaltyClass: 'loyalty',
  transitClass: 'transit',
  offerClass: 'offer',
  giftCardClass: 'giftCard',
} as const;

/** A gift card balance (minor units) as an amount, e.g. `€12.50` (the balance field of a gift card). */
function amount(design: TemplateDesign, language: string, minorUnits: string): string {
  const value = Number(minorUnits);
  if (!Number.isFinite(value)) return minorUnits;
  const currency = giftCardCurrency(design);
  return new Intl.NumberFormat(language || design.defaultLanguage, { style: 'currency', currency }).format(value / 10 ** currencyDigits(currency));
}

/** A field as shown: its label and value in the preview's language. */
export interface PreviewField {
  /** The template field id (absent for what is not a template field). */
  id?: string;
  /** JSON Pointer of the template slot (`/fields/header/one`), or of what else it shows (`/latestMessage`). */
  pointer: string;
  label: string;
  value: string;
}

/** Images as `data:` URLs of PNG files, drawn at the sizes of the pass bundle. */
export interface PreviewImages {
  logo?: string;
  /** The drawn logo's size in pixels (its ratio decides Google's circle or wide logo: walletClass.ts `isWideLogo`); absent: unknown, drawn as a circle. */
  logoSize?: ImageSize;
  /** The strip (Apple) and hero image (Google): the template's banner. */
  strip?: string;
  hero?: string;
  icon?: string;
}

/** A barcode as drawn: format, encoded message, and the text under it (Apple `altText`, Google `alternateText`). */
export interface PreviewBarcode {
  format: 'qr' | 'code128' | 'aztec' | 'pdf417';
  message: string;
  altText?: string;
}

/** Everything a preview shows. */
export interface PreviewCard {
  /** The language (BCP 47) its texts are in: the one asked for, or the design's default. */
  language: string;
  appleStyle: AppleStyle;
  /** The boarding pass's transit type (its icon between origin and destination). */
  transitType: TransitType | null;
  googleType: GoogleCardType;
  /** Apple `logoText`, Google program name / event name / card title: the template's `centralTitle`. */
  title: string | null;
  /** The issuer's name, the account's (Google's card title row of event tickets and transit passes); null: not known. */
  issuerName: string | null;
  /** `#RRGGBB`. */
  colors: { background: string; label: string; text: string };
  images: PreviewImages;
  header: PreviewField[];
  primary: PreviewField[];
  secondary: PreviewField[];
  auxiliary: PreviewField[];
  back: PreviewField[];
  barcode: PreviewBarcode | null;
  /** Loyalty points (Google `loyaltyPoints.balance`); null for other cards. */
  points: number | null;
}

/** What a pass adds to its template's design; absent members show the template's defaults. */
export interface PreviewPassData {
  /** Field values by template field id. */
  values?: Record<string, string>;
  /** The pass's barcode; undefined: the template's sample barcode. */
  barcode?: PreviewBarcode | null;
  points?: number;
  /** The latest message, with its label (the template's `notificationHeader`, else "Message"), shown last on the back. */
  latestMessage?: { label: string; value: string } | null;
  issuerName?: string;
}

/** The loyalty field id whose value is the balance (PassEntry: the `points` field). */
export const POINTS_FIELD_ID = 'points';

/**
 * The languages a design is localised into: its default language first, then every language of a
 * slot's `localisation`, alphabetically.
 */
export function designLanguages(design: TemplateDesign): string[] {
  const others = new Set<string>();
  for (const { field } of placedFields(design)) for (const language of Object.keys(field.localisation ?? {})) others.add(language);
  others.delete(design.defaultLanguage);
  return [design.defaultLanguage, ...[...others].sort()];
}

function shown(placed: PlacedField, language: string, values: Record<string, string>): PreviewField {
  const { field, pointer } = placed;
  const translation = language === '' ? undefined : field.localisation?.[language];
  // A pass value equal to the default value is a key of the pass's `pass.strings`, which Wallet
  // shows translated (Apple, Wallet Developer Guide, "Localizing Passes",
  // https://developer.apple.com/library/archive/documentation/UserExperience/Conceptual/PassKit_PG/Creating.html).
  const own = field.id === undefined ? undefined : values[field.id];
  const value = own !== undefined && own !== field.defaultValue ? own : (translation?.defaultValue ?? field.defaultValue ?? '');
  return { ...(field.id === undefined ? {} : { id: field.id }), pointer, label: translation?.label ?? field.label ?? '', value };
}

/** The sample barcode of a template: its message with a sample pass's id in place of the placeholders (templates have no caption). */
function sampleBarcode(design: TemplateDesign): PreviewBarcode | null {
  if (!design.barcode.enabled) return null;
  const message = barcodeMessage(design.barcode).replace('{passId}', '0194f3a2-7c1e-7a51-9d7e-0b6a2f1c9e10').replace('{extId}', 'EXT-0001');
  return { format: design.barcode.type, message };
}

/**
 * The preview of a design, for a template (defaults, sample barcode) or a pass (`pass` given).
 * @param language A language of {@link designLanguages}; texts without a translation into it
 *   keep the default language's.
 * @param images The design's images, already drawn (see src/wallet/templateImages.ts).
 */
export function previewCard(design: TemplateDesign, language: string, images: PreviewImages, pass: PreviewPassData = {}): PreviewCard {
  const translated = language === design.defaultLanguage ? '' : language;
  const values = { ...(pass.values ?? {}) };
  const googleType = GOOGLE_TYPE[GOOGLE_CLASS_TYPE[design.templateType]];
  if (pass.points !== undefined && values[POINTS_FIELD_ID] !== undefined) values[POINTS_FIELD_ID] = String(pass.points);
  const fields = placedFields(design);
  if (design.templateType === 'giftCard') {
    const balance = values[POINTS_FIELD_ID] ?? fields.find((f) => f.field.id === POINTS_FIELD_ID)?.field.defaultValue ?? undefined;
    if (balance !== undefined) values[POINTS_FIELD_ID] = amount(design, language, balance);
  }
  const inArea = (area: PlacedField['area']) => fields.filter((f) => f.area === area).map((f) => shown(f, translated, values));
  const back = inArea('back');
  if (pass.latestMessage) back.push({ pointer: '/latestMessage', ...pass.latestMessage });
  const defaultPoints = Number(fields.find((f) => f.field.id === POINTS_FIELD_ID)?.field.defaultValue ?? 0);
  return {
    language: language || design.defaultLanguage,
    appleStyle: APPLE_PASS_STYLE[design.templateType],
    transitType: design.transitType,
    googleType,
    title: design.centralTitle,
    issuerName: pass.issuerName ?? null,
    colors: design.colors,
    images,
    header: inArea('header'),
    primary: inArea('central'),
    secondary: inArea('details'),
    auxiliary: [],
    back,
    barcode: pass.barcode === undefined ? sampleBarcode(design) : pass.barcode,
    points: googleType === 'loyalty' ? (pass.points ?? (Number.isFinite(defaultPoints) ? defaultPoints : 0)) : null,
  };
}
