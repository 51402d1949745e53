/**
 * The rules of recording scans (PassEntry API reference: Log a scan; the contract's createScan for internal validation). Both operations
 * run inside the caller's transaction: the scan row, the loyalty change — made with the loyalty
 * module's `changeLoyaltyBalance` (source `scan`, the scan's id), never here — and the reader's
 * `lastSeenAt`/`loggedIn` commit together or not at all.
 *
 * Every scan is announced as a `scanned` pass change (src/domain/passes/passChanges.ts) in the same
 * transaction: the `passScanned` event, and, when it changed the balance, the wallets that hold
 * the pass.
 *
 * The scan is stored before the balance changes because the ledger row references it; when the
 * change is refused, `changeLoyaltyBalance` throws without a failed SQL statement (it matched no
 * row), so the transaction is still usable: `logScan` lets the error roll everything back,
 * `validateScan` records the scan as failed instead.
 *
 * @module domain/scans/scanService
 */
import type { components } from '../../../generated/api.d.ts';
import type { PrismaExecutor } from '../../db/database.ts';
import { ConflictError, NotFoundError } from '../../errors.ts';
import { changeLoyaltyBalance } from '../loyalty/loyaltyLedgerStore.ts';
import { announcePassChange } from '../passes/passChanges.ts';
import { findPass, type PassRow } from '../passes/passStore.ts';
import { markReaderSeen, selectAccountReader, type ReaderRow } from '../readers/readerStore.ts';
import { insertScan, updateScanOutcome, type NewScan, type ScanRow } from './scanStore.ts';

type Schemas = components['schemas'];
export type ScanLog = Schemas['ScanLog'];
export type ScanCreate = Schemas['ScanCreate'];
export type ScanValidation = Schemas['ScanValidation'];

/** Pass statuses a validated scan accepts. */
const SCANNABLE: readonly PassRow['status'][] = ['issued', 'active'];

/** The `statusDetail` of an accepted scan, and the default of a logged one per status. */
const DETAIL = { successful: 'Scan successful', failed: 'Scan failed' } as const;

/** The reader and pass a scan names. */
interface Participants {
  reader: ReaderRow;
  pass: PassRow;
}

/**
 * The reader and pass a scan names, both required. A scan that asks for a balance change locks
 * the pass first, before the scan row (whose foreign key takes a key-share lock on the pass) and
 * the reader are touched: every balance path locks the pass before anything else
 * (src/db/contention.ts), so concurrent scans, logs and loyalty updates of one pass queue on its
 * row instead of deadlocking.
 */
async function participants(
  tx: PrismaExecutor,
  accountId: string,
  scan: { readerId: string; passId: string; loyalty?: { balance: number } },
): Promise<Participants> {
  const pass = await findPass(tx, accountId, scan.passId, { lock: Boolean(scan.loyalty?.balance) });
  const reader = await selectAccountReader(tx, accountId, scan.readerId);
  if (!reader) throw new NotFoundError(`No reader with id ${scan.readerId} exists.`, { pointer: '/scan/readerId' });
  if (!pass) throw new NotFoundError(`No pass with id or extId ${scan.passId} exists.`, { pointer: '/scan/passId' });
  return { reader, pass };
}

/** Stores a scan of `pass` by `reader` with its outcome; `scanValue` defaults to `passId` as sent. */
function storeScan(
  tx: PrismaExecutor,
  accountId: string,
  { reader, pass }: Participants,
  scan: { scanType: ScanLog['scanType']; scanValue?: string; passId: string },
  outcome: Pick<NewScan, 'validationType' | 'status' | 'statusDetail'>,
  now: Date,
): Promise<ScanRow> {
  return insertScan(tx, {
    accountId,
    passId: pass.id,
    readerId: reader.id,
    scanType: scan.scanType,
    scanValue: scan.scanValue ?? scan.passId,
    ...outcome,
    scannedAt: now,
  });
}

/**
 * Records a scan validated elsewhere (`logScan`, PassEntry API reference: Log a scan): stored as sent with
 * `validationType: externalValidation`; `loyalty.balance`, a change, is applied whatever the
 * status (the external validator decided). Marks the reader seen and signed in.
 * @param now The server clock (`scannedAt`).
 * @throws NotFoundError pointing at `/scan/readerId` or `/scan/passId`; ConflictError when the
 *   balance change is refused — pointing at `/scan/passId` for a nullified pass, at
 *   `/scan/loyalty/balance` for a result out of range — which rolls the scan back with it.
 */
