import type { OperationHandler } from '../../http/operation.ts';
import { accountOf } from '../../http/operation.ts';
import { WRITE_TRANSACTION } from '../../http/idempotency.ts';
import { modifyPass } from './passService.ts';
import { serializePass } from './serializePass.ts';

/**
 * `PATCH /api/v1/passes/{id}` (PassEntry pass update): applies the members given in one
 * transaction and answers with the pass and `meta.notifications`.
 */
export const updatePass: OperationHandler<'updatePass'> = async ({ params, body, ctx }) => {
  const accountId = accountOf(ctx);
  const now = ctx.clock.now();
  const { row, notifications } = await ctx.db.prisma.$transaction(
    (tx) => modifyPass(tx, { accountId, idOrExtId: params.id, body, now }),
    WRITE_TRANSACTION,
  );
  ctx.log.info({ passId: row.id, passAction: body.passAction }, 'pass updated');
  return { status: 200, body: { data: serializePass(row, ctx.baseUrl), meta: { notifications } } };
};
