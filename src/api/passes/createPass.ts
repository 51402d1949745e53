import type { OperationHandler } from '../../http/operation.ts';
import { accountOf } from '../../http/operation.ts';
import { issuePass, passExtras } from '../../domain/passes/passService.ts';
import { serializePass } from '../../domain/passes/serializePass.ts';

/**
 * `POST /api/v1/passes?passTemplate=…[&extId=…]` (PassEntry API reference, "Create pass"):
 * issues a pass from a processed template and answers 200 with it, with the extras the
 * `include…` parameters ask for.
 */
export const createPass: OperationHandler<'createPass'> = async ({ query, body, write, ctx }) => {
  const accountId = accountOf(ctx);
  const now = ctx.clock.now();
  return write(async (tx) => {
    const row = await issuePass(tx, { accountId, templateId: query.passTemplate, extId: query.extId ?? null, body, now });
    ctx.log.info({ passId: row.id, templateId: row.templateId }, 'pass issued');
    return { status: 200 as const, body: { data: serializePass(row, ctx.baseUrl, await passExtras(tx, row, query, ctx)) } };
  });
};
