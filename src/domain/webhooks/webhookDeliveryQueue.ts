/**
 * The `webhook-delivery` queue as the domain fills it: recording a webhook event
 * (src/domain/webhooks/webhookEvents.ts) or enabling a subscription again queues the sending of
 * its pending deliveries, one job per (subscription, ordering key); src/delivery/webhookDeliveryJob.ts
 * works the queue and sends them.
 *
 * @module domain/webhooks/webhookDeliveryQueue
 */
import type { Config } from '../../config.ts';
import type { PrismaExecutor, SqlExecutor } from '../../db/database.ts';
import { declareQueue } from '../../jobs/jobDefinition.ts';
import type { JobQueue } from '../../jobs/queue.ts';
import type { DestinationPolicy } from '../../net/outboundRequest.ts';
import { selectPendingOrderingKeys } from './webhookDeliveryStore.ts';

/** A job's payload: the subscription and the ordering key whose pending deliveries it sends. */
export interface WebhookDeliveryPayload {
  subscriptionId: string;
  orderingKey: string;
}

/** The queue of webhook deliveries (its worker: src/delivery/webhookDeliveryJob.ts). */
export const webhookDeliveryQueue = declareQueue<WebhookDeliveryPayload>('webhook-delivery');

/** Where webhooks may go: public HTTPS addresses, or anything with `WEBHOOK_ALLOW_PRIVATE=true` (then also `http:` on loopback). */
export function webhookDestinationPolicy(config: Pick<Config, 'webhookAllowPrivate'>): DestinationPolicy {
  return { allowPrivate: config.webhookAllowPrivate, allowHttpLoopback: config.webhookAllowPrivate };
}

/** The singleton key of a delivery job: one job per (subscription, ordering key) waits at a time. */
export function webhookDeliverySingletonKey(payload: WebhookDeliveryPayload): string {
  return `${payload.subscriptionId}/${payload.orderingKey}`;
}

/**
 * Queues the sending of pending deliveries, in the caller's transaction: one job per
 * (subscription, ordering key), coalesced with one already waiting.
 */
export async function queueWebhookDeliveries(tx: SqlExecutor, jobs: JobQueue, keys: readonly WebhookDeliveryPayload[], startAfterSeconds = 0): Promise<void> {
  await jobs.sendMany(
    tx,
    webhookDeliveryQueue,
    keys.map((data) => ({ data, singletonKey: webhookDeliverySingletonKey(data), ...(startAfterSeconds > 0 ? { startAfterSeconds } : {}) })),
  );
}

/**
 * Queues the pending deliveries of a subscription again (after it was enabled again), in the
 * caller's transaction.
 */
export async function resumeWebhookDeliveries(tx: PrismaExecutor, jobs: JobQueue, subscriptionId: string): Promise<void> {
  const keys = await selectPendingOrderingKeys(tx, subscriptionId);
  await queueWebhookDeliveries(
    tx,
    jobs,
    keys.map((orderingKey) => ({ subscriptionId, orderingKey })),
  );
}
