import type { OperationHandler } from '../../http/operation.ts';
import { accountOf } from '../../http/operation.ts';
import { ValidationError } from '../../errors.ts';
import { queuePassDelivery } from '../../delivery/passChanged.ts';
import { recordPassEvent } from '../passes/passWebhooks.ts';
import { changePassBalance, type BalanceChange } from './loyaltyLedger.ts';
import { serializeLoyalty } from './serializeLoyalty.ts';

/**
 * Reads the change of an update body: exactly one of `balance` (delta) and `overrideBalance`.
 * @throws ValidationError when neither or both are given.
 */
export function balanceChangeOf(body: { balance?: number; overrideBalance?: number }): BalanceChange {
  if (body.balance !== undefined && body.overrideBalance !== undefined) {
    throw new ValidationError({ detail: 'Give either balance (a change) or overrideBalance (the new balance), not both.', source: { pointer: '/overrideBalance' } });
  }
  if (body.balance !== undefined) return { delta: body.balance };
  if (body.overrideBalance !== undefined) return { override: body.overrideBalance };
  throw new ValidationError({ detail: 'Give balance (a change) or overrideBalance (the new balance).', source: { pointer: '' } });
}

/**
 * `PATCH /api/v1/loyalty/{id}` (PassEntry API reference, "Update loyalty balance"): changes the
 * balance atomically, records it in the ledger (source `api`), keeps `message` as
 * `latestMessage`, and answers like `getLoyalty` with the balance this change produced. The
 * change, the push to the wallets that hold the pass and the `passUpdated` event are written in
 * one transaction — through the driver (`writeSql`), with the lookup, change, ledger row and
 * both "who must hear of it" checks in one statement (`changePassBalance`), so that a change
 * nobody must hear of is `BEGIN`, one statement, `COMMIT`, and the pass's row stays locked only
 * from that statement to the commit (plus a push or an event when there is one to write).
 */
export const updateLoyalty: OperationHandler<'updateLoyalty'> = async ({ params, body, writeSql, ctx }) => {
  const change = balanceChangeOf(body);
  const accountId = accountOf(ctx);
  const now = ctx.clock.now();
  return writeSql(async (tx) => {
    const changed = await changePassBalance(tx, { accountId, idOrExtId: params.id, change, source: 'api', message: body.message, now, event: 'passUpdated' });
    await queuePassDelivery(tx, ctx.jobs, changed.pass.id, changed);
    await recordPassEvent(tx, ctx, { type: 'passUpdated', accountId, pass: changed.pass, at: now, subscriptionIds: changed.subscriptionIds });
    return { status: 200 as const, body: serializeLoyalty(changed.pass, ctx.baseUrl) };
  });
};
