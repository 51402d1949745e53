/**
 * "This pass changed": the one way a change of a pass is announced, whatever changed it — an API
 * update (deactivation, reactivation and a message included), a loyalty change, a scan or a
 * logged scan, a nullification, a row of a CSV batch, a template's new design, an iPhone that
 * registers or unregisters, a save or deletion in Google Wallet.
 *
 * {@link announcePassChange} writes one row of the pass-change outbox (`pass_change_outbox`) in
 * the change's own transaction — the transactional outbox pattern
 * (https://microservices.io/patterns/data/transactional-outbox.html) — when the change must go
 * anywhere: to the wallets that hold the pass (Apple devices registered for it, or Google Wallet
 * when its account has Google credentials) and to the webhook subscriptions of its event. So the
 * change and the duty to deliver it commit together, or neither does, and a change nobody must
 * hear of writes nothing more.
 *
 * The relay (src/delivery/passChangeRelay.ts) alone turns outbox rows into `pass-changed` jobs and
 * webhook events: right after the commit, in the process that made the change (the rows are said
 * on {@link PASS_CHANGES_CHANNEL}, src/db/afterCommit.ts), and otherwise — the process died
 * between the commit and the relay — by a process that works jobs, within seconds.
 *
 * @module domain/passes/passChanges
 */
import type { Prisma } from '../../../generated/prisma/client.ts';
import { afterCommit } from '../../db/afterCommit.ts';
import type { SqlExecutor } from '../../db/database.ts';
import { insertPassChanges, passChangeSql, type PassChangeRoute, type PassEventType } from './passChangeOutboxStore.ts';

export type { PassEventType };

/**
 * What happened to a pass:
 * - `issued`: created (alone or in a CSV batch): `passCreated`; its Google Wallet object is written;
 * - `updated`: changed by the API or a CSV update batch (content, status, message, loyalty
 *   balance): `passUpdated`, pushed to its wallets;
 * - `nullified`: voided: `passUpdated`, pushed;
 * - `scanned`: a scan or logged scan (`entityId`: its reader's entity): `passScanned`, pushed
 *   when it changed the balance;
 * - `redesigned`: its template's new design reached it: pushed to its Apple devices, no event
 *   (Google Wallet gets a redesign through the template's class, and the objects it changes through
 *   the `google-object-rewrite` job, src/delivery/googleObjectRewriteJob.ts);
 * - `installed` / `removed`: added to or removed from its last wallet (an iPhone registered or
 *   unregistered, saved or deleted in Google Wallet): `passInstalled` / `passRemoved`.
 */
export type PassChangeKind = 'issued' | 'updated' | 'nullified' | 'scanned' | 'redesigned' | 'installed' | 'removed';

/** What each kind of change announces: its webhook event (or none) and whether the wallets hear of it. */
const KINDS: Record<PassChangeKind, { event: PassEventType | null; push: boolean }> = {
  issued: { event: 'passCreated', push: true },
  updated: { event: 'passUpdated', push: true },
  nullified: { event: 'passUpdated', push: true },
  scanned: { event: 'passScanned', push: false },
  redesigned: { event: null, push: true },
  installed: { event: 'passInstalled', push: false },
  removed: { event: 'passRemoved', push: false },
};

/** The channel on which the ids of new outbox rows are said once their transaction committed (src/db/afterCommit.ts). */
export const PASS_CHANGES_CHANNEL = 'pass-changes';

/** A change of one or more passes of one account, of one kind, at one time. */
export interface PassChange {
  accountId: string;
  kind: PassChangeKind;
  /** When it happened (the service clock): the event's `timeStamp`. */
  at: Date;
  /** The entity it happened at (a scan's reader), or null: then only organisation-wide subscriptions get its event. */
  entityId?: string | null;
  /** For `scanned`: the scan changed the balance, so the wallets hear of it. */
  balanceChanged?: boolean;
}

/** The event, push flag and entity of a change, as the outbox stores them. */
function routing(change: PassChange): PassChangeRoute {
  const { event, push } = KINDS[change.kind];
  return {
    accountId: change.accountId,
    event,
    push: push || (change.kind === 'scanned' && change.balanceChanged === true),
    appleOnly: change.kind === 'redesigned',
    entityId: change.entityId ?? null,
    at: change.at,
  };
}

/**
 * The common table expressions that announce a change inside a statement of its own (see
 * `passChangeSql` in src/domain/passes/passChangeOutboxStore.ts): for a store whose one statement
 * changes passes and announces them (a loyalty change).
 */
export function passChangeStatement(change: PassChange): Prisma.Sql {
  return passChangeSql(routing(change));
}

/**
 * Says, once the statement's or transaction's writes are committed, that outbox rows were written
 * by a statement built with {@link passChangeStatement} (which selected their ids).
 * @param executor The transaction or autocommit executor that ran the statement.
 */
export async function passChangesWritten(executor: SqlExecutor, outboxIds: readonly string[]): Promise<void> {
  if (outboxIds.length) await afterCommit(executor, PASS_CHANGES_CHANNEL, outboxIds);
}

/**
 * Announces a change of passes, in the caller's transaction: one outbox row per pass that must be
 * heard of (see the module description). Passes that do not exist are skipped.
 * @param passIds The changed passes (UUIDs) of `change.accountId`.
 * @returns How many Apple devices are registered for the passes (what their wallets' push reaches).
 */
export async function announcePassChanges(tx: SqlExecutor, change: PassChange, passIds: readonly string[]): Promise<number> {
  if (!passIds.length) return 0;
  const written = await insertPassChanges(tx, routing(change), passIds);
  await passChangesWritten(tx, written.outboxIds);
  return written.devices;
}

/** {@link announcePassChanges} for one pass. */
export function announcePassChange(tx: SqlExecutor, change: PassChange & { passId: string }): Promise<number> {
  return announcePassChanges(tx, change, [change.passId]);
}
