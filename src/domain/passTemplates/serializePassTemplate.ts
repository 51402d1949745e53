/**
 * Turns template rows into `passTemplate` resource objects (PassEntry API reference: the pass template resource) in the variant of their
 * processing state, with sparse fieldsets (PassEntry API reference: List pass templates), and builds the documents of accepted
 * (202) writes (PassEntry API reference: Create a pass template; Update a pass template). Nested objects are written in the contract's member order
 * (JSONB keeps its own key order), so a template reads the same every time.
 *
 * @module domain/passTemplates/serializePassTemplate
 */
import type { components } from '../../../generated/api.d.ts';
import { ValidationError } from '../../errors.ts';
import { compatibleTemplateType, FIELD_AREAS, type FieldArea, type TemplateField } from '../../wallet/templateDesign.ts';
import { DESIGN_MEMBERS, type TemplateContent } from './templateContent.ts';
import { contentOf, processingErrorsOf, processingWarningsOf, type PassTemplateRow } from './passTemplateStore.ts';

type Schemas = components['schemas'];
export type PassTemplateResource = Schemas['PassTemplate'];
export type ProcessingPassTemplateResource = Schemas['ProcessingPassTemplate'];
type OptionalAttributes = 'processingWarnings' | 'eventDetails' | 'offerDetails' | 'giftCardDetails';
export type FullAttributes = Required<Omit<Schemas['PassTemplateAttributes'], OptionalAttributes>> &
  Pick<Schemas['PassTemplateAttributes'], Exclude<OptionalAttributes, 'processingWarnings'>>;

/** Attribute names a sparse fieldset may name (PassEntry API reference: the pass template resource, plus `processingErrors`, `processingWarnings` and the extensions `templateKind`, `eventDetails`, `offerDetails`, `giftCardDetails`). */
export const ATTRIBUTE_NAMES = [
  'name',
  'applePassTypeIdentifier',
  'description',
  'notificationHeader',
  'templateKind',
  ...DESIGN_MEMBERS,
  'processingStatus',
  'processingErrors',
  'processingWarnings',
] as const;
export type AttributeName = (typeof ATTRIBUTE_NAMES)[number];

/**
 * Parses the `fields` query parameter: comma-separated attribute names, spaces around names
 * ignored, repeats allowed.
 * @throws ValidationError (parameter `fields`) naming every unknown or empty name.
 */
export function parseFieldset(text: string): Set<AttributeName> {
  const names = text.split(',').map((name) => name.trim());
  const unknown = names.filter((name) => !(ATTRIBUTE_NAMES as readonly string[]).includes(name));
  if (unknown.length) {
    const list = unknown.map((name) => `"${name}"`).join(', ');
    throw new ValidationError({
      detail: `fields names unknown attributes: ${list}. Known attributes: ${ATTRIBUTE_NAMES.join(', ')}.`,
      source: { parameter: 'fields' },
    });
  }
  return new Set(names as AttributeName[]);
}

/** A copy of `value` with only `keys`, in that order, leaving out absent and null members. */
function ordered<T extends object>(value: T, keys: readonly (keyof T)[]): T {
  const out: Partial<T> = {};
  for (const key of keys) if (value[key] !== undefined && value[key] !== null) out[key] = value[key];
  return out as T;
}

function field(slot: TemplateField): TemplateField {
  const out = ordered(slot, ['id', 'label', 'defaultValue', 'changeMessage', 'localisation']);
  if (slot.localisation) {
    out.localisation = Object.fromEntries(
      Object.entries(slot.localisation)
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([language, translation]) => [language, translation && ordered(translation, ['label', 'defaultValue'])]),
    );
  }
  return out;
}

function fields(value: TemplateContent['fields']): TemplateContent['fields'] {
  const areas = Object.entries(FIELD_AREAS).map(([area, slots]) => {
    const current = value[area as FieldArea] as Record<string, TemplateField | null | undefined>;
    return [area, Object.fromEntries(slots.flatMap((slot) => (current[slot] ? [[slot, field(current[slot])]] : [])))];
  });
  return Object.fromEntries(areas) as TemplateContent['fields'];
}

