/**
 * The API's writes on batches: create a wallet messaging batch with its first job, and
 * the `sendBatchNow` and `cancelBatch` transitions. The job's side is batchSender.ts.
 *
 * @module domain/batches/batchService
 */
import type { PrismaExecutor } from '../../db/database.ts';
import type { JobQueue } from '../../jobs/queue.ts';
import { walletMessagingQueue } from './batchQueues.ts';
import { requireAccountEntity } from '../entities/entityStore.ts';
import { ALLOWED_FROM, checkNewBatch, defaultBatchName, refusedTransition, type BatchAction, type WalletMessagingBatchCreate } from './batchRules.ts';
import { insertBatch, requireBatch, transitionBatch, type BatchChanges, type BatchRow } from './batchStore.ts';

/**
 * Creates a wallet messaging batch, `validating`, and enqueues its first job (validation, at
 * once), in the caller's transaction.
 * @param batch The validated `batch` member of the request.
 * @throws NotFoundError (parameter `entity_id`) for an entity the account does not have;
 *   ValidationError for the rules of `checkNewBatch`.
 */
export async function scheduleWalletMessage(
  tx: PrismaExecutor,
  jobs: JobQueue,
  request: { accountId: string; entityId: string; batch: WalletMessagingBatchCreate; now: Date },
): Promise<BatchRow> {
  const { accountId, batch, now } = request;
  const scheduledAt = checkNewBatch(batch, now);
  const entity = await requireAccountEntity(tx, accountId, request.entityId, 'entity_id');
  const row = await insertBatch(
    tx,
    {
      accountId,
      entityId: entity.id,
      name: batch.name ?? defaultBatchName(now),
      tag: batch.tag ?? null,
      content: batch.message,
      scheduledAt,
      segmentTags: [...new Set((batch.segments ?? []).map((s) => s.groupTag))],
      createdAt: now,
    },
    (batch.recipients ?? []).map((r) => ({ passRef: r.passId, variables: r.variables ?? {} })),
  );
  await jobs.send(tx, walletMessagingQueue, { batchId: row.id });
  return row;
}

/**
 * Applies an API action to a batch if its status allows it, as one compare-and-set, so that a
 * job moving the batch at the same moment cannot be overridden.
 * @param changes What the action writes.
 * @throws NotFoundError when the account has no such batch; ConflictError when its status does
 *   not allow the action.
 */
export async function actOnBatch(
  prisma: PrismaExecutor,
  accountId: string,
  id: string,
  action: BatchAction,
  changes: BatchChanges,
  now: Date,
): Promise<BatchRow> {
  const row = await transitionBatch(prisma, accountId, id, ALLOWED_FROM[action], changes, now);
  if (row) return row;
  const current = await requireBatch(prisma, accountId, id);
  throw refusedTransition(id, current.status, action);
}
