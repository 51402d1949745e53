import type { OperationHandler } from '../../http/operation.ts';
import { accountOf } from '../../http/operation.ts';
import { scheduleWalletMessage } from './batchService.ts';
import { batchUrl, serializeBatch } from './serializeBatch.ts';

/**
 * `POST /api/v1/entities/{entity_id}/messaging/wallet` (PassEntry API reference, "Create wallet
 * messaging batch"): stores the batch, `validating`, with its first job in one transaction, and
 * answers 202 with the batch, its URL and `Location`.
 * @throws NotFoundError for an unknown entity; ValidationError for the rules of `checkNewBatch`.
 */
export const createWalletMessagingBatch: OperationHandler<'createWalletMessagingBatch'> = async ({ params, body, write, ctx }) => {
  const accountId = accountOf(ctx);
  const now = ctx.clock.now();
  const row = await write((tx) => scheduleWalletMessage(tx, ctx.jobs, { accountId, entityId: params.entity_id, batch: body.batch, now }));
  ctx.log.info({ batchId: row.id, entityId: row.entityId }, 'wallet messaging batch created');
  const self = batchUrl(ctx.baseUrl, row.id);
  return { status: 202, headers: { Location: self }, body: { data: serializeBatch(row, ctx.baseUrl), links: { self } } };
};
