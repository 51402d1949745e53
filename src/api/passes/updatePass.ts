import type { OperationHandler } from '../../http/operation.ts';
import { accountOf } from '../../http/operation.ts';
import { modifyPass } from '../../domain/passes/passService.ts';
import { serializePass } from '../../domain/passes/serializePass.ts';

/**
 * `PATCH /api/v1/passes/{id}` (PassEntry API reference, "Update pass"): applies the members given
 * in one transaction and answers with the pass and `meta.notifications`.
 */
export const updatePass: OperationHandler<'updatePass'> = async ({ params, body, write, ctx }) => {
  const accountId = accountOf(ctx);
  const now = ctx.clock.now();
  const { row, notifications } = await write((tx) => modifyPass(tx, { accountId, idOrExtId: params.id, body, now }));
  ctx.log.info({ passId: row.id, passAction: body.passAction }, 'pass updated');
  return { status: 200, body: { data: serializePass(row, ctx.baseUrl), meta: { notifications } } };
};
