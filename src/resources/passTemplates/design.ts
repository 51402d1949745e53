/**
 * What a pass template is made of (spec §2.1), independent of storage and HTTP: its content with
 * defaults applied, how create and update inputs become content (JSON Merge Patch, RFC 7396, on
 * top of the defaults or of the current content), and which members are "design" — the ones
 * whose change needs the template processed again (spec §3 rule 2).
 *
 * @module resources/passTemplates/design
 */
import type { components } from '../../../generated/api.d.ts';
import { ValidationError } from '../../http/errors.ts';

type Schemas = components['schemas'];
export type TemplateType = Schemas['TemplateType'];
export type TransitType = Schemas['TransitType'];
export type PassTemplateCreate = Schemas['PassTemplateCreate'];
export type PassTemplateUpdate = Schemas['PassTemplateUpdate'];
export type TemplateColors = Required<Schemas['PassTemplateColors']>;
export type TemplateImages = Schemas['PassTemplateImages'];
export type TemplateField = Schemas['TemplateField'];
export type TemplateFields = Required<Schemas['PassTemplateFields']>;
export type TemplateAppLinking = { apple: { appStoreUrl: string[] }; google: Schemas['GoogleAppLinking'] };
export type TemplateBarcode = Schemas['PassTemplateBarcode'] & Required<Pick<Schemas['PassTemplateBarcode'], 'enabled' | 'type' | 'source'>>;
export type TemplateLocation = Schemas['PassTemplateLocation'];
export type TemplateBeacon = Schemas['PassTemplateBeacon'];

/** The field areas, in display order, and the slots each has (spec §2.1.1, as decided in the contract). */
export const FIELD_AREAS = {
  header: ['one', 'two', 'three'],
  central: ['one', 'two'],
  details: ['one', 'two', 'three'],
  back: ['one', 'two', 'three', 'four', 'five'],
} as const;
export type FieldArea = keyof typeof FIELD_AREAS;

/**
 * The members that shape the rendered passes: changing one needs processing (202). The others
 * (`name`, `description`, `notificationHeader`) are applied at once (200): passes are not built
 * from them at template level.
 */
export const DESIGN_MEMBERS = [
  'templateType',
  'transitType',
  'defaultLanguage',
  'centralTitle',
  'colors',
  'images',
  'fields',
  'appLinking',
  'barcode',
  'locations',
  'beacons',
] as const;

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

/** A template's whole content: its design and the members applied at once. */
export interface TemplateContent extends TemplateDesign {
  name: string;
  description: string | null;
  notificationHeader: string | null;
}

/** The design members of a content. */
export function designOf(content: TemplateContent): TemplateDesign {
  return Object.fromEntries(DESIGN_MEMBERS.map((key) => [key, content[key]])) as unknown as TemplateDesign;
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Equality of JSON values: objects member by member whatever their key order, arrays in order. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((item, i) => jsonEqual(item, b[i]));
  if (!isObject(a) || !isObject(b)) return false;
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((key) => Object.hasOwn(b, key) && jsonEqual(a[key], b[key]));
}

/** Whether two contents differ in a design member. */
export function designChanged(before: TemplateContent, after: TemplateContent): boolean {
  return !jsonEqual(designOf(before), designOf(after));
}

const cloneJson = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

/**
 * JSON Merge Patch (RFC 7396 §2): objects merge member by member at every depth, `null` removes a
 * member, anything else (arrays included) replaces. Neither argument is modified.
 */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return cloneJson(patch);
  const result: JsonObject = isObject(target) ? cloneJson(target) : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else result[key] = mergePatch(result[key], value) as Json;
  }
  return result;
}

/** What a template without the optional members gets (documented in the contract's schemas). */
const DEFAULTS = {
  defaultLanguage: 'en',
  colors: { background: '#FFFFFF', label: '#000000', text: '#000000' },
  images: {},
  fields: { header: {}, central: {}, details: {}, back: {} },
  appLinking: { apple: { appStoreUrl: [] }, google: {} },
  barcode: { enabled: false, type: 'qr', source: 'uuid' },
  locations: [],
  beacons: [],
} as const;

/** A watermark given without one of its members gets these. */
const WATERMARK_DEFAULTS = { color: 'light', position: 'bottomRight' } as const;

/**
 * Turns merged members into content: fills defaults of nested objects that a patch may have left
 * partial, and decides `transitType` from `templateType` (`transit` without one gets `other`,
 * any other type has none; a template that becomes `transit` has none yet, as unset members are
 * absent, so it gets `other` unless the patch gives one).
 */
function toContent(merged: Record<string, unknown>): TemplateContent {
  const withDefaults = mergePatch(DEFAULTS, merged) as Record<string, unknown> & TemplateContent;
  const images = withDefaults.images;
  if (images.watermark) images.watermark = { ...WATERMARK_DEFAULTS, ...images.watermark };
  return {
    name: withDefaults.name,
    description: withDefaults.description ?? null,
    notificationHeader: withDefaults.notificationHeader ?? null,
    templateType: withDefaults.templateType,
    transitType: withDefaults.templateType === 'transit' ? (withDefaults.transitType ?? 'other') : null,
    defaultLanguage: withDefaults.defaultLanguage,
    centralTitle: withDefaults.centralTitle ?? null,
    colors: withDefaults.colors,
    images,
    fields: withDefaults.fields,
    appLinking: withDefaults.appLinking,
    barcode: withDefaults.barcode,
    locations: withDefaults.locations,
    beacons: withDefaults.beacons,
  };
}

/** Drops members whose value is null (content keeps unset members absent, never null). */
function withoutNulls(content: TemplateContent): Record<string, unknown> {
  return Object.fromEntries(Object.entries(content).filter(([, value]) => value !== null));
}

/**
 * The content of a new template (spec §4.1): the input on top of the defaults.
 * @param input The validated `passTemplate` member of a create request.
 */
export function newTemplateContent(input: PassTemplateCreate): TemplateContent {
  return toContent(mergePatch({}, input) as Record<string, unknown>);
}

/**
 * The content after an update (spec §4.4): the patch merged into the current content (RFC 7396).
 * @param current The stored content.
 * @param patch The validated `passTemplate` member of an update request.
 * @throws ValidationError (pointer `/passTemplate/transitType`) when a `transitType` is given for
 *   a template that is not, and does not become, `transit`.
 */
export function updatedTemplateContent(current: TemplateContent, patch: PassTemplateUpdate): TemplateContent {
  const merged = mergePatch(withoutNulls(current), patch) as Record<string, unknown>;
  if (merged.templateType !== 'transit') {
    if (patch.transitType !== undefined) {
      throw new ValidationError({
        detail: `transitType applies to transit templates only; this template is ${String(merged.templateType)}.`,
        source: { pointer: '/passTemplate/transitType' },
      });
    }
    delete merged.transitType;
  }
  return toContent(merged);
}