export async function recordExternalScan(tx: PrismaExecutor, accountId: string, scan: ScanLog, now: Date): Promise<ScanRow> {
  const found = await participants(tx, accountId, scan);
  const { reader, pass } = found;
  if (scan.loyalty && pass.status === 'nullified') {
    throw new ConflictError(`The pass ${scan.passId} is nullified; its loyalty balance can no longer change.`, { pointer: '/scan/passId' });
  }
  const outcome = { validationType: 'externalValidation', status: scan.status, statusDetail: scan.statusDetail ?? DETAIL[scan.status] } as const;
  const row = await storeScan(tx, accountId, found, scan, outcome, now);
  if (scan.loyalty) {
    try {
      await changeLoyaltyBalance(tx, { accountId, passId: pass.id, change: { delta: scan.loyalty.balance }, source: 'scan', scanId: row.id, now });
    } catch (error) {
      if (error instanceof ConflictError) throw new ConflictError(error.message, { pointer: '/scan/loyalty/balance' });
      throw error;
    }
  }
  await markReaderSeen(tx, reader.id, now, { loggedIn: true });
  await announcePassChange(tx, {
    accountId,
    passId: pass.id,
    kind: 'scanned',
    entityId: reader.entityId,
    balanceChanged: Boolean(scan.loyalty?.balance),
    at: now,
  });
  return row;
}

/**
 * Why a scan is refused, in the order the contract's createScan lists them, or null when it is accepted.
 * @param change The loyalty change asked for (0 or undefined: none).
 */
export function refusal(
  pass: Pick<PassRow, 'status'>,
  reader: Pick<ReaderRow, 'scanEnabled' | 'addPointsEnabled' | 'redeemEnabled'>,
  change: number | undefined,
): string | null {
  if (!SCANNABLE.includes(pass.status)) return 'Pass is not active';
  if (!reader.scanEnabled) return 'Reader not allowed to scan';
  if (change !== undefined && change > 0 && !reader.addPointsEnabled) return 'Reader not allowed to add points';
  if (change !== undefined && change < 0 && !reader.redeemEnabled) return 'Reader not allowed to redeem points';
  return null;
}

/** What the reader shows after an accepted scan. */
function instructions(loyalty: ScanValidation['loyalty']): string {
  if (!loyalty || loyalty.balanceChange === 0) return DETAIL.successful;
  const points = Math.abs(loyalty.balanceChange);
  return `${points} ${points === 1 ? 'point' : 'points'} ${loyalty.operation === 'add' ? 'added' : 'redeemed'}`;
}

/** A validated scan: the decision and the stored scan. */
export interface ValidatedScan {
  validation: ScanValidation;
  scan: ScanRow;
}

/**
 * Validates and records a scan (`createScan`, internal validation): accepted when the pass is
 * `issued`/`active`, the reader may scan and may make the loyalty change asked for, and the
 * balance stays in range; otherwise stored `failed` with the reason as `statusDetail`. An
 * accepted non-zero change is applied with the scan. Marks the reader seen and signed in.
 * @param now The server clock (`scannedAt`).
 * @throws NotFoundError pointing at `/scan/readerId` or `/scan/passId` (nothing is stored).
 */
export async function validateScan(tx: PrismaExecutor, accountId: string, scan: ScanCreate, now: Date): Promise<ValidatedScan> {
  const found = await participants(tx, accountId, scan);
  const { reader, pass } = found;
  const change = scan.loyalty?.balance;
  const refused = refusal(pass, reader, change);
  const outcome = { validationType: 'internalValidation', status: refused ? 'failed' : 'successful', statusDetail: refused ?? DETAIL.successful } as const;
  let row = await storeScan(tx, accountId, found, scan, outcome, now);
  let loyalty: ScanValidation['loyalty'];
  if (!refused && change !== undefined) {
    try {
      const updatedBalance =
        change === 0
          ? pass.balance
          : (await changeLoyaltyBalance(tx, { accountId, passId: pass.id, change: { delta: change }, source: 'scan', scanId: row.id, now })).balance;
      loyalty = { balanceChange: change, updatedBalance, operation: change < 0 ? 'subtract' : 'add' };
    } catch (error) {
      if (!(error instanceof ConflictError)) throw error;
      row = await updateScanOutcome(tx, row.id, 'failed', 'Balance limit exceeded');
    }
  }
  await markReaderSeen(tx, reader.id, now, { loggedIn: true });
  await announcePassChange(tx, {
    accountId,
    passId: pass.id,
    kind: 'scanned',
    entityId: reader.entityId,
    balanceChanged: Boolean(loyalty?.balanceChange),
    at: now,
  });
  const validation: ScanValidation = {
    status: row.status,
    statusDetail: row.statusDetail,
    readerInstructions: { message: row.status === 'successful' ? instructions(loyalty) : row.statusDetail },
    ...(loyalty ? { loyalty } : {}),
  };
  return { validation, scan: row };
}
