import type { OperationHandler } from '../../http/operation.ts';
import { accountOf } from '../../http/operation.ts';
import { passExtras } from '../../domain/passes/passService.ts';
import { showPass } from '../../domain/passes/passStore.ts';
import { serializePass } from '../../domain/passes/serializePass.ts';

/**
 * `GET /api/v1/passes/{id}` (PassEntry API reference: Show a pass): a pass by UUID or extId, with the extras the
 * `include…` parameters ask for. Another account's pass is a 404.
 */
export const getPass: OperationHandler<'getPass'> = async ({ params, query, ctx }) => {
  const row = await showPass(ctx.db, accountOf(ctx), params.id);
  return { status: 200, body: { data: serializePass(row, ctx.baseUrl, await passExtras(ctx.db.prisma, row, query, ctx)) } };
};
