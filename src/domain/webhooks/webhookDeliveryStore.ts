/**
 * Database access for webhook events, their deliveries and the deliveries' attempts
 * (`webhook_events`, `webhook_deliveries`, `webhook_delivery_attempts`): what recording an event
 * (src/domain/webhooks/webhookEvents.ts) and delivering it (src/delivery/webhookDeliveryJob.ts)
 * read and write.
 *
 * @module domain/webhooks/webhookDeliveryStore
 */
import { Prisma } from '../../../generated/prisma/client.ts';
import type { PrismaExecutor, SqlExecutor } from '../../db/database.ts';
import { queryRow, queryRows } from '../../db/rows.ts';

/** A (subscription, ordering key) with pending deliveries: the key of one delivery job. */
export interface DeliveryKey {
  subscriptionId: string;
  orderingKey: string;
}

/** A webhook subscription as its deliveries see it (now: a rotated secret applies to the next request). */
export interface DeliverySubscription {
  id: string;
  url: string;
  secretEncrypted: Uint8Array;
  enabled: boolean;
}

/** A pending delivery with its event's payload (the body to send). */
export interface PendingDelivery {
  id: string;
  eventId: string;
  payload: string;
  attempts: number;
  nextAttemptAt: Date;
  createdAt: Date;
}

/** A new event and the subscriptions that get it. */
export interface NewWebhookEvent {
  id: string;
  accountId: string;
  /** The `webhookType`. */
  type: string;
  payload: unknown;
  at: Date;
  /** Deliveries of one key are sent in order (a pass's id, or `test`). */
  orderingKey: string;
  subscriptionIds: readonly string[];
}

/** One attempt of a delivery, as stored. */
export interface DeliveryAttempt {
  subscriptionId: string;
  deliveryId: string;
  /** 1 for the first attempt. */
  attempt: number;
  requestId: string;
  outcome: 'delivered' | 'httpError' | 'timeout' | 'networkError' | 'refused';
  /** The HTTP status answered (0: none). */
  status: number;
  responseSnippet: string | null;
  error: string | null;
  durationMs: number;
  /** When the delivery is tried again (null: not again). */
  nextAttemptAt: Date | null;
  at: Date;
}

/**
 * Stores an event and one pending delivery of it per subscription, after removing up to
 * `prune.limit` of the account's events older than `prune.days` days (with their deliveries and
 * attempts), in the caller's transaction.
 */
export async function insertWebhookEvent(tx: SqlExecutor, event: NewWebhookEvent, prune: { days: number; limit: number }): Promise<void> {
  await tx.$executeRaw`
    DELETE FROM webhook_events WHERE id IN (
      SELECT id FROM webhook_events
       WHERE account_id = ${event.accountId}::uuid AND occurred_at < ${event.at}::timestamptz - make_interval(days => ${prune.days})
       ORDER BY occurred_at LIMIT ${prune.limit})`;
  await tx.$executeRaw`
    INSERT INTO webhook_events (id, account_id, event_type, payload, occurred_at)
    VALUES (${event.id}::uuid, ${event.accountId}::uuid, ${event.type}, ${JSON.stringify(event.payload)}, ${event.at})`;
  await tx.$executeRaw`
    INSERT INTO webhook_deliveries (id, subscription_id, event_id, ordering_key, next_attempt_at, created_at)
    SELECT gen_random_uuid(), s, ${event.id}::uuid, ${event.orderingKey}, ${event.at}, ${event.at}
      FROM unnest(${[...event.subscriptionIds]}::uuid[]) AS s`;
}

/** The ordering keys of a subscription's pending deliveries. */
export async function selectPendingOrderingKeys(prisma: PrismaExecutor, subscriptionId: string): Promise<string[]> {
  const rows = await queryRows<{ orderingKey: string }>(
    prisma,
    Prisma.sql`SELECT DISTINCT ordering_key FROM webhook_deliveries WHERE subscription_id = ${subscriptionId}::uuid AND status = 'pending'`,
  );
  return rows.map((row) => row.orderingKey);
}

/** Every key with pending deliveries of an enabled subscription. */
export function selectPendingDeliveryKeys(prisma: PrismaExecutor): Promise<DeliveryKey[]> {
  return queryRows<DeliveryKey>(
    prisma,
    Prisma.sql`
      SELECT DISTINCT d.subscription_id::text AS subscription_id, d.ordering_key
        FROM webhook_deliveries d JOIN webhook_subscriptions s ON s.id = d.subscription_id
       WHERE d.status = 'pending' AND s.enabled`,
  );
}

/**
 * The subscription and the oldest pending delivery of the key, in one query; `more` when another
 * one waits behind it.
 * @returns No subscription when it was deleted (its deliveries went with it).
 */
