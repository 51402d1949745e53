import type { components } from '../../../generated/api.d.ts';
import type { OperationHandler } from '../../http/operation.ts';
import { accountOf } from '../../http/operation.ts';
import { requireCsvFile } from '../../csv/csvFile.ts';
import { scheduleWalletMessage } from '../../domain/batches/batchService.ts';
import type { WalletMessagingBatchCreate } from '../../domain/batches/batchRules.ts';
import { batchUrl, serializeBatch } from '../../domain/batches/serializeBatch.ts';
import { storeCsvRecipients } from '../../domain/batches/csvRecipients.ts';

/**
 * `POST /api/v1/entities/{entity_id}/messaging/wallet` (PassEntry API reference, "Create wallet
 * messaging batch"): stores the batch, `validating`, with its first job in one transaction, and
 * answers 202 with the batch, its URL and `Location`. The body is JSON (`{ batch }`), or a
 * multipart form whose `recipients` is a CSV file (`WalletMessagingBatchCsvRequest`), read into
 * the batch's listed recipients in the same transaction (src/domain/batches/csvRecipients.ts).
 * @throws NotFoundError for an unknown entity; ValidationError for the rules of `checkNewBatch`,
 *   or (pointer `/recipients`) for a recipients file that cannot be read.
 */
export const createWalletMessagingBatch: OperationHandler<'createWalletMessagingBatch'> = async ({ params, body, uploads, write, ctx }) => {
  const accountId = accountOf(ctx);
  const now = ctx.clock.now();
  const json = 'batch' in body ? (body as { batch: WalletMessagingBatchCreate }) : null;
  const file = json ? null : requireCsvFile(uploads, 'recipients');
  let batch: WalletMessagingBatchCreate;
  if (json) batch = json.batch;
  else {
    const { recipients: _file, ...form } = body as unknown as components['schemas']['WalletMessagingBatchCsvRequest'];
    // An empty list stands for "listed recipients"; the file's rows are stored below.
    batch = { ...form, recipients: [] as never };
  }
  const row = await write(async (tx) => {
    const scheduled = await scheduleWalletMessage(tx, ctx.jobs, { accountId, entityId: params.entity_id, batch, now });
    if (file) await storeCsvRecipients(tx, scheduled, file);
    return scheduled;
  });
  ctx.log.info({ batchId: row.id, entityId: row.entityId, csv: file !== null }, 'wallet messaging batch created');
  const self = batchUrl(ctx.baseUrl, row.id);
  return { status: 202, headers: { Location: self }, body: { data: serializeBatch(row, ctx.baseUrl), links: { self } } };
};
