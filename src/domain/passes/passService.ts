/**
 * The rules of writing passes (PassEntry pass create, update and nullify; the contract's
 * `PassCreateRequest`, `PassUpdateRequest`, `PassStatus`): issuing from a processed template,
 * partial updates with status transitions, and nullifying. Each function runs inside the
 * caller's transaction, so a write is all or nothing (and can be guarded by an idempotency key,
 * src/http/idempotency.ts).
 *
 * @module domain/passes/passService
 */
import type { components } from '../../../generated/api.d.ts';
import type { PrismaExecutor } from '../../db/database.ts';
import { ConflictError, ValidationError } from '../../errors.ts';
import { fitsSymbology, symbologyTakes } from '../../wallet/barcodeSymbology.ts';
import { googleSaveLink, type SaveLinkDependencies as SigningDependencies } from '../googleWallet/googleSaveLink.ts';
import { contentOf, selectAccountTemplate, templateNotFound } from '../passTemplates/passTemplateStore.ts';
import { fullAttributes } from '../passTemplates/serializePassTemplate.ts';
import { changeLoyaltyBalance, recordStartingBalance } from '../loyalty/loyaltyLedgerStore.ts';
import {
  fieldValues,
  LOYALTY_FIELD_ID,
  loyaltyBalanceOf,
  barcodeInput,
  resolveBarcode,
  resolveGroupTags,
  resolveNfc,
  startingBalance,
  statusAfter,
  templateFieldSet,
  type BarcodeSettings,
} from './passRules.ts';
import { announcePassChange } from './passChanges.ts';
import { insertPass, lockPass, updatePassRow, type NewPass, type PassChanges, type PassRow } from './passStore.ts';
import { passDesignOf, type IncludeParameters, type PassExtras } from './serializePass.ts';

type Schemas = components['schemas'];
export type PassCreateRequest = Schemas['PassCreateRequest'];
export type PassUpdateRequest = Schemas['PassUpdateRequest'];
export type PassNotifications = Schemas['PassNotifications'];

/** What a new pass is issued from. */
export interface IssueRequest {
  accountId: string;
  /** The `passTemplate` query parameter. */
  templateId: string;
  /** The `extId` query parameter, or null. */
  extId: string | null;
  body: PassCreateRequest;
  now: Date;
}

/**
 * Issues a pass (`issued`): field values given, the template's defaults for the others, the
 * template's barcode merged with the pass's, NFC when asked, the template's locations and
 * beacons unless given; the starting balance from the loyalty field, recorded in the ledger.
 * Announced as an `issued` pass change (src/domain/passes/passChanges.ts): `passCreated`, and its
 * Google Wallet object when the account has Google credentials.
 * @throws NotFoundError (parameter `passTemplate`) when the account has no such template;
 *   ConflictError (parameter `passTemplate`) when it is not processed, or (parameter `extId`)
 *   when a live pass has the extId; ValidationError for unknown field ids, a loyalty field that
 *   is not an integer, an inconsistent barcode or NFC, too many group tags.
 */
export async function issuePass(tx: PrismaExecutor, request: IssueRequest): Promise<PassRow> {
  const template = await requireIssuingTemplate(tx, request.accountId, request.templateId);
  const row = await insertPass(tx, newPassOf(issuingDesign(template), request));
  await recordStartingBalance(tx, row, request.now);
  await announcePassChange(tx, { accountId: row.accountId, passId: row.id, kind: 'issued', at: request.now });
  return row;
}

/** A template that passes can be issued from. */
export type IssuingTemplate = NonNullable<Awaited<ReturnType<typeof selectAccountTemplate>>>;

/**
 * The template of a new pass, required to be processed and not archived.
 * @throws NotFoundError (parameter `passTemplate`) when the account has no such template;
 *   ConflictError (parameter `passTemplate`) when it is archived or not processed.
 */
export async function requireIssuingTemplate(tx: PrismaExecutor, accountId: string, templateId: string): Promise<IssuingTemplate> {
  const template = await selectAccountTemplate(tx, accountId, templateId);
  if (!template) throw templateNotFound(templateId, 'passTemplate');
  if (template.archivedAt) {
    throw new ConflictError(`The pass template ${templateId} is archived; unarchive it to issue passes from it.`, { parameter: 'passTemplate' });
  }
  if (template.processingStatus !== 'processed') {
    throw new ConflictError(`The pass template ${templateId} is ${template.processingStatus}; passes can be issued from it once it is processed.`, {
      parameter: 'passTemplate',
    });
  }
  return template;
}

/** What issuing reads of a template's design, computed once for many passes (CSV batches). */
export function issuingDesign(template: IssuingTemplate) {
  const design = contentOf(template);
  const { locations, beacons } = fullAttributes(design);
  const { value, preferredType, ...templateBarcode } = design.barcode;
  const barcode: BarcodeSettings = { ...templateBarcode, ...(value ? { value } : {}) };
  return { fields: templateFieldSet(design), locations, beacons, barcode, preferredBarcodeType: preferredType ?? null };
}

