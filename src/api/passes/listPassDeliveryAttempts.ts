import type { OperationHandler } from '../../http/operation.ts';
import { accountOf } from '../../http/operation.ts';
import { pageEnvelope, pageRequest } from '../../http/pagination.ts';
import { pageWindow } from '../../db/pagination.ts';
import { toTimestamp } from '../../domain/serialize.ts';
import { requirePass } from '../../domain/passes/passStore.ts';

type Outcome = 'delivered' | 'unregistered' | 'badToken' | 'certificateError' | 'retry' | 'rejected';

/**
 * `GET /api/v1/passes/{id}/delivery-attempts`: every push and Google Wallet call made for the
 * pass, newest first, paginated.
 * @throws NotFoundError for a pass the account does not have.
 */
export const listPassDeliveryAttempts: OperationHandler<'listPassDeliveryAttempts'> = async ({ params, query, url, ctx }) => {
  const page = pageRequest(query, 25);
  const pass = await requirePass(ctx.db.prisma, accountOf(ctx), params.id);
  const where = { passId: pass.id };
  const [rows, total] = await Promise.all([
    ctx.db.prisma.deliveryAttempt.findMany({ where, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], ...pageWindow(page) }),
    ctx.db.prisma.deliveryAttempt.count({ where }),
  ]);
  return {
    status: 200,
    body: {
      data: rows.map((row) => ({
        id: String(row.id),
        type: 'deliveryAttempt' as const,
        attributes: {
          channel: row.channel,
          target: row.target,
          operation: row.operation,
          outcome: row.outcome as Outcome,
          status: row.status,
          reason: row.reason,
          attempt: row.attempt,
          batchId: row.batchId,
          createdAt: toTimestamp(row.createdAt),
        },
      })),
      ...pageEnvelope(page, total, ctx.baseUrl, url),
    },
  };
};
