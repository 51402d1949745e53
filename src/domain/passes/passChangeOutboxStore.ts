/**
 * Database access for the pass-change outbox (`pass_change_outbox`): the rows
 * src/domain/passes/passChanges.ts (the only caller of the writing functions) writes and
 * src/delivery/passChangeRelay.ts takes. Taking a row deletes it, so a row is relayed once, by
 * whoever deletes it.
 *
 * @module domain/passes/passChangeOutboxStore
 */
import { Prisma } from '../../../generated/prisma/client.ts';
import type { SqlExecutor } from '../../db/database.ts';
import { queryRow, queryRows } from '../../db/rows.ts';
import type { WebhookEventType } from '../webhooks/webhookEvents.ts';
import { subscriptionIdsSql } from '../webhooks/webhookSubscriptionStore.ts';

/** The webhook events of passes (PassEntry API reference, webhooks; `passUpdated` is this service's). */
export type PassEventType = Extract<WebhookEventType, 'passCreated' | 'passInstalled' | 'passRemoved' | 'passScanned' | 'passUpdated'>;

/** Where one change goes, as an outbox row stores it (src/domain/passes/passChanges.ts decides it). */
export interface PassChangeRoute {
  accountId: string;
  /** The change's webhook event, or null. */
  event: PassEventType | null;
  /** The wallets that hold the pass hear of it. */
  push: boolean;
  /**
   * Only Apple devices hear of it: Google Wallet gets it otherwise (a redesign reaches Google
   * through the template's class and the `google-object-rewrite` job, src/delivery/googleObjectRewriteJob.ts).
   */
  appleOnly?: boolean;
  /** The entity it happened at, or null. */
  entityId: string | null;
  /** When it happened. */
  at: Date;
}

/**
 * Two common table expressions for a statement whose CTE `changed` holds changed passes (their
 * `passes` rows), to join into its `WITH` list after `changed`: `routed` — `changed`'s rows with
 * `devices` (int: Apple devices registered), `google` (boolean: the account has Google
 * credentials) and `subscription_ids` (text[]) — and `outbox`, the outbox rows inserted (`id`),
 * one per pass that must be heard of.
 */
export function passChangeSql(route: PassChangeRoute): Prisma.Sql {
  const { event, push, entityId } = route;
  const google = route.appleOnly ? Prisma.sql`false` : Prisma.sql`EXISTS (SELECT 1 FROM google_configurations g WHERE g.account_id = c.account_id)`;
  const subscriptions = event ? subscriptionIdsSql(route.accountId, event, entityId) : Prisma.sql`'{}'::text[]`;
  return Prisma.sql`
    routed AS (
      SELECT c.*, (SELECT count(*)::int FROM apple_registrations r WHERE r.pass_id = c.id) AS devices,
             ${google} AS google,
             ${subscriptions} AS subscription_ids
        FROM changed c),
    outbox AS (
      INSERT INTO pass_change_outbox (account_id, pass_id, push, event_type, entity_id, subscription_ids, occurred_at)
      SELECT r.account_id, r.id, ${push}::boolean AND (r.devices > 0 OR r.google), ${event}::varchar, ${entityId}::uuid, r.subscription_ids::uuid[], ${route.at}
        FROM routed r
       WHERE (${push}::boolean AND (r.devices > 0 OR r.google)) OR cardinality(r.subscription_ids) > 0
      RETURNING id)`;
}

/**
 * Writes the outbox rows of a change of passes, in one statement ({@link passChangeSql}).
 * Passes that do not exist are skipped.
 * @param passIds Pass UUIDs.
 * @returns The ids of the rows written, and how many Apple devices are registered for the passes.
 */
export async function insertPassChanges(
  tx: SqlExecutor,
  route: PassChangeRoute,
  passIds: readonly string[],
): Promise<{ outboxIds: string[]; devices: number }> {
  const written = await queryRow<{ outboxIds: string[]; devices: number }>(
    tx,
    Prisma.sql`
      WITH changed AS (SELECT p.id, p.account_id FROM passes p WHERE p.id = ANY(${passIds}::uuid[])),
      ${passChangeSql(route)}
      SELECT ARRAY(SELECT id::text FROM outbox) AS outbox_ids, (SELECT COALESCE(sum(devices), 0)::int FROM routed) AS devices`,
  );
  return written ?? { outboxIds: [], devices: 0 };
}

/** An outbox row, as taken. */
export interface PassChangeEntry {
  accountId: string;
  passId: string;
  /** Queue the pass's `pass-changed` job (it is in a wallet, or its account has Google credentials). */
  push: boolean;
  /** The change's webhook event, or null. */
  eventType: PassEventType | null;
  /** The entity it happened at, or null. */
  entityId: string | null;
  /** The subscriptions that get the event (empty: none). */
  subscriptionIds: string[];
  /** When the change happened: the event's `timeStamp`. */
  occurredAt: Date;
}

const ENTRY_COLUMNS = Prisma.raw(`account_id::text AS account_id, pass_id::text AS pass_id, push, event_type, entity_id::text AS entity_id,
  COALESCE(subscription_ids::text[], '{}') AS subscription_ids, occurred_at`);

/** Deletes the given rows and returns those that were still there. */
export function deletePassChanges(tx: SqlExecutor, ids: readonly string[]): Promise<PassChangeEntry[]> {
  return queryRows<PassChangeEntry>(tx, Prisma.sql`DELETE FROM pass_change_outbox WHERE id = ANY(${ids}::uuid[]) RETURNING ${ENTRY_COLUMNS}`);
}

/**
 * Deletes and returns up to `limit` rows older than `ageSeconds` (by the database clock), oldest
 * first, skipping rows another transaction holds (`FOR UPDATE SKIP LOCKED`).
 */
export function takePendingPassChanges(tx: SqlExecutor, ageSeconds: number, limit: number): Promise<PassChangeEntry[]> {
  return queryRows<PassChangeEntry>(
    tx,
    Prisma.sql`
      DELETE FROM pass_change_outbox WHERE id IN (
        SELECT id FROM pass_change_outbox
         WHERE created_at < now() - make_interval(secs => ${ageSeconds})
         ORDER BY created_at LIMIT ${limit} FOR UPDATE SKIP LOCKED)
      RETURNING ${ENTRY_COLUMNS}`,
  );
}
