/**
 * The rules of a pass's content, independent of storage and HTTP (the contract's `PassInput`,
 * `PassNfcSettings`, `PassBarcodeSettings`, `PassStatus` and `PassAction` describe them to
 * clients; PassEntry's pass create/update bodies are the source of the shapes):
 *
 * - field values keyed by the template's field ids, in either value form;
 * - the loyalty field (`points`), whose value is the loyalty balance;
 * - NFC and barcode settings, merged and checked for consistency;
 * - group tags;
 * - the status transitions of `passAction` and nullify.
 *
 * @module domain/passes/passRules
 */
import type { components } from '../../../generated/api.d.ts';
import { ConflictError, ValidationError, type Problem } from '../../errors.ts';
import { placedFields, type TemplateDesign } from '../../wallet/templateDesign.ts';

type Schemas = components['schemas'];
export type PassInput = Schemas['PassInput'];
export type PassStatus = Schemas['PassStatus'];
export type PassAction = Schemas['PassAction'];
export type PassIdentifierSource = Schemas['PassIdentifierSource'];

/**
 * The id of the loyalty field: the template field with this id, if any, shows the pass's loyalty
 * balance as text (decided in the contract's `PassInput`; `points` is the loyalty field of the
 * passes PassEntry API reference: the pass resource shows).
 */
export const LOYALTY_FIELD_ID = 'points';

/** The range of a loyalty balance (the contract's `LoyaltyBalance`), in points. */
export const LOYALTY_BALANCE_LIMIT = 1_000_000_000;

/** Keys of `pass` that are not field ids. */
const RESERVED_KEYS = new Set(['nfc', 'barcode', 'qr']);

/** A pass's barcode settings as stored: the template's barcode merged with the pass's own. */
export interface BarcodeSettings {
  enabled: boolean;
  type: Schemas['BarcodeType'];
  source: PassIdentifierSource;
  /** Present exactly when `source` is `custom`. */
  value?: string;
  /** `true`: the encoded value is shown under the barcode; a string: that text (contract `BarcodeDisplayText`). */
  displayText?: string | boolean;
}

/** A pass's NFC settings as stored (null when the pass has no NFC). */
export interface NfcSettings {
  enabled: true;
  source: PassIdentifierSource;
  /** Present exactly when `source` is `custom`. */
  customValue?: string;
}

/** The template field slots a pass can fill: their ids in display order and default values. */
export interface TemplateFieldSet {
  ids: Set<string>;
  /** Field id → the slot's `defaultValue` (`""` when it has none). */
  defaults: Record<string, string>;
}

/** The field slots of a template design (PassEntry API reference: template fields). */
export function templateFieldSet(design: Pick<TemplateDesign, 'fields'>): TemplateFieldSet {
  const defaults: Record<string, string> = {};
  for (const { field } of placedFields(design as TemplateDesign)) if (field.id) defaults[field.id] = field.defaultValue ?? '';
  return { ids: new Set(Object.keys(defaults)), defaults };
}

/**
 * The text of a field value in either `PassFieldValue` form (`"x"`, `{ "value": "x" }`), or
 * undefined for any other shape. The contract's `PassInputFields` admits the reserved members'
 * shapes for every key too (so that generated clients can type the map), hence this check; lengths
 * are checked by the contract, none of whose shapes admits a string over 500 characters there.
 */
function fieldText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const members = Object.keys(value);
  const text = (value as { value?: unknown }).value;
  return members.length === 1 && typeof text === 'string' ? text : undefined;
}

/**
 * The field values of a `pass` member as text: both value forms (`"x"`, `{ "value": "x" }`)
 * give the same text; `nfc`, `barcode` and `qr` are left out.
 * @throws ValidationError with one problem per key that is not a field id of the template or
 *   whose value is not a `PassFieldValue` (e.g. `true`, `{ "enabled": true }`), each pointing at
 *   `/pass/<key>`.
 */
export function fieldValues(input: PassInput, fields: TemplateFieldSet): Record<string, string> {
  const values: Record<string, string> = {};
  const problems: Problem[] = [];
  for (const [key, value] of Object.entries(input)) {
    if (RESERVED_KEYS.has(key) || value === undefined) continue;
    if (!fields.ids.has(key)) {
      const known = [...fields.ids].join(', ') || 'none';
      problems.push({ detail: `${key} is not a field of the pass template (its fields: ${known}).`, source: { pointer: `/pass/${key}` } });
      continue;
    }
    const text = fieldText(value);
    if (text === undefined) {
      problems.push({
        detail: `${key} is a field of the pass template: its value is a string or an object with value only.`,
        source: { pointer: `/pass/${key}` },
      });
      continue;
    }
    values[key] = text;
  }
  if (problems.length) throw new ValidationError(problems);
  return values;
}

