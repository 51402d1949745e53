import type { OperationHandler } from '../../http/operation.ts';
import { accountOf } from '../../http/operation.ts';
import { requireBatch, selectWalletCounts } from '../../domain/batches/batchStore.ts';
import { serializeBatch } from '../../domain/batches/serializeBatch.ts';

/** `GET /api/v1/batches/{id}`: one batch of the caller's account; another account's is a 404. */
export const getBatch: OperationHandler<'getBatch'> = async ({ params, ctx }) => {
  const row = await requireBatch(ctx.db.prisma, accountOf(ctx), params.id);
  const walletCounts = await selectWalletCounts(ctx.db.prisma, [row]);
  return { status: 200, body: { data: serializeBatch(row, ctx.baseUrl, walletCounts.get(row.id)) } };
};
