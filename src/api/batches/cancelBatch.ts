import type { OperationHandler } from '../../http/operation.ts';
import { accountOf } from '../../http/operation.ts';
import { actOnBatch } from '../../domain/batches/batchService.ts';
import { serializeBatch } from '../../domain/batches/serializeBatch.ts';

/**
 * `PATCH /api/v1/batches/{id}/cancel`: a `validating` or `scheduled` batch becomes `cancelled`;
 * its waiting job later finds nothing to do.
 * @throws NotFoundError for an unknown batch; ConflictError once sending has begun.
 */
export const cancelBatch: OperationHandler<'cancelBatch'> = async ({ params, ctx, write }) => {
  const now = ctx.clock.now();
  const row = await write((tx) => actOnBatch(tx, accountOf(ctx), params.id, 'cancel', { status: 'cancelled' }, now));
  ctx.log.info({ batchId: row.id }, 'wallet messaging batch cancelled');
  return { status: 200, body: { data: serializeBatch(row, ctx.baseUrl) } };
};
