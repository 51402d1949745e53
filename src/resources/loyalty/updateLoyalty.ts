import type { OperationHandler } from '../../http/operation.ts';
import { accountOf } from '../../http/operation.ts';
import { ValidationError } from '../../http/errors.ts';
import { idempotencyKeyOf, runIdempotent } from '../../http/idempotency.ts';
import { requirePass } from '../passes/passStore.ts';
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
 * `PATCH /api/v1/loyalty/{id}` (PassEntry loyalty update): changes the balance atomically,
 * records it in the ledger (source `api`), keeps `message` as `latestMessage`, and answers like
 * `getLoyalty` with the balance this change produced. Without `Idempotency-Key` the change is one
 * SQL statement on the client (no interactive transaction); with one, it runs in the key's
 * transaction.
 */
export const updateLoyalty: OperationHandler<'updateLoyalty'> = async ({ params, body, headers, url, ctx }) => {
  const change = balanceChangeOf(body);
  const accountId = accountOf(ctx);
  const now = ctx.clock.now();
  const request = { key: idempotencyKeyOf(headers), accountId, operationId: 'updateLoyalty' as const, url, body };
  return runIdempotent(
    ctx.db,
    request,
    now,
    async (db) => {
      const pass = await requirePass(db, accountId, params.id);
      const { balance } = await changeLoyaltyBalance(db, { accountId, passId: pass.id, change, source: 'api', message: body.message, now });
      const updated = { ...pass, balance, latestMessage: body.message ?? pass.latestMessage };
      return { status: 200 as const, body: serializeLoyalty(updated, ctx.baseUrl) };
    },
    { atomic: true },
  );
};