export async function selectNextDelivery(
  prisma: PrismaExecutor,
  key: DeliveryKey,
): Promise<{ subscription?: DeliverySubscription; head?: PendingDelivery; more: boolean }> {
  const rows = await queryRows<DeliverySubscription & { delivery: PendingDelivery | null }>(
    prisma,
    Prisma.sql`
      SELECT s.id::text AS id, s.url, s.secret_encrypted, s.enabled,
             CASE WHEN d.id IS NULL THEN NULL ELSE json_build_object('id', d.id, 'eventId', d.event_id, 'payload', e.payload, 'attempts', d.attempts,
               'nextAttemptAt', d.next_attempt_at, 'createdAt', d.created_at) END AS delivery
        FROM webhook_subscriptions s
        LEFT JOIN LATERAL (
          SELECT id, event_id, attempts, next_attempt_at, created_at FROM webhook_deliveries
           WHERE subscription_id = s.id AND ordering_key = ${key.orderingKey} AND status = 'pending'
           ORDER BY sequence LIMIT 2) d ON true
        LEFT JOIN webhook_events e ON e.id = d.event_id
       WHERE s.id = ${key.subscriptionId}::uuid`,
  );
  const [first] = rows;
  if (!first) return { more: false };
  const { delivery, ...subscription } = first;
  const head = delivery ? { ...delivery, nextAttemptAt: new Date(delivery.nextAttemptAt), createdAt: new Date(delivery.createdAt) } : undefined;
  return { subscription, ...(head ? { head } : {}), more: rows.length > 1 };
}

/**
 * Stores a successful attempt in one statement (atomic without a transaction): the attempt, the
 * delivery `delivered`, the subscription's run of failures ended.
 */
export async function recordDeliveredAttempt(prisma: PrismaExecutor, attempt: DeliveryAttempt): Promise<void> {
  const { subscriptionId, deliveryId, at } = attempt;
  await prisma.$executeRaw`
    WITH attempt AS (
      INSERT INTO webhook_delivery_attempts (subscription_id, delivery_id, attempt, request_id, outcome, status, response_snippet, error, duration_ms, next_attempt_at, created_at)
      VALUES (${subscriptionId}::uuid, ${deliveryId}::uuid, ${attempt.attempt}, ${attempt.requestId}::uuid, 'delivered', ${attempt.status},
              ${attempt.responseSnippet}, NULL, ${attempt.durationMs}, NULL, ${at})),
    delivery AS (
      UPDATE webhook_deliveries SET attempts = ${attempt.attempt}, status = 'delivered', completed_at = ${at} WHERE id = ${deliveryId}::uuid)
    UPDATE webhook_subscriptions SET consecutive_failures = 0 WHERE id = ${subscriptionId}::uuid AND consecutive_failures <> 0`;
}

/**
 * Stores a failed attempt and its delivery's new state, in the caller's transaction: `pending`
 * until `attempt.nextAttemptAt` (kept when null), or `failed` (then completed at `attempt.at`).
 */
export async function recordFailedAttempt(tx: PrismaExecutor, attempt: DeliveryAttempt, status: 'pending' | 'failed'): Promise<void> {
  const { subscriptionId, deliveryId, nextAttemptAt, at } = attempt;
  await tx.$executeRaw`
    INSERT INTO webhook_delivery_attempts (subscription_id, delivery_id, attempt, request_id, outcome, status, response_snippet, error, duration_ms, next_attempt_at, created_at)
    VALUES (${subscriptionId}::uuid, ${deliveryId}::uuid, ${attempt.attempt}, ${attempt.requestId}::uuid, ${attempt.outcome}, ${attempt.status},
            ${attempt.responseSnippet}, ${attempt.error}, ${attempt.durationMs}, ${nextAttemptAt}, ${at})`;
  await tx.$executeRaw`
    UPDATE webhook_deliveries
       SET attempts = ${attempt.attempt}, status = ${status}::"WebhookDeliveryStatus", next_attempt_at = COALESCE(${nextAttemptAt}::timestamptz, next_attempt_at),
           completed_at = ${status === 'pending' ? null : at}::timestamptz
     WHERE id = ${deliveryId}::uuid`;
}

/**
 * Counts a failed delivery in its subscription's run of failures and disables the subscription,
 * with `reason`, when the run reaches `disableAfter`.
 * @returns Whether the subscription is disabled now (also when it is gone).
 */
export async function countFailedDelivery(tx: PrismaExecutor, subscriptionId: string, disableAfter: number, reason: string, now: Date): Promise<boolean> {
  const row = await queryRow<{ enabled: boolean }>(
    tx,
    Prisma.sql`
      UPDATE webhook_subscriptions
         SET consecutive_failures = consecutive_failures + 1,
             enabled = enabled AND consecutive_failures + 1 < ${disableAfter},
             disabled_reason = CASE WHEN enabled AND consecutive_failures + 1 >= ${disableAfter} THEN ${reason} ELSE disabled_reason END,
             disabled_at = CASE WHEN enabled AND consecutive_failures + 1 >= ${disableAfter} THEN ${now}::timestamptz ELSE disabled_at END,
             updated_at = ${now}
       WHERE id = ${subscriptionId}::uuid
       RETURNING enabled`,
  );
  return row ? !row.enabled : true;
}
