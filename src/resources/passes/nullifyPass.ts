import type { OperationHandler } from '../../http/operation.ts';
import { accountOf } from '../../http/operation.ts';
import { nullifyStoredPass } from './passService.ts';
import { recordPassEvent } from './passWebhooks.ts';
import { serializePass } from './serializePass.ts';

/**
 * `POST /api/v1/passes/{id}/nullify` (PassEntry API reference, "Nullify pass"): irreversible and
 * idempotent; answers 200 with the nullified pass.
 */
export const nullifyPass: OperationHandler<'nullifyPass'> = async ({ params, write, ctx }) => {
  const accountId = accountOf(ctx);
  const now = ctx.clock.now();
  const row = await write(async (tx) => {
    const nullified = await nullifyStoredPass(tx, ctx.jobs, { accountId, idOrExtId: params.id, now });
    // Nullifying a nullified pass changes nothing, and is no event.
    if (nullified.nullifiedAt?.getTime() === now.getTime()) await recordPassEvent(tx, ctx, { type: 'passUpdated', accountId, pass: nullified, at: now });
    return nullified;
  });
  ctx.log.info({ passId: row.id }, 'pass nullified');
  return { status: 200, body: { data: serializePass(row, ctx.baseUrl) } };
};
