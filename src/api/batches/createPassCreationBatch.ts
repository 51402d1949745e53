import type { OperationHandler } from '../../http/operation.ts';
import { accountOf } from '../../http/operation.ts';
import { requireCsvFile } from '../../csv/csvFile.ts';
import { storePassBatch } from '../../domain/batches/passBatchUpload.ts';
import { batchUrl, serializeBatch } from '../../domain/batches/serializeBatch.ts';

/**
 * `POST /api/v1/passes/batch` (PassEntry "CSV pass creation"): reads and stores the uploaded
 * file's rows, checked, with the batch (`processing`) and its job, in one transaction, and
 * answers 202 with the batch, its URL and `Location`.
 * @throws ValidationError (pointer `/csv`) for a file that is not a readable CSV or has a wrong
 *   header; NotFoundError / ConflictError (parameter `passTemplate`) for the template.
 */
export const createPassCreationBatch: OperationHandler<'createPassCreationBatch'> = async ({ body, uploads, write, ctx }) => {
  const accountId = accountOf(ctx);
  const file = requireCsvFile(uploads, 'csv');
  const now = ctx.clock.now();
  const row = await write((tx) => storePassBatch(tx, ctx.jobs, { kind: 'passCreation', accountId, file, templateId: body.passTemplate, name: body.name, now }));
  ctx.log.info({ batchId: row.id, rows: row.rowCount, refused: row.errorCount }, 'CSV pass creation batch accepted');
  const self = batchUrl(ctx.baseUrl, row.id);
  return { status: 202, headers: { Location: self }, body: { data: serializeBatch(row, ctx.baseUrl), links: { self } } };
};
