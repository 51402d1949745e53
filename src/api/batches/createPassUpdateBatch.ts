import { ValidationError } from '../../errors.ts';
import type { OperationHandler } from '../../http/operation.ts';
import { accountOf } from '../../http/operation.ts';
import { requireCsvFile } from '../../csv/csvFile.ts';
import { storePassBatch } from '../../domain/batches/passBatchUpload.ts';
import { batchUrl, serializeBatch } from '../../domain/batches/serializeBatch.ts';

/**
 * `POST /api/v1/passes/batch/update` (PassEntry "CSV pass update"): reads and stores the uploaded
 * file's rows with the batch (`scheduled`) and its job for `scheduledAt`, in one transaction, and
 * answers 202 with the batch, its URL and `Location`.
 * @throws ValidationError (pointer `/scheduledAt`) when it is not in the future, (pointer `/csv`)
 *   for a file that is not a readable CSV or has a wrong header.
 */
export const createPassUpdateBatch: OperationHandler<'createPassUpdateBatch'> = async ({ body, uploads, write, ctx }) => {
  const accountId = accountOf(ctx);
  const file = requireCsvFile(uploads, 'csv');
  const now = ctx.clock.now();
  const scheduledAt = new Date(body.scheduledAt);
  if (scheduledAt.getTime() <= now.getTime()) {
    throw new ValidationError({ detail: `scheduledAt must be in the future; it is ${body.scheduledAt}.`, source: { pointer: '/scheduledAt' } });
  }
  const row = await write((tx) => storePassBatch(tx, ctx.jobs, { kind: 'passUpdate', accountId, file, scheduledAt, name: body.name, now }));
  ctx.log.info({ batchId: row.id, rows: row.rowCount, refused: row.errorCount }, 'CSV pass update batch scheduled');
  const self = batchUrl(ctx.baseUrl, row.id);
  return { status: 202, headers: { Location: self }, body: { data: serializeBatch(row, ctx.baseUrl), links: { self } } };
};
