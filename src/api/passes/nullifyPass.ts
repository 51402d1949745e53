import type { OperationHandler } from '../../http/operation.ts';
import { accountOf } from '../../http/operation.ts';
import { nullifyStoredPass } from '../../domain/passes/passService.ts';
import { serializePass } from '../../domain/passes/serializePass.ts';

/**
 * `POST /api/v1/passes/{id}/nullify` (PassEntry API reference, "Nullify pass"): irreversible and
 * idempotent; answers 200 with the nullified pass.
 */
export const nullifyPass: OperationHandler<'nullifyPass'> = async ({ params, write, ctx }) => {
  const accountId = accountOf(ctx);
  const now = ctx.clock.now();
  const row = await write((tx) => nullifyStoredPass(tx, { accountId, idOrExtId: params.id, now }));
  ctx.log.info({ passId: row.id }, 'pass nullified');
  return { status: 200, body: { data: serializePass(row, ctx.baseUrl) } };
};
