import type { OperationHandler } from '../../http/operation.ts';
import { accountOf } from '../../http/operation.ts';
import { ValidationError } from '../../errors.ts';
import { changePassBalance, type BalanceChange } from '../../domain/loyalty/loyaltyLedgerStore.ts';
import { serializeLoyalty } from '../../domain/loyalty/serializeLoyalty.ts';

/**
 * Reads the change of an update body: exactly one of `balance` (delta) and `overrideBalance`.
 * @throws ValidationError when neither or both are given.
 */
export function balanceChangeOf(body: { balance?: number; overrideBalance?: number }): BalanceChange {
  if (body.balance !== undefined && body.overrideBalance !== undefined) {
    throw new ValidationError({
      detail: 'Give either balance (a change) or overrideBalance (the new balance), not both.',
      source: { pointer: '/overrideBalance' },
    });
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
 * pass, writes the ledger row and announces the change (src/domain/passes/passChanges.ts), so the
 * pass's row is locked only while it runs; the same statement writes the request's audit event
 * (src/domain/audit/auditStore.ts). With an `Idempotency-Key` it runs in the key's transaction.
 */
export const updateLoyalty: OperationHandler<'updateLoyalty'> = async ({ params, body, writeSql, ctx }) => {
  const change = balanceChangeOf(body);
  const accountId = accountOf(ctx);
  const now = ctx.clock.now();
  const changed = await writeSql(
    (db, auditEvent) => changePassBalance(db, { accountId, idOrExtId: params.id, change, source: 'api', message: body.message, now }, auditEvent),
    { atomic: true, eventInStatement: true },
  );
  return { status: 200, body: serializeLoyalty(changed.pass, ctx.baseUrl) };
};
