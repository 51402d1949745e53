import type { OperationHandler } from '../../http/operation.ts';
import { accountOf } from '../../http/operation.ts';
import { ValidationError } from '../../errors.ts';
import { queuePassChange } from '../../delivery/passChanged.ts';
import { requirePass } from '../passes/passStore.ts';
import { recordPassEvent } from '../passes/passWebhooks.ts';
import { changeLoyaltyBalance, type BalanceChange } from './loyaltyLedger.ts';
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
 * change and the push to the devices that hold the pass are queued in one transaction.
 */
export const updateLoyalty: OperationHandler<'updateLoyalty'> = async ({ params, body, write, ctx }) => {
  const change = balanceChangeOf(body);
  const accountId = accountOf(ctx);
  const now = ctx.clock.now();
  return write(async (tx) => {
    const pass = await requirePass(tx, accountId, params.id);
    // The push is queued before the balance changes: the change locks the pass's row until the
    // transaction ends, so the less that follows it, the less concurrent changes of the pass wait.
    await queuePassChange(tx, ctx.jobs, pass.id);
    const { balance } = await changeLoyaltyBalance(tx, { accountId, passId: pass.id, change, source: 'api', message: body.message, now });
    const updated = { ...pass, balance, latestMessage: body.message ?? pass.latestMessage, updatedAt: now };
    await recordPassEvent(tx, ctx, { type: 'passUpdated', accountId, pass: updated, at: now });
    return { status: 200 as const, body: serializeLoyalty(updated, ctx.baseUrl) };
  });
};
