import type { OperationHandler } from '../../http/operation.ts';
import { accountOf } from '../../http/operation.ts';
import { idempotencyKeyOf, runIdempotent } from '../../http/idempotency.ts';
import { createWalletMessagingBatch as createBatch } from './batchService.ts';
import { batchUrl, serializeBatch } from './serializeBatch.ts';

/**
 * `POST /api/v1/entities/{entity_id}/messaging/wallet` (PassEntry wallet messaging): stores the
 * batch, `validating`, with its first job in one transaction (with the `Idempotency-Key`'s row
 * when one is sent), and answers 202 with the batch, its URL and `Location`.
 * @throws NotFoundError for an unknown entity; ValidationError for the rules of `checkNewBatch`.
 */
export const createWalletMessagingBatch: OperationHandler<'createWalletMessagingBatch'> = async ({ params, body, headers, url, ctx }) => {
  const accountId = accountOf(ctx);
  const now = ctx.clock.now();
  const request = { key: idempotencyKeyOf(headers), accountId, operationId: 'createWalletMessagingBatch' as const, url, body };
  return runIdempotent(ctx.db, request, now, async (tx) => {
    const row = await createBatch(tx, ctx.jobs, { accountId, entityId: params.entity_id, batch: body.batch, now });
    ctx.log.info({ batchId: row.id, entityId: row.entityId }, 'wallet messaging batch created');
    const self = batchUrl(ctx.baseUrl, row.id);
    return { status: 202 as const, headers: { Location: self }, body: { data: serializeBatch(row, ctx.baseUrl), links: { self } } };
  });
};