/**
 * Reads the loyalty field's text as a balance.
 * @param pointer Where the text came from, for the error.
 * @throws ValidationError when it is not a decimal integer within ±{@link LOYALTY_BALANCE_LIMIT}.
 */
export function loyaltyBalanceOf(text: string, pointer: string): number {
  const value = /^-?\d{1,10}$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isInteger(value) || Math.abs(value) > LOYALTY_BALANCE_LIMIT) {
    throw new ValidationError({
      detail: `${LOYALTY_FIELD_ID} is the loyalty field and shows the balance: it takes an integer from -${LOYALTY_BALANCE_LIMIT} to ${LOYALTY_BALANCE_LIMIT}, got "${text}".`,
      source: { pointer },
    });
  }
  return value;
}

/**
 * The starting balance of a new pass: the loyalty field's value when given, else the template
 * default when it is an integer, else 0 (contract `PassInput`).
 * @throws ValidationError (pointer `/pass/points`) when a given value is not an integer in range.
 */
export function startingBalance(given: Record<string, string>, fields: TemplateFieldSet): number {
  if (!fields.ids.has(LOYALTY_FIELD_ID)) return 0;
  const text = given[LOYALTY_FIELD_ID];
  if (text !== undefined) return loyaltyBalanceOf(text, `/pass/${LOYALTY_FIELD_ID}`);
  try {
    return loyaltyBalanceOf(fields.defaults[LOYALTY_FIELD_ID] ?? '', '');
  } catch {
    return 0;
  }
}

/**
 * The barcode members a `pass` member gives, in either PassEntry form: `barcode`, or the older
 * `qr: { value, displayText }`, which means a QR code with that custom value (contract
 * `PassQrInput`; PassEntry's e-commerce plugin still sends it).
 * @returns undefined when neither is given.
 * @throws ValidationError (pointer `/pass/qr`) when both are given.
 */
export function barcodeInput(input: PassInput): Schemas['PassBarcodeSettings'] | undefined {
  if (input.qr === undefined) return input.barcode;
  if (input.barcode !== undefined) {
    throw new ValidationError({ detail: 'qr is the older form of barcode: give one of them, not both.', source: { pointer: '/pass/qr' } });
  }
  const { value, displayText } = input.qr;
  return { enabled: true, type: 'qr', source: 'custom', value, ...(displayText === undefined ? {} : { displayText }) };
}

/**
 * The text shown under a barcode (contract `PassBarcode.displayText`): the encoded value for
 * `displayText: true`, the custom text for a string, none otherwise.
 */
export function barcodeCaption(barcode: Pick<BarcodeSettings, 'displayText'>, encoded: string): string | undefined {
  if (barcode.displayText === true) return encoded;
  return typeof barcode.displayText === 'string' ? barcode.displayText : undefined;
}

/**
 * Merges barcode members given for a pass into a base barcode (the template's on create, the
 * pass's on update) and checks the result (contract `PassBarcodeSettings`).
 * @param given The `pass.barcode` member, or undefined to keep the base.
 * @param extId The pass's extId (an `extId` source needs one).
 * @throws ValidationError naming `/pass/barcode/value` (custom without value, value with another
 *   source) or `/pass/barcode/source` (extId source on a pass without extId); for an inherited
 *   barcode that encodes a missing extId, the `extId` parameter.
 */
export function resolveBarcode(base: BarcodeSettings, given: Schemas['PassBarcodeSettings'] | undefined, extId: string | null): BarcodeSettings {
  const merged: BarcodeSettings = { ...base, ...given };
  if (given?.source !== undefined && given.source !== 'custom' && given.value === undefined) delete merged.value;
  if (merged.source !== 'custom' && merged.value !== undefined) {
    throw new ValidationError({
      detail: `barcode.value is used with source custom only; this barcode encodes the pass's ${merged.source}.`,
      source: { pointer: '/pass/barcode/value' },
    });
  }
  if (merged.enabled && merged.source === 'custom' && !merged.value) {
    throw new ValidationError({ detail: 'A barcode with source custom needs a value.', source: { pointer: '/pass/barcode/value' } });
  }
  if (merged.enabled && merged.source === 'extId' && !extId) {
    throw new ValidationError(
      given
        ? { detail: 'A barcode with source extId needs a pass with an extId.', source: { pointer: '/pass/barcode/source' } }
        : { detail: "The template's barcode encodes the pass's extId; give the pass an extId, or a barcode of its own.", source: { parameter: 'extId' } },
    );
  }
  return merged;
}

