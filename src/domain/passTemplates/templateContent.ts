/**
 * What a pass template is made of beyond its design, and how create and update inputs become its
 * content: defaults applied, JSON Merge Patch (RFC 7396) on top of the defaults or of the current
 * content, and which members are "design" — the ones whose change needs the template processed
 * again (PassEntry's update pass template answers 202 for those, 200 otherwise).
 *
 * @module domain/passTemplates/templateContent
 */
import { ValidationError } from '../../errors.ts';
import type { components } from '../../../generated/api.d.ts';
import { compatibleTemplateType, type TemplateDesign } from '../../wallet/templateDesign.ts';
import { preferredBarcodeProblem } from '../../wallet/barcodeSymbology.ts';

type Schemas = components['schemas'];
export type PassTemplateCreate = Schemas['PassTemplateCreate'];
export type PassTemplateUpdate = Schemas['PassTemplateUpdate'];

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
  'eventDetails',
  'offerDetails',
  'giftCardDetails',
] as const;

/** The design members a kind has of its own, each taken by one kind only (the contract's TemplateKind). */
export const TYPE_DETAIL_MEMBERS = ['eventDetails', 'offerDetails', 'giftCardDetails'] as const;
const DETAIL_KIND = { eventDetails: 'eventTicket', offerDetails: 'coupon', giftCardDetails: 'giftCard' } as const;

/** A template's whole content: its design and the members applied at once. */
export interface TemplateContent extends TemplateDesign {
  name: string;
  /** The Apple pass type its passes are signed for; null: the account's default. */
  applePassTypeIdentifier: string | null;
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
    applePassTypeIdentifier: withDefaults.applePassTypeIdentifier ?? null,
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
    eventDetails: withDefaults.eventDetails ?? null,
    offerDetails: withDefaults.offerDetails ?? null,
    giftCardDetails: withDefaults.giftCardDetails ?? null,
  };
}

/**
 * Reconciles `templateKind` with `templateType` in a request (the contract's PassTemplateCreate):
 * `templateKind`, when given, decides; `templateType` must then be it or the value responses give
 * for it. Removes `templateKind` from the input.
 * @throws ValidationError (pointer `/passTemplate/templateKind`) when the two disagree.
 */
function reconcileKind(input: Record<string, unknown>): void {
  const kind = input.templateKind as TemplateDesign['templateType'] | undefined;
  delete input.templateKind;
  if (kind === undefined) return;
  const type = input.templateType as string | undefined;
  if (type !== undefined && type !== kind && type !== compatibleTemplateType(kind)) {
    throw new ValidationError({
      detail: `templateKind ${kind} is answered as templateType ${compatibleTemplateType(kind)}; templateType ${type} names another kind.`,
      source: { pointer: '/passTemplate/templateKind' },
    });
  }
  input.templateType = kind;
}

/**
 * The rules of a content that requests break (400), as opposed to processing errors: a kind's own
 * member on another kind, and a preferred barcode symbology that cannot encode the barcode.
 * @throws ValidationError naming the member (`/passTemplate/<member>`).
 */
function assertContentRules(content: TemplateContent): TemplateContent {
  for (const member of TYPE_DETAIL_MEMBERS) {
    if (content[member] && content.templateType !== DETAIL_KIND[member]) {
      throw new ValidationError({
        detail: `${member} applies to ${DETAIL_KIND[member]} templates only; this template is ${content.templateType}.`,
        source: { pointer: `/passTemplate/${member}` },
      });
    }
  }
  const { barcode } = content;
  if (barcode.preferredType) {
    const problem = preferredBarcodeProblem(barcode.preferredType, barcode.source, barcode.source === 'custom' ? (barcode.value ?? '') : null);
    if (problem) throw new ValidationError({ detail: problem.detail, source: { pointer: `/passTemplate/barcode/${problem.member}` } });
  }
  return content;
}

/** Drops members whose value is null (content keeps unset members absent, never null). */
function withoutNulls(content: TemplateContent): Record<string, unknown> {
  return Object.fromEntries(Object.entries(content).filter(([, value]) => value !== null));
}

/**
 * The content of a new template (PassEntry API reference: Create a pass template): the input on top of the defaults.
 * @param input The validated `passTemplate` member of a create request.
 */
export function newTemplateContent(input: PassTemplateCreate): TemplateContent {
  const merged = mergePatch({}, input) as Record<string, unknown>;
  reconcileKind(merged);
  return assertContentRules(toContent(merged));
}

/**
 * The content after an update (PassEntry API reference: Update a pass template): the patch merged into the current content (RFC 7396).
 * @param current The stored content.
 * @param patch The validated `passTemplate` member of an update request.
 * `transitType: null` removes the member (RFC 7396): a transit template gets its default `other`
 * back, any other template has none anyway.
 * @throws ValidationError (pointer `/passTemplate/transitType`) when a `transitType` other than
 *   `null` is given for a template that is not, and does not become, `transit`.
 */
export function updatedTemplateContent(current: TemplateContent, patch: PassTemplateUpdate): TemplateContent {
  const merged = mergePatch(withoutNulls(current), patch) as Record<string, unknown>;
  reconcileKind(merged);
  if (merged.templateType !== 'transit') {
    // `null` is "not set", what GET answers for such a template: accepted, a change of nothing.
    if (patch.transitType !== undefined && patch.transitType !== null) {
      throw new ValidationError({
        detail: `transitType applies to transit templates only; this template is ${String(merged.templateType)}.`,
        source: { pointer: '/passTemplate/transitType' },
      });
    }
    delete merged.transitType;
  }
  // A kind's own members go with the kind: a template that changes kind drops the old one's.
  for (const member of TYPE_DETAIL_MEMBERS) {
    if (merged.templateType !== DETAIL_KIND[member] && (patch as Record<string, unknown>)[member] === undefined) delete merged[member];
  }
  return assertContentRules(toContent(merged));
}
