import type { OperationHandler } from '../../http/operation.ts';
import { accountOf } from '../../http/operation.ts';
import { queuePassChange } from '../../delivery/passChanged.ts';
import { issuePass, passExtras } from './passService.ts';
import { recordPassEvent } from './passWebhooks.ts';
import { serializePass } from './serializePass.ts';

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
    await recordPassEvent(tx, ctx, { type: 'passCreated', accountId, pass: row, at: now });
    // With Google credentials the pass's Google Wallet object is written (delivery/passChanged.ts).
    await queuePassChange(tx, ctx.jobs, row.id);
    ctx.log.info({ passId: row.id, templateId: row.templateId }, 'pass issued');
    return { status: 200 as const, body: { data: serializePass(row, ctx.baseUrl, await passExtras(tx, row, query, ctx)) } };
  });
};