/**
 * The columns of a new pass from its request (no database access: the rules of {@link issuePass},
 * which CSV pass batches apply to each row).
 * @throws ValidationError as {@link issuePass} does.
 */
export function newPassOf(design: ReturnType<typeof issuingDesign>, request: IssueRequest): NewPass {
  const { accountId, templateId, extId, body, now } = request;
  const { fields } = design;
  const preferred = design.preferredBarcodeType;
  // The template's preferred symbology must be able to show the extId its barcode encodes (src/wallet/barcodeSymbology.ts).
  if (preferred && design.barcode.enabled && design.barcode.source === 'extId' && extId && !fitsSymbology(preferred, extId)) {
    throw new ValidationError({
      detail: `The template's ${preferred} barcode encodes the pass's extId, and a ${preferred} barcode encodes ${symbologyTakes(preferred)}; "${extId}" does not fit.`,
      source: { parameter: 'extId' },
    });
  }
  const values = fieldValues(body.pass, fields);
  const balance = startingBalance(values, fields);
  const content = { ...fields.defaults, ...values };
  if (fields.ids.has(LOYALTY_FIELD_ID)) content[LOYALTY_FIELD_ID] = String(balance);
  return {
    accountId,
    templateId,
    extId,
    content,
    barcode: resolveBarcode(design.barcode, barcodeInput(body.pass), extId),
    nfc: body.pass.nfc === undefined ? null : resolveNfc(body.pass.nfc, extId),
    // The template's lists in the contract's member order (its columns are jsonb).
    locations: body.locations ?? design.locations,
    beacons: body.beacons ?? design.beacons,
    groupTags: resolveGroupTags([], body.groupTags, body.groupTag),
    balance,
    latestMessage: body.message ?? null,
    expiresAt: body.expiresAt ? new Date(body.expiresAt) : null,
    createdAt: now,
  };
}

/**
 * The delivery report of an update (contract `PassNotifications`).
 * @param devices The devices the change is being pushed to (from `announcePassChange`).
 */
export function notificationsOf(pass: Pick<PassRow, 'addedAt' | 'removedAt'>, devices: number): PassNotifications {
  if (devices > 0) return { status: 'queued', message: `The update is being pushed to ${devices} ${devices === 1 ? 'device' : 'devices'}.` };
  if (!pass.addedAt) return { status: 'notDelivered', message: 'Pass has not been added to the wallet' };
  if (pass.removedAt && pass.removedAt >= pass.addedAt) return { status: 'notDelivered', message: 'Pass has been removed from the wallet' };
  return { status: 'notDelivered', message: 'No device is registered for updates of this pass' };
}

/** The 409 of a change to a nullified pass. */
function nullifiedConflict(pass: PassRow): ConflictError {
  return new ConflictError(`The pass ${pass.id} is nullified and can no longer be changed.`, { parameter: 'id' });
}

/** The changes of the `pass` member of an update, and the balance its loyalty field sets. */
async function contentChanges(tx: PrismaExecutor, pass: PassRow, input: NonNullable<PassUpdateRequest['pass']>) {
  const template = await selectAccountTemplate(tx, pass.accountId, pass.templateId);
  const fields = templateFieldSet(contentOf(template!));
  const values = fieldValues(input, fields);
  const override = values[LOYALTY_FIELD_ID] === undefined ? undefined : loyaltyBalanceOf(values[LOYALTY_FIELD_ID], `/pass/${LOYALTY_FIELD_ID}`);
  const changes: PassChanges = { content: { ...(pass.content as Record<string, string>), ...values } };
  const barcode = barcodeInput(input);
  if (barcode) changes.barcode = resolveBarcode(pass.barcode as unknown as BarcodeSettings, barcode, pass.extId);
  if (input.nfc !== undefined) changes.nfc = resolveNfc(input.nfc, pass.extId);
  return { changes, override };
}

/**
 * Applies a partial update to a pass, locked for the transaction (merge rules in the contract's
 * `PassUpdateRequest`): content, NFC, barcode, locations, beacons, group tags, expiry, a status
 * change (`passAction`, transitions of `statusAfter`), and `message` as `latestMessage`. A value
 * of the loyalty field sets the balance through the ledger (like `overrideBalance`). The change
 * is announced as `updated` (src/domain/passes/passChanges.ts), in the same transaction, unless
 * `announce` is false.
 * @param idOrExtId The pass UUID or extId, as in the path.
 * @param announce `false` when the caller announces the pass's change itself in the same
 *   transaction: a CSV update row that changes a pass and then nullifies it is one `nullified`
 *   change (one `passUpdated` event, one push), not an `updated` one followed by another.
 * @returns The updated pass and the delivery report for `meta.notifications` (with `announce`
 *   false, as if no device were registered: the caller's announcement says where it goes).
 * @throws NotFoundError when the account has no such pass; ConflictError when it is nullified,
 *   for a transition the table refuses, or a loyalty value out of range; ValidationError as
 *   {@link issuePass} does.
 */
