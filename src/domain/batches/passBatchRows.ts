/**
 * The rows of a CSV pass batch file (the contract's `PassBatchCsvFile`, PassEntry's CSV columns):
 * which columns a header may have, and how one row's cells become the body of `createPass` or
 * `updatePass` — so that a row is checked and applied by the same rules as a single request
 * (src/domain/passes/passService.ts). A cell that cannot be such a body member is a
 * {@link RowError} naming its column.
 *
 * @module domain/batches/passBatchRows
 */
import type { components } from '../../../generated/api.d.ts';
import { DomainError, ValidationError } from '../../errors.ts';
import { MAX_GROUP_TAGS } from '../passes/passRules.ts';

type Schemas = components['schemas'];
export type PassBatchKind = 'passCreation' | 'passUpdate';

/** Why one row is refused, and the column at fault (null: the row as a whole). */
export class RowError extends Error {
  constructor(
    readonly column: string | null,
    message: string,
  ) {
    super(message);
  }
}

/** Columns of both kinds of file, besides `passfield_<fieldId>`. */
const COMMON_COLUMNS = [
  'ext_id',
  'group_tags',
  'nfc_enabled',
  'nfc_source',
  'nfc_custom_value',
  'barcode_enabled',
  'barcode_type',
  'barcode_source',
  'barcode_value',
  'barcode_display_text',
  'expires_at',
];
const UPDATE_COLUMNS = ['pass_id', 'pass_action'];
const FIELD_PREFIX = 'passfield_';
const FIELD_ID = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;

/**
 * Checks a header (the contract's `PassBatchCsvFile`).
 * @throws ValidationError (pointer `/csv`) for an unknown column, a `passfield_` column without a
 *   field id, or an update file without `pass_id`.
 */
export function checkPassBatchHeader(columns: string[], kind: PassBatchKind): void {
  const allowed = new Set(kind === 'passUpdate' ? [...COMMON_COLUMNS, ...UPDATE_COLUMNS] : COMMON_COLUMNS);
  const refuse = (detail: string) => new ValidationError({ detail, source: { pointer: '/csv' } });
  for (const column of columns) {
    if (allowed.has(column)) continue;
    if (column.startsWith(FIELD_PREFIX) && FIELD_ID.test(column.slice(FIELD_PREFIX.length))) continue;
    throw refuse(`The header has an unknown column ${column}; the columns are ${[...allowed].join(', ')} and passfield_<fieldId>.`);
  }
  if (kind === 'passUpdate' && !columns.includes('pass_id')) throw refuse("An update file needs a pass_id column naming each row's pass.");
}