/**
 * The NFC settings of a `pass.nfc` member (contract `PassNfcInput`): the legacy `true` is
 * `{ enabled: true, source: uuid }`; `false` and `enabled: false` mean no NFC (null).
 * @throws ValidationError naming `/pass/nfc/customValue` (custom without value, value with another
 *   source) or `/pass/nfc/source` (extId source on a pass without extId).
 */
export function resolveNfc(given: Schemas['PassNfcInput'], extId: string | null): NfcSettings | null {
  const settings = typeof given === 'boolean' ? { enabled: given } : given;
  const source = settings.source ?? 'uuid';
  const customValue = 'customValue' in settings ? settings.customValue : undefined;
  if (customValue !== undefined && source !== 'custom') {
    throw new ValidationError({
      detail: `nfc.customValue is used with source custom only; this NFC message is the pass's ${source}.`,
      source: { pointer: '/pass/nfc/customValue' },
    });
  }
  if (!settings.enabled) return null;
  if (source === 'custom' && customValue === undefined) {
    throw new ValidationError({ detail: 'NFC with source custom needs a customValue.', source: { pointer: '/pass/nfc/customValue' } });
  }
  if (source === 'extId' && !extId) {
    throw new ValidationError({ detail: 'NFC with source extId needs a pass with an extId.', source: { pointer: '/pass/nfc/source' } });
  }
  return { enabled: true, source, ...(customValue === undefined ? {} : { customValue }) };
}

/** The text a barcode or NFC message encodes for a pass (contract `PassIdentifierSource`). */
export function identifierValue(source: PassIdentifierSource, pass: { id: string; extId: string | null }, custom: string | undefined): string {
  if (source === 'uuid') return pass.id;
  if (source === 'extId') return pass.extId ?? '';
  return custom ?? '';
}

/** Largest number of group tags of a pass (contract `GroupTags`). */
export const MAX_GROUP_TAGS = 20;

/**
 * The group tags after a create or update: `groupTags` when given (else `current`), plus
 * `groupTag`, each once, in order.
 * @throws ValidationError (pointer `/groupTag`) when adding `groupTag` makes more than 20.
 */
export function resolveGroupTags(current: string[], groupTags: string[] | undefined, groupTag: string | undefined): string[] {
  const tags = [...new Set([...(groupTags ?? current), ...(groupTag === undefined ? [] : [groupTag])])];
  if (tags.length > MAX_GROUP_TAGS) {
    throw new ValidationError({
      detail: `A pass has at most ${MAX_GROUP_TAGS} group tags; adding groupTag makes ${tags.length}.`,
      source: { pointer: '/groupTag' },
    });
  }
  return tags;
}

/** What a transition needs to know about a pass. */
export interface TransitionSubject {
  status: PassStatus;
  addedAt: Date | null;
  removedAt: Date | null;
}

/**
 * The status after `passAction` (the table of the contract's `PassStatus`): `deactivate` from
 * `issued` or `active`; `reactivate` from `deactivated`, back to `active` when the pass is in a
 * wallet (added and not removed since), else `issued`.
 * @throws ConflictError (pointer `/passAction`) for every other combination.
 */
export function statusAfter(pass: TransitionSubject, action: PassAction): PassStatus {
  if (action === 'deactivate' && (pass.status === 'issued' || pass.status === 'active')) return 'deactivated';
  if (action === 'reactivate' && pass.status === 'deactivated') {
    const inWallet = pass.addedAt !== null && (pass.removedAt === null || pass.removedAt < pass.addedAt);
    return inWallet ? 'active' : 'issued';
  }
  const allowed = action === 'deactivate' ? 'issued or active' : 'deactivated';
  throw new ConflictError(`The pass is ${pass.status} and cannot be ${action}d; only ${allowed} passes can.`, { pointer: '/passAction' });
}