/** The full attributes of a content, every member present (PassEntry API reference: the pass template resource). */
export function fullAttributes(content: TemplateContent): FullAttributes {
  const images = ordered(content.images, ['banner', 'logo', 'icon', 'watermark']);
  if (images.watermark) images.watermark = ordered(images.watermark, ['color', 'position']);
  return {
    name: content.name,
    templateType: compatibleTemplateType(content.templateType),
    templateKind: content.templateType,
    ...(content.eventDetails ? { eventDetails: ordered(content.eventDetails, ['venueName', 'venueAddress', 'startsAt', 'endsAt', 'performerNames']) } : {}),
    ...(content.offerDetails ? { offerDetails: ordered(content.offerDetails, ['redemptionChannel', 'provider', 'validFrom', 'validUntil']) } : {}),
    ...(content.giftCardDetails ? { giftCardDetails: content.giftCardDetails } : {}),
    applePassTypeIdentifier: content.applePassTypeIdentifier,
    transitType: content.transitType,
    defaultLanguage: content.defaultLanguage,
    centralTitle: content.centralTitle,
    notificationHeader: content.notificationHeader,
    description: content.description,
    colors: ordered(content.colors, ['background', 'label', 'text']),
    images,
    fields: fields(content.fields),
    appLinking: {
      apple: { appStoreUrl: content.appLinking.apple.appStoreUrl },
      google: ordered(content.appLinking.google, ['app', 'displayText']),
    },
    barcode: ordered(content.barcode, ['enabled', 'type', 'preferredType', 'source', 'value']),
    locations: content.locations.map((l) => ordered(l, ['name', 'latitude', 'longitude', 'radius', 'message'])),
    beacons: content.beacons.map((b) => ordered(b, ['name', 'proximityUuid', 'major', 'minor', 'message'])),
  };
}

/** The processing variant of a template (PassEntry API reference: the pass template resource). */
export function processingResource(row: PassTemplateRow): ProcessingPassTemplateResource {
  return {
    id: row.id,
    type: 'passTemplate',
    attributes: {
      name: row.name,
      templateType: compatibleTemplateType(row.templateType),
      templateKind: row.templateType,
      transitType: row.transitType,
      processingStatus: 'processing',
    },
  };
}

/**
 * Serialises a template in the variant of its processing state, with `meta.archivedAt` when it is archived.
 * @param fieldset When given, a processed template keeps only these attributes; a processing or
 *   failed template is always whole (its attributes are its variant, see the contract).
 */
export function serializePassTemplate(row: PassTemplateRow, fieldset?: Set<AttributeName>): PassTemplateResource {
  return { ...variantOf(row, fieldset), ...(row.archivedAt ? { meta: { archivedAt: row.archivedAt.toISOString() } } : {}) };
}

/** The resource of {@link serializePassTemplate} without its `meta`. */
function variantOf(row: PassTemplateRow, fieldset: Set<AttributeName> | undefined): PassTemplateResource {
  if (row.processingStatus === 'processing') return processingResource(row);
  if (row.processingStatus === 'failed') {
    const { name, templateType, templateKind, transitType } = processingResource(row).attributes;
    const processingErrors = processingErrorsOf(row);
    return { id: row.id, type: 'passTemplate', attributes: { name, templateType, templateKind, transitType, processingStatus: 'failed', processingErrors } };
  }
  const warnings = processingWarningsOf(row);
  const attributes: Schemas['PassTemplateAttributes'] = { ...fullAttributes(contentOf(row)), ...(warnings.length ? { processingWarnings: warnings } : {}) };
  return {
    id: row.id,
    type: 'passTemplate',
    attributes: fieldset ? Object.fromEntries(Object.entries(attributes).filter(([name]) => fieldset.has(name as AttributeName))) : attributes,
  };
}

/** The absolute URL of a template, where its processing state is checked. */
export function passTemplateUrl(baseUrl: string, id: string): string {
  return `${baseUrl}/api/v1/pass-templates/${id}`;
}

/** `meta` of a template accepted for processing (PassEntry API reference: Create a pass template). */
export function processingMeta(url: string): Schemas['PassTemplateProcessingMeta'] {
  return { message: 'The pass template is being processed. Check meta.links.self for its status.', links: { self: url } };
}