const EXT_ID = /^[A-Za-z0-9._~:@!$&'()*+,;=-]{1,64}$/;
const GROUP_TAG = /^\S(.*\S)?$/;
const SOURCES = ['uuid', 'extId', 'custom'] as const;
const BARCODE_TYPES = ['qr', 'code128', 'aztec', 'pdf417'] as const;
const ACTIONS = ['deactivate', 'reactivate', 'nullify'] as const;
/** RFC 3339 date-time (the contract's `DateTime`). */
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i;

function bool(cells: Record<string, string>, column: string): boolean | undefined {
  const text = cells[column];
  if (text === undefined) return undefined;
  const lower = text.trim().toLowerCase();
  if (['true', '1', 'yes'].includes(lower)) return true;
  if (['false', '0', 'no'].includes(lower)) return false;
  throw new RowError(column, `${column} is true or false; got "${text}".`);
}

function oneOf<T extends string>(cells: Record<string, string>, column: string, values: readonly T[]): T | undefined {
  const text = cells[column];
  if (text === undefined) return undefined;
  const value = text.trim();
  if (!(values as readonly string[]).includes(value)) throw new RowError(column, `${column} is one of ${values.join(', ')}; got "${text}".`);
  return value as T;
}

function textOf(cells: Record<string, string>, column: string, max: number): string | undefined {
  const text = cells[column];
  if (text !== undefined && text.length > max) throw new RowError(column, `${column} has ${text.length} characters; at most ${max} are allowed.`);
  return text;
}

/** What a row asks for. */
export interface PassRowInput {
  /** The `ext_id` cell (creation: the new pass's extId). */
  extId: string | null;
  /** The `pass_id` cell (update). */
  passRef: string | null;
  /** The `pass_action` cell (update); `nullify` is `nullifyPass`, the others `passAction`. */
  action: (typeof ACTIONS)[number] | null;
  /** The body of `createPass` (creation) or `updatePass` (update). */
  body: Schemas['PassCreateRequest'] & Omit<Schemas['PassUpdateRequest'], 'pass'>;
}

/**
 * Reads a row's cells as the body of `createPass` / `updatePass` (the table of `PassBatchCsvFile`).
 * Field ids are not checked here (the template's rules do that, {@link columnOf}).
 * @throws RowError for a cell that is not a value of its column, or an update row that changes nothing.
 */
export function passRowInput(cells: Record<string, string>, kind: PassBatchKind): PassRowInput {
  const pass: Record<string, unknown> = {};
  for (const [column, value] of Object.entries(cells)) {
    if (!column.startsWith(FIELD_PREFIX)) continue;
    if (value.length > 500) throw new RowError(column, `${column} has ${value.length} characters; at most 500 are allowed.`);
    pass[column.slice(FIELD_PREFIX.length)] = value;
  }
  const extId = cells.ext_id ?? null;
  if (extId !== null && !EXT_ID.test(extId)) {
    throw new RowError('ext_id', `ext_id is 1–64 letters, digits or -._~:@!$&'()*+,;= (an extId); got "${extId.slice(0, 80)}".`);
  }
  const nfcEnabled = bool(cells, 'nfc_enabled');
  const nfcSource = oneOf(cells, 'nfc_source', SOURCES);
  const nfcCustom = textOf(cells, 'nfc_custom_value', 500);
  if (nfcEnabled !== undefined || nfcSource !== undefined || nfcCustom !== undefined) {
    pass.nfc = { enabled: nfcEnabled ?? true, ...(nfcSource ? { source: nfcSource } : {}), ...(nfcCustom !== undefined ? { customValue: nfcCustom } : {}) };
  }
  const barcodeEnabled = bool(cells, 'barcode_enabled');
  const barcodeType = oneOf(cells, 'barcode_type', BARCODE_TYPES);
  const barcodeSource = oneOf(cells, 'barcode_source', SOURCES);
  const barcodeValue = textOf(cells, 'barcode_value', 500);
  const displayCell = textOf(cells, 'barcode_display_text', 500);
  if ([barcodeEnabled, barcodeType, barcodeSource, barcodeValue, displayCell].some((v) => v !== undefined)) {
    const lower = displayCell?.trim().toLowerCase();
    const displayText = lower === 'true' ? true : lower === 'false' ? false : displayCell;
    pass.barcode = {
      enabled: barcodeEnabled ?? true,
      ...(barcodeType ? { type: barcodeType } : {}),
      ...(barcodeSource ? { source: barcodeSource } : {}),
      ...(barcodeValue !== undefined ? { value: barcodeValue } : {}),
      ...(displayText !== undefined ? { displayText } : {}),
    };
  }
  const body: PassRowInput['body'] = { pass: pass as Schemas['PassInput'] };
  if (cells.group_tags !== undefined) {
    const tags = [
      ...new Set(
        cells.group_tags
          .split(',')
          .map((t) => t.trim())
          .filter(Boolean),
      ),
    ];
    const bad = tags.find((t) => t.length > 100 || !GROUP_TAG.test(t));
    if (bad !== undefined) throw new RowError('group_tags', `The group tag "${bad.slice(0, 120)}" is longer than 100 characters.`);
    if (tags.length > MAX_GROUP_TAGS) throw new RowError('group_tags', `A pass has at most ${MAX_GROUP_TAGS} group tags; this row gives ${tags.length}.`);
    body.groupTags = tags;
  }
  if (cells.expires_at !== undefined) {
    const text = cells.expires_at.trim();
    if (!DATE_TIME.test(text) || Number.isNaN(Date.parse(text))) {
      throw new RowError('expires_at', `expires_at is an RFC 3339 date-time such as 2027-01-31T23:59:59Z; got "${cells.expires_at.slice(0, 80)}".`);
    }
    body.expiresAt = text;
  }
  if (kind === 'passCreation') return { extId, passRef: null, action: null, body };
  const action = oneOf(cells, 'pass_action', ACTIONS) ?? null;
  if (action === 'deactivate' || action === 'reactivate') body.passAction = action;
  if (extId !== null) throw new RowError('ext_id', 'ext_id cannot be changed by an update batch; name the pass with pass_id.');
  const passRef = cells.pass_id ?? null;
  if (passRef === null) throw new RowError('pass_id', 'pass_id is required: the UUID or extId of the pass to change.');
  if (passRef.length > 64) throw new RowError('pass_id', 'pass_id is a pass UUID or extId (at most 64 characters).');
  if (!Object.keys(pass).length) delete (body as { pass?: unknown }).pass;
  if (!Object.keys(body).length && action === null) throw new RowError(null, 'The row changes nothing: give at least one column besides pass_id.');
  return { extId: null, passRef, action, body };
}

/** Column of each pointer or parameter the pass rules name (src/domain/passes/passRules.ts). */
const COLUMN_OF: Record<string, string> = {
  '/pass/barcode/value': 'barcode_value',
  '/pass/barcode/source': 'barcode_source',
  '/pass/barcode': 'barcode_enabled',
  '/pass/nfc/customValue': 'nfc_custom_value',
  '/pass/nfc/source': 'nfc_source',
  '/pass/nfc': 'nfc_enabled',
  '/pass/qr': 'barcode_value',
  '/groupTag': 'group_tags',
  '/passAction': 'pass_action',
  extId: 'ext_id',
  id: 'pass_id',
  passTemplate: null as unknown as string,
};

/**
 * The row error of an error a single request would answer (ValidationError, ConflictError,
 * NotFoundError of the pass rules), its pointer or parameter turned into the CSV column.
 * @returns null for an error that is not a business error (a database failure): the caller rethrows it.
 */
export function rowErrorOf(error: unknown): RowError | null {
  if (error instanceof RowError) return error;
  if (!(error instanceof DomainError)) return null;
  const problem = error.problems[0];
  const source = problem?.source;
  const pointer = source && 'pointer' in source ? source.pointer : undefined;
  const key = pointer ?? (source && 'parameter' in source ? source.parameter : undefined);
  let column: string | null = key ? (COLUMN_OF[key] ?? null) : null;
  if (!column && pointer?.startsWith('/pass/')) column = `${FIELD_PREFIX}${pointer.slice('/pass/'.length)}`;
  const detail = error.problems.map((p) => p.detail).join(' ');
  return new RowError(column, detail.slice(0, 500));
}
