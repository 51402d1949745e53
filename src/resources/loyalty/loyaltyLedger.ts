/**
 * Loyalty balances and their ledger (PassEntry loyalty update; PassEntry API reference: Log a scan; Show loyalty for scans
 * and reads). A pass's balance lives in `passes.balance`; every change of it also writes one row
 * of `loyalty_ledger` — the change, the balance it produced, its source (`api` or `scan`), the
 * scan id of a scan, the time — so a balance is the sum of its pass's deltas and can be audited.
 *
 * Changes are atomic in the database, never read-modify-write in JavaScript: one SQL statement
 * updates the balance (`SET balance = balance + $delta`, or — for an override — under the row
 * lock a `SELECT … FOR UPDATE` in the same statement takes) and inserts the ledger row from the
 * `RETURNING` of the update. Concurrent changes of one pass queue on its row lock and all count.
 *
 * @module resources/loyalty/loyaltyLedger
 */
import type { PrismaExecutor } from '../../db/database.ts';
import { ConflictError, NotFoundError } from '../../errors.ts';
import { LOYALTY_BALANCE_LIMIT } from '../passes/passRules.ts';

/** A change of a balance: add `delta` points, or set the balance to `override` points. */
export type BalanceChange = { delta: number } | { override: number };

/** One change of one pass's balance. */
export interface LoyaltyChange {
  accountId: string;
  /** The pass UUID (resolve a UUID-or-extId with `findPass` first). */
  passId: string;
  change: BalanceChange;
  /** `api` for the REST API, `scan` for a scan (then `scanId` names it). */
  source: 'api' | 'scan';
  /** The scan that made the change; null for `api` changes. */
  scanId?: string | null;
  /** Stored as the pass's `latestMessage` in the same statement, when given. */
  message?: string;
  now: Date;
}

/** What a change did. */
export interface LoyaltyChangeResult {
  /** The change in points (for an override: new balance minus the balance it replaced). */
  delta: number;
  /** The balance after the change, in points. */
  balance: number;
}

/**
 * Changes a pass's loyalty balance atomically and records it in the ledger, in one SQL
 * statement. Works on the client or inside the caller's transaction (a scan stores itself and
 * changes the balance in one transaction: `source: 'scan'` with its `scanId`).
 *
 * The pass must be the account's and not nullified; the resulting balance must lie within
 * ±1,000,000,000 (the contract's `LoyaltyBalance`). When one of these fails nothing is changed.
 *
 * @param db The client or the caller's transaction.
 * @returns The delta and the resulting balance.
 * @throws NotFoundError (parameter `id`) when the account has no pass with `passId`;
 *   ConflictError when the pass is nullified, or (pointer `/balance`) when the result would be
 *   out of range.
 */
export async function changeLoyaltyBalance(db: PrismaExecutor, change: LoyaltyChange): Promise<LoyaltyChangeResult> {
  const { accountId, passId, source, now } = change;
  const scanId = change.scanId ?? null;
  const message = change.message ?? null;
  const rows =
    'delta' in change.change
      ? await db.$queryRaw<LoyaltyChangeResult[]>`
          WITH changed AS (
            UPDATE passes SET balance = balance + ${change.change.delta}::int,
                   latest_message = COALESCE(${message}::varchar, latest_message), updated_at = ${now}
             WHERE id = ${passId}::uuid AND account_id = ${accountId}::uuid AND status <> 'nullified'
               AND balance + ${change.change.delta}::int BETWEEN ${-LOYALTY_BALANCE_LIMIT}::int AND ${LOYALTY_BALANCE_LIMIT}::int
            RETURNING id, account_id, balance)
          INSERT INTO loyalty_ledger (account_id, pass_id, delta, balance, source, scan_id, created_at)
          SELECT account_id, id, ${change.change.delta}::int, balance, ${source}::loyalty_change_source, ${scanId}::uuid, ${now}
            FROM changed
          RETURNING delta, balance`
      : await db.$queryRaw<LoyaltyChangeResult[]>`
          WITH locked AS (
            SELECT id, balance FROM passes
             WHERE id = ${passId}::uuid AND account_id = ${accountId}::uuid AND status <> 'nullified'
               FOR UPDATE),
          changed AS (
            UPDATE passes SET balance = ${change.change.override}::int,
                   latest_message = COALESCE(${message}::varchar, latest_message), updated_at = ${now}
              FROM locked WHERE passes.id = locked.id
            RETURNING passes.id, passes.account_id, passes.balance, passes.balance - locked.balance AS delta)
          INSERT INTO loyalty_ledger (account_id, pass_id, delta, balance, source, scan_id, created_at)
          SELECT account_id, id, delta, balance, ${source}::loyalty_change_source, ${scanId}::uuid, ${now}
            FROM changed
          RETURNING delta, balance`;
  const [result] = rows;
  if (result) return result;
  throw await whyUnchanged(db, accountId, passId, change.change);
}

/** The error of a change that matched no row: the pass is missing, nullified, or the result out of range. */
async function whyUnchanged(db: PrismaExecutor, accountId: string, passId: string, change: BalanceChange): Promise<Error> {
  const pass = await db.pass.findFirst({ where: { id: passId, accountId }, select: { status: true, balance: true } });
  if (!pass) return new NotFoundError(`No pass with id or extId ${passId} exists.`, { parameter: 'id' });
  if (pass.status === 'nullified') return new ConflictError(`The pass ${passId} is nullified; its loyalty balance can no longer change.`);
  const result = 'delta' in change ? pass.balance + change.delta : change.override;
  return new ConflictError(
    `The balance would become ${result}, outside the range from -${LOYALTY_BALANCE_LIMIT} to ${LOYALTY_BALANCE_LIMIT}; it stays ${pass.balance}.`,
    { pointer: '/balance' },
  );
}

/**
 * Records a pass's starting balance in the ledger (createPass, inside its transaction): one
 * `api` row with the balance as delta, unless it is 0 (no change).
 */
export async function recordStartingBalance(tx: PrismaExecutor, pass: { id: string; accountId: string; balance: number }, now: Date): Promise<void> {
  if (pass.balance === 0) return;
  await tx.loyaltyLedgerEntry.create({
    data: { accountId: pass.accountId, passId: pass.id, delta: pass.balance, balance: pass.balance, source: 'api', createdAt: now },
  });
}

/** {@link recordStartingBalance} for many new passes, in one statement (CSV pass batches). */
export async function recordStartingBalances(tx: PrismaExecutor, passes: { id: string; accountId: string; balance: number }[], now: Date): Promise<void> {
  const opening = passes.filter((p) => p.balance !== 0);
  if (!opening.length) return;
  // One INSERT … SELECT FROM unnest: Prisma's createMany spent ~0.3 s on 1,000 entries.
  await tx.$executeRaw`
    INSERT INTO loyalty_ledger (account_id, pass_id, delta, balance, source, created_at)
    SELECT t.account_id, t.pass_id, t.balance, t.balance, 'api', ${now}
      FROM unnest(${opening.map((p) => p.accountId)}::uuid[], ${opening.map((p) => p.id)}::uuid[], ${opening.map((p) => p.balance)}::int[]) AS t(account_id, pass_id, balance)`;
}
