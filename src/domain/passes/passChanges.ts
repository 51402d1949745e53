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
import { Prisma } from '../../../generated/prisma/client.ts';
import { afterCommit } from '../../db/afterCommit.ts';
import type { SqlExecutor } from '../../db/database.ts';
import { subscriptionIdsSql, type WebhookEventType } from '../webhooks/webhookEvents.ts';

/** The webhook events of passes (PassEntry API reference, webhooks; `passUpdated` is this service's). */
export type PassEventType = Extract<WebhookEventType, 'passCreated' | 'passInstalled' | 'passRemoved' | 'passScanned' | 'passUpdated'>;

/**
 * What happened to a pass:
 * - `issued`: created (alone or in a CSV batch): `passCreated`; its Google Wallet object is written;
 * - `updated`: changed by the API or a CSV update batch (content, status, message, loyalty
 *   balance): `passUpdated`, pushed to its wallets;
 * - `nullified`: voided: `passUpdated`, pushed;
 * - `scanned`: a scan or logged scan (`entityId`: its reader's entity): `passScanned`, pushed
 *   when it changed the balance;
 * - `redesigned`: its template's new design reached it: pushed, no event;
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
function routing(change: PassChange): { event: PassEventType | null; push: boolean; entityId: string | null } {
  const { event, push } = KINDS[change.kind];
  return { event, push: push || (change.kind === 'scanned' && change.balanceChanged === true), entityId: change.entityId ?? null };
}

/**
 * Two common table expressions for a statement whose CTE `changed` holds changed passes (their
 * `passes` rows), to join into its `WITH` list after `changed`: `routed` — `changed`'s rows with
 * `devices` (int: Apple devices registered), `google` (boolean: the account has Google
 * credentials) and `subscription_ids` (text[]) — and `outbox`, the outbox rows inserted (`id`),
 * one per pass that must be heard of.
 */
export function passChangeSql(change: PassChange): Prisma.Sql {
  const { event, push, entityId } = routing(change);
  const subscriptions = event ? subscriptionIdsSql(change.accountId, event, entityId) : Prisma.sql`'{}'::text[]`;
  return Prisma.sql`
    routed AS (
      SELECT c.*, (SELECT count(*)::int FROM apple_registrations r WHERE r.pass_id = c.id) AS devices,
             EXISTS (SELECT 1 FROM google_configurations g WHERE g.account_id = c.account_id) AS google,
             ${subscriptions} AS subscription_ids
        FROM changed c),
    outbox AS (
      INSERT INTO pass_change_outbox (account_id, pass_id, push, event_type, entity_id, subscription_ids, occurred_at)
      SELECT r.account_id, r.id, ${push}::boolean AND (r.devices > 0 OR r.google), ${event}::varchar, ${entityId}::uuid, r.subscription_ids::uuid[], ${change.at}
        FROM routed r
       WHERE (${push}::boolean AND (r.devices > 0 OR r.google)) OR cardinality(r.subscription_ids) > 0
      RETURNING id)`;
}

/**
 * Says, once the statement's or transaction's writes are committed, that outbox rows were written
 * by a statement built with {@link passChangeSql} (which selected their ids).
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
  const [written] = await tx.$queryRaw<{ outboxIds: string[]; devices: number }[]>`
    WITH changed AS (SELECT p.id, p.account_id FROM passes p WHERE p.id = ANY(${passIds}::uuid[])),
    ${passChangeSql(change)}
    SELECT ARRAY(SELECT id::text FROM outbox) AS "outboxIds", (SELECT COALESCE(sum(devices), 0)::int FROM routed) AS devices`;
  await passChangesWritten(tx, written?.outboxIds ?? []);
  return written?.devices ?? 0;
}

/** {@link announcePassChanges} for one pass. */
export function announcePassChange(tx: SqlExecutor, change: PassChange & { passId: string }): Promise<number> {
  return announcePassChanges(tx, change, [change.passId]);
}
