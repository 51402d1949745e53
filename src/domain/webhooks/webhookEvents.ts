/**
 * Webhook events, recorded in the transaction of the change that causes them (a transactional
 * outbox: a rolled-back change records nothing, a committed one is delivered even if the process
 * dies right after). For each enabled subscription of the account that listens to the event, a
 * delivery row is written and a `webhook-delivery` job queued (src/delivery/webhookDeliveryJob.ts),
 * in the same transaction.
 *
 * The body is PassEntry's (PassEntry API reference, webhooks): a JSON:API document whose `data`
 * is a `webhook` resource object — `attributes { timeStamp, webhookType }` and a relationship to
 * the subject (the pass; for this service's extra events the batch or the pass template) — and
 * whose `included` holds the subject as its GET operation returns it. It is built once, when the
 * event happens, and stored as text, so every retry sends the same bytes.
 *
 * Events are kept {@link EVENT_RETENTION_DAYS} days with their deliveries and attempts: each new
 * event of an account removes up to {@link PRUNED_PER_EVENT} of the account's older ones.
 *
 * @module domain/webhooks/webhookEvents
 */
import { randomUUID } from 'node:crypto';
import type { components } from '../../../generated/api.d.ts';
import type { Config } from '../../config.ts';
import type { SqlExecutor } from '../../db/database.ts';
import type { JobQueue } from '../../jobs/queue.ts';
import { queueWebhookDeliveries } from './webhookDeliveryQueue.ts';
import { insertWebhookEvent } from './webhookDeliveryStore.ts';
import { selectSubscriptionIds } from './webhookSubscriptionStore.ts';

/** How long events, their deliveries and their attempts are kept, in days. */
export const EVENT_RETENTION_DAYS = 30;
/** The most expired events one new event removes (the pruning stays a small, bounded statement). */
const PRUNED_PER_EVENT = 100;

/** An event a subscription can listen to (contract `WebhookEventType`). */
export type WebhookEventType = components['schemas']['WebhookEventType'];
/** `webhookType` of a delivered webhook: an event type or `test` (contract `WebhookType`). */
export type WebhookType = components['schemas']['WebhookType'];

/** The subject of an event, as its relationship in the webhook resource object names it. */
export type WebhookSubject =
  | { relationship: 'pass'; type: 'pass'; id: string }
  | { relationship: 'batch'; type: 'walletMessaging' | 'passCreation' | 'passUpdate'; id: string }
  | { relationship: 'passTemplate'; type: 'passTemplate'; id: string };

/** An event to record. */
export interface WebhookEventInput {
  accountId: string;
  /** The entity the event happened at (a scan's reader, a batch), or null: then only `organisation` subscriptions get it. */
  entityId: string | null;
  type: WebhookEventType;
  subject: WebhookSubject;
  /** When it happened (the service clock). */
  at: Date;
  /**
   * The subject as its GET operation returns it (for `included`); called only when some
   * subscription listens, inside the transaction.
   */
  resource: () => unknown;
  /** The subscriptions that get it, when the caller's statement selected them already (`subscriptionIdsSql`, src/domain/webhooks/webhookSubscriptionStore.ts). */
  subscriptionIds?: string[];
}

/** What records events: the job queue, and what jobs outside a request need to build links. */
export interface WebhookEventScope {
  jobs: JobQueue;
}

/** The `timeStamp` form: ISO 8601 UTC with whole seconds (contract `Timestamp`). */
export function webhookTimestamp(at: Date): string {
  return at.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/**
 * The base of links in what jobs build outside a request (a webhook's `included` pass):
 * `PUBLIC_BASE_URL`, or the address the server listens on.
 */
export function serviceBaseUrl(config: Pick<Config, 'publicBaseUrl' | 'host' | 'port'>): string {
  return config.publicBaseUrl ?? `http://${config.host}:${config.port}`;
}

/**
 * Records an event for the subscriptions that listen to it, in the caller's transaction.
 * @returns How many subscriptions will get it (0: nothing was written).
 */
export async function recordWebhookEvent(tx: SqlExecutor, scope: WebhookEventScope, event: WebhookEventInput): Promise<number> {
  const subscriptionIds = event.subscriptionIds ?? (await selectSubscriptionIds(tx, event.accountId, event.type, event.entityId));
  if (!subscriptionIds.length) return 0;
  const id = randomUUID();
  const { relationship, type, id: subjectId } = event.subject;
  const payload = {
    data: {
      id,
      type: 'webhook',
      attributes: { timeStamp: webhookTimestamp(event.at), webhookType: event.type },
      relationships: { [relationship]: { data: { id: subjectId, type } } },
    },
    included: [await event.resource()],
  };
  await storeEvent(tx, scope, { id, accountId: event.accountId, type: event.type, payload, at: event.at, orderingKey: subjectId, subscriptionIds });
  return subscriptionIds.length;
}

/**
 * Records a `test` event for one subscription (`sendWebhookTestEvent`), in the caller's transaction.
 * @returns The body that will be sent.
 */
export async function recordWebhookTestEvent(tx: SqlExecutor, scope: WebhookEventScope, test: { accountId: string; subscriptionId: string; at: Date }) {
  const id = randomUUID();
  const payload = { data: { id, type: 'webhook' as const, attributes: { timeStamp: webhookTimestamp(test.at), webhookType: 'test' as const } } };
  await storeEvent(tx, scope, {
    id,
    accountId: test.accountId,
    type: 'test',
    payload,
    at: test.at,
    orderingKey: 'test',
    subscriptionIds: [test.subscriptionId],
  });
  return payload;
}

async function storeEvent(
  tx: SqlExecutor,
  scope: WebhookEventScope,
  event: { id: string; accountId: string; type: WebhookType; payload: unknown; at: Date; orderingKey: string; subscriptionIds: string[] },
): Promise<void> {
  await insertWebhookEvent(tx, event, { days: EVENT_RETENTION_DAYS, limit: PRUNED_PER_EVENT });
  await queueWebhookDeliveries(
    tx,
    scope.jobs,
    event.subscriptionIds.map((subscriptionId) => ({ subscriptionId, orderingKey: event.orderingKey })),
  );
}
