import type { OperationHandler } from '../../http/operation.ts';
import { accountOf } from '../../http/operation.ts';
import { idempotencyKeyOf, runIdempotent } from '../../http/idempotency.ts';
import { nullifyStoredPass } from './passService.ts';
import { serializePass } from './serializePass.ts';

/**
 * `POST /api/v1/passes/{id}/nullify` (PassEntry nullify): irreversible and idempotent; answers
 * 200 with the nullified pass. Guarded by `Idempotency-Key` when sent.
 */
export const nullifyPass: OperationHandler<'nullifyPass'> = async ({ params, headers, url, ctx }) => {
  const accountId = accountOf(ctx);
  const now = ctx.clock.now();
  const request = { key: idempotencyKeyOf(headers), accountId, operationId: 'nullifyPass' as const, url, body: undefined };
  return runIdempotent(ctx.db, request, now, async (tx) => {
    const row = await nullifyStoredPass(tx, { accountId, idOrExtId: params.id, now });
    ctx.log.info({ passId: row.id }, 'pass nullified');
    return { status: 200 as const, body: { data: serializePass(row, ctx.baseUrl) } };
  });
};