export async function modifyPass(
  tx: PrismaExecutor,
  request: { accountId: string; idOrExtId: string; body: PassUpdateRequest; now: Date; announce?: boolean },
): Promise<{ row: PassRow; notifications: PassNotifications }> {
  const { accountId, body, now } = request;
  const pass = await lockPass(tx, accountId, request.idOrExtId);
  if (pass.status === 'nullified') throw nullifiedConflict(pass);
  const { changes, override } = body.pass ? await contentChanges(tx, pass, body.pass) : { changes: {} as PassChanges, override: undefined };
  if (body.passAction) {
    changes.status = statusAfter(pass, body.passAction);
    changes.deactivatedAt = changes.status === 'deactivated' ? now : null;
  }
  if (body.message !== undefined) changes.latestMessage = body.message;
  if (body.locations) changes.locations = body.locations;
  if (body.beacons) changes.beacons = body.beacons;
  if (body.groupTags || body.groupTag !== undefined) changes.groupTags = resolveGroupTags(pass.groupTags, body.groupTags, body.groupTag);
  if (body.expiresAt !== undefined) changes.expiresAt = body.expiresAt === null ? null : new Date(body.expiresAt);
  if (override !== undefined) {
    const { balance } = await changeLoyaltyBalance(tx, { accountId, passId: pass.id, change: { override }, source: 'api', now });
    changes.content![LOYALTY_FIELD_ID] = String(balance);
  }
  const row = await updatePassRow(tx, pass.id, changes, now);
  const devices = request.announce === false ? 0 : await announcePassChange(tx, { accountId, passId: row.id, kind: 'updated', at: now });
  return { row, notifications: notificationsOf(row, devices) };
}

/**
 * Nullifies a pass, locked for the transaction: strips content, barcode, NFC, locations and
 * beacons, sets `nullified` and `nullifiedAt`; the extId becomes free (the unique index covers
 * live passes only). Idempotent: a nullified pass is returned unchanged. Balance and ledger stay.
 * Announced as `nullified`: devices that hold the pass are pushed its voided version, `passUpdated` sent.
 * @throws NotFoundError when the account has no such pass.
 */
export async function nullifyStoredPass(tx: PrismaExecutor, request: { accountId: string; idOrExtId: string; now: Date }): Promise<PassRow> {
  const pass = await lockPass(tx, request.accountId, request.idOrExtId);
  if (pass.status === 'nullified') return pass;
  const row = await updatePassRow(
    tx,
    pass.id,
    { status: 'nullified', nullifiedAt: request.now, content: {}, barcode: null, nfc: null, locations: [], beacons: [] },
    request.now,
  );
  await announcePassChange(tx, { accountId: row.accountId, passId: row.id, kind: 'nullified', at: request.now });
  return row;
}

/**
 * Resolves the `include…` parameters of a read into {@link PassExtras}, reading the template's
 * design when `includePassDesign` asks for it, and signing the pass's "Save to Google Wallet"
 * link when `includePassSource=google` asks for it and the account has Google credentials.
 */
export async function passExtras(prisma: PrismaExecutor, row: PassRow, query: IncludeParameters, google: SaveLinkDependencies): Promise<PassExtras> {
  const template = query.includePassDesign ? await selectAccountTemplate(prisma, row.accountId, row.templateId) : null;
  const saveLink = query.includePassSource === 'google' && row.status !== 'active' ? await googleSaveLink({ ...google, db: { prisma } }, row) : null;
  // The literal's own properties first: after a leading spread V8 (Node 20) adds them to the
  // copy one by one, and here that made two new maps per call (`--log-maps`: `locations` added
  // to the copy of `{}` without a transition, then `beacons` to a map outside the tree). Bench:
  // `npm run bench -- passesAndLoyalty` (GET µs of CPU per request; the figures with
  // src/http/listener.ts `serveApp`).
  return {
    locations: query.includeLocations ?? false,
    beacons: query.includeBeacons ?? false,
    ...(template ? { design: passDesignOf(template) } : {}),
    ...(query.includePassSource ? { passSource: query.includePassSource } : {}),
    ...(saveLink ? { googleSaveUrl: saveLink } : {}),
  };
}

/** What signing a pass's "Save to Google Wallet" link needs (the request context has it). */
export type SaveLinkDependencies = Omit<SigningDependencies, 'db'>;
