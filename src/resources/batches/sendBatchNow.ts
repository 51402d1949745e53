import type { OperationHandler } from '../../http/operation.ts';
import { accountOf } from '../../http/operation.ts';
import { WRITE_TRANSACTION } from '../../http/idempotency.ts';
import { actOnBatch } from './batchService.ts';
import { serializeBatch } from './serializeBatch.ts';

/**
 * `POST /api/v1/batches/{id}/send-now`: a `scheduled` batch becomes `sending` with `scheduledAt`
 * now, and a job to send it is enqueued in the same transaction (the job that waits for the old
 * `scheduledAt` later finds nothing to do).
 * @throws NotFoundError for an unknown batch; ConflictError when it is not `scheduled`.
 */
export const sendBatchNow: OperationHandler<'sendBatchNow'> = async ({ params, ctx }) => {
  const now = ctx.clock.now();
  const row = await ctx.db.prisma.$transaction(async (tx) => {
    const sending = await actOnBatch(tx, accountOf(ctx), params.id, 'sendNow', { status: 'sending', scheduledAt: now }, now);
    await ctx.jobs.send(tx, 'wallet-messaging', { batchId: sending.id });
    return sending;
  }, WRITE_TRANSACTION);
  ctx.log.info({ batchId: row.id }, 'wallet messaging batch sent now');
  return { status: 200, body: { data: serializeBatch(row, ctx.baseUrl) } };
};
