/**
 * Loyalty balances and their ledger (PassEntry loyalty update; PassEntry API reference: Log a scan; Show loyalty for scans
 * and reads). A pass's balance lives in `passes.balance`; every change of it also writes one row
 * of `loyalty_ledger` — the change, the balance it produced, its source (`api` or `scan`), the
 * scan id of a scan, the time — so a balance is the sum of its pass's deltas and can be audited.
 *
 * Changes are atomic in the database, never read-modify-write in JavaScript: one SQL statement
 * finds the pass and locks its row (`SELECT … FOR NO KEY UPDATE`), updates the balance under that lock
 * (`balance + $delta`, or the override) and inserts the ledger row from the `RETURNING` of the
 * update, with the change measured against the locked balance. Concurrent changes of one pass
 * queue on its row lock and all count.
 *
 * @module domain/loyalty/loyaltyLedgerStore
 */
import { Prisma } from '../../../generated/prisma/client.ts';
import type { PrismaExecutor, SqlExecutor } from '../../db/database.ts';
import type { AuditEventStatement } from '../audit/auditStore.ts';
import { ConflictError } from '../../errors.ts';
import { queryRow } from '../../db/rows.ts';
import { passChangeStatement, passChangesWritten } from '../passes/passChanges.ts';
import { LOYALTY_BALANCE_LIMIT } from '../passes/passRules.ts';
import { findPass, passLookupSql, passNotFound, passRowOf, PASS_COLUMNS, type PassRow, type PassSqlRow } from '../passes/passStore.ts';

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
export async function changeLoyaltyBalance(db: SqlExecutor, change: LoyaltyChange): Promise<LoyaltyChangeResult> {
  const result = await queryRow<LoyaltyChangeResult>(db, balanceChangeSql(change, change.passId, Prisma.sql`SELECT p.delta, p.balance FROM changed p`));
  if (result) return result;
  throw await whyUnchanged(db, change.accountId, change.passId, change.change);
}

/** A balance change of a pass named by UUID or extId ({@link changePassBalance}). */
export type PassBalanceChange = Omit<LoyaltyChange, 'passId'> & {
  /** The pass as the API names it (the contract's `PassIdOrExtId`; found as `findPass` does). */
  idOrExtId: string;
};

/** What {@link changePassBalance} did. */
export interface PassBalanceChangeResult {
  /** The pass after the change, with its template. */
  pass: PassRow;
  /** The change in points. */
  delta: number;
}

/**
 * {@link changeLoyaltyBalance} for a pass named as the API names it, in one statement that finds
 * the pass (as `findPass` does), locks it, changes it, writes the ledger row, announces the
 * change (an `updated` pass change: its pass-change outbox row, src/domain/passes/passChanges.ts,
 * when the change must be delivered) and selects the pass as it is now with its template. Atomic
 * by itself, so a loyalty update (`updateLoyalty`, the hottest write) needs no transaction around
 * it and holds the pass's row lock only while the statement runs.
 *
 * @param db The client (autocommit), or the caller's transaction.
 * @param auditEvent The request's audit event, written by the same statement when the balance
 *   changed (its changes: {@link BALANCE_CHANGES}); the caller tells the sealer.
 * @throws As {@link changeLoyaltyBalance}: NotFoundError (parameter `id`), ConflictError.
 */
export async function changePassBalance(db: SqlExecutor, change: PassBalanceChange, auditEvent?: AuditEventStatement): Promise<PassBalanceChangeResult> {
  const outbox = passChangeStatement({ accountId: change.accountId, kind: 'updated', at: change.now });
  const row = await queryRow<PassSqlRow & { delta: number; outboxId: string | null }>(
    db,
    balanceChangeSql(
      change,
      change.idOrExtId,
      Prisma.sql`
        SELECT p.delta, ${PASS_COLUMNS}, t.name AS template_name, t.template_type, (SELECT id::text FROM outbox) AS outbox_id
          FROM routed p JOIN pass_templates t ON t.id = p.template_id`,
      auditEvent ? Prisma.sql`${outbox}, audited AS (${auditEvent(BALANCE_CHANGES, Prisma.sql`changed c JOIN target t ON t.id = c.id`)})` : outbox,
    ),
  );
  if (!row) throw await whyUnchanged(db, change.accountId, change.idOrExtId, change.change);
  const { delta, outboxId, ...pass } = row;
  await passChangesWritten(db, outboxId ? [outboxId] : []);
  return { pass: passRowOf(pass)!, delta };
}

/**
 * The members a balance change changed, before → after, as its audit event records them
 * (src/domain/audit/auditStore.ts `AuditEventStatement`), over `target t` (the pass before) and
 * `changed c` (after): `balance`, and `latestMessage` when the message changed — the members the
 * audit log's row snapshots would name (src/domain/audit/auditSnapshotStore.ts).
 */
const BALANCE_CHANGES = Prisma.sql`
  (CASE WHEN t.balance IS DISTINCT FROM c.balance
        THEN jsonb_build_object('balance', jsonb_build_object('before', t.balance, 'after', c.balance)) ELSE '{}'::jsonb END)
  || (CASE WHEN t.latest_message IS DISTINCT FROM c.latest_message
        THEN jsonb_build_object('latestMessage', jsonb_build_object('before', t.latest_message, 'after', c.latest_message)) ELSE '{}'::jsonb END)`;

/**
 * The statement of a balance change: the pass found by `idOrExtId` (a UUID is the pass's id) and
 * locked, changed unless nullified or out of range, the ledger row written from the change,
 * then `more` common table expressions (after `changed`, the pass's new row with `delta`), then
 * `select`.
 */
function balanceChangeSql(change: Omit<LoyaltyChange, 'passId'>, idOrExtId: string, select: Prisma.Sql, more?: Prisma.Sql): Prisma.Sql {
  const { accountId, source, now } = change;
  const balance = 'delta' in change.change ? Prisma.sql`p.balance + ${change.change.delta}::int` : Prisma.sql`${change.change.override}::int`;
  return Prisma.sql`
    WITH target AS (
      SELECT p.id, p.balance, p.latest_message FROM passes p ${passLookupSql(accountId, idOrExtId)} FOR NO KEY UPDATE OF p),
    changed AS (
      UPDATE passes p SET balance = ${balance},
             latest_message = COALESCE(${change.message ?? null}::varchar, p.latest_message), updated_at = ${now}
        FROM target
       WHERE p.id = target.id AND p.status <> 'nullified'
         AND ${balance} BETWEEN ${-LOYALTY_BALANCE_LIMIT}::int AND ${LOYALTY_BALANCE_LIMIT}::int
      RETURNING p.*, p.balance - target.balance AS delta),
    ledger AS (
      INSERT INTO loyalty_ledger (account_id, pass_id, delta, balance, source, scan_id, created_at)
      SELECT account_id, id, delta, balance, ${source}::loyalty_change_source, ${change.scanId ?? null}::uuid, ${now}
        FROM changed)${more ? Prisma.sql`,${more}` : Prisma.empty}
    ${select}`;
}

/** The error of a change that matched no row: the pass is missing, nullified, or the result out of range. */
async function whyUnchanged(db: SqlExecutor, accountId: string, idOrExtId: string, change: BalanceChange): Promise<Error> {
  const pass = await findPass(db, accountId, idOrExtId);
  if (!pass) return passNotFound(idOrExtId);
  if (pass.status === 'nullified') return new ConflictError(`The pass ${idOrExtId} is nullified; its loyalty balance can no longer change.`);
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
