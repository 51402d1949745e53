import type { OperationHandler } from '../../http/operation.ts';
import { accountOf } from '../../http/operation.ts';
import { pageEnvelope, pageRequest } from '../../http/pagination.ts';
import { selectBatchPage, selectWalletCounts } from '../../domain/batches/batchStore.ts';
import { serializeBatch } from '../../domain/batches/serializeBatch.ts';

/** Default page size of batch lists (PassEntry API reference: List batches; limits: 25). */
export const BATCHES_PER_PAGE = 25;

/** `GET /api/v1/batches` (PassEntry API reference: List batches): the caller's batches, newest first, optionally of one `type`. */
export const listBatches: OperationHandler<'listBatches'> = async ({ query, url, ctx }) => {
  const page = pageRequest(query, BATCHES_PER_PAGE);
  const { rows, total } = await selectBatchPage(ctx.db.prisma, accountOf(ctx), query.type, page);
  const walletCounts = await selectWalletCounts(ctx.db.prisma, rows);
  return {
    status: 200,
    body: { data: rows.map((row) => serializeBatch(row, ctx.baseUrl, walletCounts.get(row.id))), ...pageEnvelope(page, total, ctx.baseUrl, url) },
  };
};
