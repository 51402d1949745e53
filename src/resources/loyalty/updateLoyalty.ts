import type { OperationHandler } from '../../http/operation.ts';
import { accountOf } from '../../http/operation.ts';
import { ValidationError } from '../../errors.ts';
import { relayPassChange } from '../passes/passChangeOutbox.ts';
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
 * `latestMessage`, and answers like `getLoyalty` with the balance this change produced.
 *
 * The change is one autocommit statement (`changePassBalance`): it finds, locks and changes the
 * pass, writes the ledger row and — when the change must reach a wallet or a `passUpdated`
 * subscription — a pass-change outbox row, so the pass's row is locked only while it runs. The
 * outbox row is then relayed here, in a transaction of its own (the push job queued, the event
 * recorded with the pass as changed); if that fails, the change stands and the outbox relay of a
 * worker delivers it within seconds (src/resources/passes/passChangeOutbox.ts). With an
 * `Idempotency-Key` both run in the key's transaction.
 */
export const updateLoyalty: OperationHandler<'updateLoyalty'> = async ({ params, body, writeSql, ctx }) => {
  const change = balanceChangeOf(body);
  const accountId = accountOf(ctx);
  const now = ctx.clock.now();
  const changed = await writeSql((db) => changePassBalance(db, { accountId, idOrExtId: params.id, change, source: 'api', message: body.message, now, event: 'passUpdated' }), { atomic: true });
  const { outboxId } = changed;
  if (outboxId) {
    await writeSql((tx) => relayPassChange(tx, ctx, outboxId, changed.pass)).catch((error: unknown) =>
      ctx.log.warn({ err: error, outboxId }, 'the pass change is committed; the outbox relay will deliver it'),
    );
  }
  return { status: 200, body: serializeLoyalty(changed.pass, ctx.baseUrl) };
};
