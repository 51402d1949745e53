import type { OperationHandler } from '../../http/operation.ts';
import { accountOf } from '../../http/operation.ts';
import { passExtras } from '../../domain/passes/passService.ts';
import { showPass } from '../../domain/passes/passStore.ts';
import { serializeLoyalty } from '../../domain/loyalty/serializeLoyalty.ts';

/**
 * `GET /api/v1/loyalty/{id}` (PassEntry API reference: Show loyalty): a pass by UUID or extId with its balance in
 * `meta.loyalty.balance`, and the extras the `include…` parameters ask for.
 */
export const getLoyalty: OperationHandler<'getLoyalty'> = async ({ params, query, ctx }) => {
  const row = await showPass(ctx.db, accountOf(ctx), params.id);
  return { status: 200, body: serializeLoyalty(row, ctx.baseUrl, await passExtras(ctx.db.prisma, row, query, ctx)) };
};
