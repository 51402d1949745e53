/**
 * The design of a pass template as the renderers read it: the members that shape rendered passes
 * (Apple Wallet `pass.json`, Google Wallet classes and objects), their field areas and slots, and
 * the translations of a slot's texts. Independent of storage and HTTP; the types come from the
 * contract (`generated/api.d.ts`), and what PassEntry's create pass template request accepts
 * (https://docs.passentry.com) is described there.
 *
 * @module wallet/templateDesign
 */
import type { components } from '../../generated/api.d.ts';

type Schemas = components['schemas'];
/** The kind of pass (the contract's `TemplateKind`: `TemplateType`'s five values, `coupon`, `giftCard`). */
export type TemplateType = Schemas['TemplateKind'];
/** The five kinds of the contract's `TemplateType`, what responses answer as `templateType`. */
export type CompatibleTemplateType = Schemas['TemplateType'];
export type EventDetails = Schemas['PassTemplateEventDetails'];
export type OfferDetails = Schemas['PassTemplateOfferDetails'];
export type GiftCardDetails = Schemas['PassTemplateGiftCardDetails'];
export type PreferredBarcodeType = Schemas['PreferredBarcodeType'];
export type TransitType = Schemas['TransitType'];
export type TemplateColors = Required<Schemas['PassTemplateColors']>;
export type TemplateImages = Schemas['PassTemplateImages'];
export type TemplateField = Schemas['TemplateField'];
export type TemplateFields = Required<Schemas['PassTemplateFields']>;
export type TemplateAppLinking = { apple: { appStoreUrl: string[] }; google: Schemas['GoogleAppLinking'] };
export type TemplateBarcode = Schemas['PassTemplateBarcode'] & Required<Pick<Schemas['PassTemplateBarcode'], 'enabled' | 'type' | 'source'>>;
export type TemplateLocation = Schemas['PassTemplateLocation'];
export type TemplateBeacon = Schemas['PassTemplateBeacon'];

/** The field areas, in display order, and the slots each has (PassEntry API reference: template fields, as decided in the contract). */
export const FIELD_AREAS = {
  header: ['one', 'two', 'three'],
  central: ['one', 'two'],
  details: ['one', 'two', 'three'],
  back: ['one', 'two', 'three', 'four', 'five'],
} as const;
export type FieldArea = keyof typeof FIELD_AREAS;

/** The design of one version: everything processing reads (stored as the version's snapshot). */
export interface TemplateDesign {
  templateType: TemplateType;
  /** Set exactly when `templateType` is `transit`. */
  transitType: TransitType | null;
  defaultLanguage: Schemas['LanguageCode'];
  centralTitle: string | null;
  colors: TemplateColors;
  images: TemplateImages;
  fields: TemplateFields;
  appLinking: TemplateAppLinking;
  barcode: TemplateBarcode;
  locations: TemplateLocation[];
  beacons: TemplateBeacon[];
  /** The event of an `eventTicket` template (Apple poster event ticket, Google `eventTicketClass` venue and dates); null: none. */
  eventDetails: EventDetails | null;
  /** The offer of a `coupon` template; null: none (Google's redemption channel then `BOTH`). */
  offerDetails: OfferDetails | null;
  /** The currency of a `giftCard` template's balances; null: none (`USD`). */
  giftCardDetails: GiftCardDetails | null;
}

/**
 * What responses answer as `templateType` for a kind (the contract's TemplateKind table): the
 * kind itself for the first five, `generic` for `coupon`, `storeCard` for `giftCard`.
 */
export function compatibleTemplateType(kind: TemplateType): CompatibleTemplateType {
  return kind === 'coupon' ? 'generic' : kind === 'giftCard' ? 'storeCard' : kind;
}

/** The currency of a gift card's balances (ISO 4217), `USD` when the template names none. */
export function giftCardCurrency(design: Pick<TemplateDesign, 'giftCardDetails'>): string {
  return design.giftCardDetails?.currency ?? 'USD';
}

/**
 * Digits after the decimal point of a currency's minor unit (ISO 4217, as `Intl.NumberFormat`
 * knows it: 2 for EUR, 0 for JPY, 3 for KWD): a balance of 1250 in EUR is 12.50.
 */
export function currencyDigits(currency: string): number {
  return new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
}

/** A slot in use, with its JSON Pointer within the template attributes. */
export interface PlacedField {
  area: FieldArea;
  slot: string;
  pointer: string;
  field: TemplateField;
}

/** The slots in use, in display order (areas as in FIELD_AREAS, slots one, two, …). */
export function placedFields(design: TemplateDesign): PlacedField[] {
  return (Object.keys(FIELD_AREAS) as FieldArea[]).flatMap((area) =>
    FIELD_AREAS[area].flatMap((slot) => {
      const field = (design.fields[area] as Record<string, TemplateField | null | undefined>)[slot];
      return field ? [{ area, slot, pointer: `/fields/${area}/${slot}`, field }] : [];
    }),
  );
}

/** A default-language text of a slot and its translation into one language. */
export interface FieldTranslation {
  /** The slot's pointer, e.g. `/fields/header/one`. */
  pointer: string;
  language: string;
  member: 'label' | 'defaultValue';
  /** The default-language text (the slot's `label` or `defaultValue`). */
  text: string;
  translated: string;
}

/**
 * Every translation of the given slots, in slot order, then language (alphabetical), then
 * `label` before `defaultValue`. A translation of a member the slot does not have is skipped.
 */
export function fieldTranslations(fields: PlacedField[]): FieldTranslation[] {
  return fields.flatMap(({ pointer, field }) =>
    Object.entries(field.localisation ?? {})
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .flatMap(([language, translation]) =>
        (['label', 'defaultValue'] as const).flatMap((member) => {
          const text = field[member];
          const translated = translation?.[member];
          return text && translated !== undefined ? [{ pointer, language, member, text, translated }] : [];
        }),
      ),
  );
}

/** The barcode message of a source: the custom value, or the placeholder filled per pass. */
export function barcodeMessage(barcode: TemplateDesign['barcode']): string {
  if (barcode.source === 'custom') return barcode.value ?? '';
  return barcode.source === 'uuid' ? '{passId}' : '{extId}';
}
