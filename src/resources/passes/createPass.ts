import type { OperationHandler } from '../../http/operation.ts';
import { accountOf } from '../../http/operation.ts';
import { idempotencyKeyOf, runIdempotent } from '../../http/idempotency.ts';
import { issuePass, passExtras } from './passService.ts';
import { serializePass } from './serializePass.ts';

/**
 * `POST /api/v1/passes?passTemplate=…[&extId=…]` (PassEntry pass create): issues a pass from a
 * processed template and answers 200 with it, with the extras the `include…` parameters ask
 * for. Guarded by `Idempotency-Key` when sent.
 */
export const createPass: OperationHandler<'createPass'> = async ({ query, body, headers, url, ctx }) => {
  const accountId = accountOf(ctx);
  const now = ctx.clock.now();
  const request = { key: idempotencyKeyOf(headers), accountId, operationId: 'createPass' as const, url, body };
  return runIdempotent(ctx.db, request, now, async (tx) => {
    const row = await issuePass(tx, { accountId, templateId: query.passTemplate, extId: query.extId ?? null, body, now });
    ctx.log.info({ passId: row.id, templateId: row.templateId }, 'pass issued');
    return { status: 200 as const, body: { data: serializePass(row, ctx.baseUrl, await passExtras(tx, row, query)) } };
  });
};
