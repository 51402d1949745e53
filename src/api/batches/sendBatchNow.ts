import type { OperationHandler } from '../../http/operation.ts';
import { accountOf } from '../../http/operation.ts';
import { actOnBatch } from '../../domain/batches/batchService.ts';
import { walletMessagingQueue } from '../../domain/batches/batchQueues.ts';
import { passBatchJob } from '../../domain/batches/passBatchJob.ts';
import { serializeBatch } from '../../domain/batches/serializeBatch.ts';

/**
 * `POST /api/v1/batches/{id}/send-now` (PassEntry API reference, "Send batch now"): a `scheduled`
 * batch becomes `sending` with `scheduledAt` now, and a job to send it is enqueued in the same
 * transaction (the job that waits for the old `scheduledAt` later finds nothing to do).
 * @throws NotFoundError for an unknown batch; ConflictError when it is not `scheduled`.
 */
export const sendBatchNow: OperationHandler<'sendBatchNow'> = async ({ params, write, ctx }) => {
  const now = ctx.clock.now();
  const row = await write(async (tx) => {
    const sending = await actOnBatch(tx, accountOf(ctx), params.id, 'sendNow', { status: 'sending', scheduledAt: now }, now);
    // A CSV update batch has its own job (src/domain/batches/passBatchJob.ts).
    if (sending.type === 'walletMessaging') await ctx.jobs.send(tx, walletMessagingQueue, { batchId: sending.id });
    else await ctx.jobs.send(tx, passBatchJob, { batchId: sending.id });
    return sending;
  });
  ctx.log.info({ batchId: row.id }, 'wallet messaging batch sent now');
  return { status: 200, body: { data: serializeBatch(row, ctx.baseUrl) } };
};
