/**
 * The `batchCompleted` webhook event (an extension of this service): recorded in the
 * transaction that gives a batch its final status (`successful`, `completedWithErrors`,
 * `failed`), with the batch as `getBatch` returns it in `included`, for the subscriptions of the
 * account and of the batch's entity (src/domain/webhooks/webhookEvents.ts).
 *
 * @module domain/batches/batchWebhooks
 */
import type { PrismaExecutor } from '../../db/database.ts';
import { recordWebhookEvent, serviceBaseUrl, type WebhookEventScope } from '../webhooks/webhookEvents.ts';
import type { Config } from '../../config.ts';
import type { BatchRow } from './batchStore.ts';
import { serializeBatch } from './serializeBatch.ts';

const FINAL = new Set(['successful', 'completedWithErrors', 'failed']);

/**
 * Records `batchCompleted` when `batch` (as a transition returned it) has a final status; nothing
 * for null (the transition did not happen) or another status.
 * @returns The batch, unchanged.
 */
export async function recordBatchCompleted(
  tx: PrismaExecutor,
  scope: WebhookEventScope & { config: Pick<Config, 'publicBaseUrl' | 'host' | 'port'> },
  batch: BatchRow | null,
  at: Date,
): Promise<BatchRow | null> {
  if (!batch || !FINAL.has(batch.status)) return batch;
  await recordWebhookEvent(tx, scope, {
    accountId: batch.accountId,
    entityId: batch.entityId,
    type: 'batchCompleted',
    subject: { relationship: 'batch', type: batch.type, id: batch.id },
    at,
    resource: () => serializeBatch(batch, serviceBaseUrl(scope.config)),
  });
  return batch;
}
