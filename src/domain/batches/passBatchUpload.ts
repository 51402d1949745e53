/**
 * Stores a CSV pass batch from its uploaded file (the request side of `createPassCreationBatch`
 * and `createPassUpdateBatch`): the batch row, then the file's rows read one at a time
 * (src/http/csvUpload.ts) and inserted in chunks, each row checked on the way (creation: by the
 * rules of `createPass` against the template; update: the cells' forms), then the extIds given
 * twice or already taken, then the batch's first job — all in the caller's transaction, so that
 * a file refused half-way leaves nothing behind.
 *
 * @module domain/batches/passBatchUpload
 */
import type { PrismaExecutor } from '../../db/database.ts';
import { ValidationError } from '../../errors.ts';
import { readCsv, type UploadedFile } from '../../csv/csvFile.ts';
import type { JobQueue } from '../../jobs/queue.ts';
import { issuingDesign, newPassOf, requireIssuingTemplate } from '../passes/passService.ts';
import type { BatchRow } from './batchStore.ts';
import { passBatchJob } from './passBatchJob.ts';
import { checkPassBatchHeader, passRowInput, rowErrorOf, RowError, type PassBatchKind } from './passBatchRows.ts';
import { insertBatchRows, refuseTakenExtIds, rowCounts, type NewBatchRow } from './passBatchStore.ts';

/** Rows per insert while a file is read. */
const INSERT_CHUNK = 1000;

/** A pass batch to store. */
export interface PassBatchUpload {
  kind: PassBatchKind;
  accountId: string;
  /** The uploaded `csv` file. */
  file: UploadedFile;
  /** Creation: the `passTemplate` field. */
  templateId?: string;
  /** Update: the `scheduledAt` field, checked to be in the future. */
  scheduledAt?: Date;
  name: string | undefined;
  now: Date;
}

/**
 * Stores a pass batch with its rows and first job (see the module description).
 * @returns The batch, `processing` (creation) or `scheduled` (update), with its progress.
 * @throws NotFoundError / ConflictError (parameter `passTemplate`) for a template the account does
 *   not have or that is not processed; ValidationError (pointer `/csv`) for a file that cannot be
 *   read, a wrong header, or no data row.
 */
export async function storePassBatch(tx: PrismaExecutor, jobs: JobQueue, upload: PassBatchUpload): Promise<BatchRow> {
  const { kind, accountId, file, now } = upload;
  const design = kind === 'passCreation' ? issuingDesign(await requireIssuingTemplate(tx, accountId, upload.templateId!)) : null;
  const stamp = now.toISOString().slice(0, 16).replace('T', ' ');
  const batch = await tx.batch.create({
    data: {
      accountId,
      type: kind,
      templateId: upload.templateId ?? null,
      name: upload.name ?? `${kind === 'passCreation' ? 'CSV pass creation' : 'CSV pass update'} ${stamp} UTC`,
      status: kind === 'passCreation' ? 'processing' : 'scheduled',
      scheduledAt: upload.scheduledAt ?? now,
      rowCount: 0,
      createdAt: now,
      updatedAt: now,
    },
  });
  let chunk: NewBatchRow[] = [];
  for await (const { rowNumber, cells, extraCells } of readCsv(file, 'csv', (columns) => checkPassBatchHeader(columns, kind))) {
    let refused: RowError | null = null;
    let ref: string | null = (kind === 'passCreation' ? cells.ext_id : cells.pass_id) ?? null;
    try {
      if (extraCells) throw new RowError(null, `The row has ${extraCells} more cells than the header has columns.`);
      const { extId, body } = passRowInput(cells, kind);
      if (design) newPassOf(design, { accountId, templateId: upload.templateId!, extId, body, now });
    } catch (error) {
      refused = rowErrorOf(error);
      if (!refused) throw error;
    }
    if (ref !== null && ref.length > 64) ref = null;
    chunk.push({ rowNumber, cells, ref, error: refused?.message ?? null, errorColumn: refused?.column ?? null });
    if (chunk.length >= INSERT_CHUNK) {
      await insertBatchRows(tx, batch, chunk, now);
      chunk = [];
    }
  }
  await insertBatchRows(tx, batch, chunk, now);
  if (kind === 'passCreation') await refuseTakenExtIds(tx, batch, now);
  const { total, refused } = await rowCounts(tx, batch.id);
  if (total === 0) throw new ValidationError({ detail: 'csv has a header but no data row.', source: { pointer: '/csv' } });
  const stored = await tx.batch.update({ where: { id: batch.id }, data: { rowCount: total, processedCount: refused, errorCount: refused } });
  const wait = Math.max(0, Math.ceil((stored.scheduledAt.getTime() - now.getTime()) / 1000));
  await jobs.send(tx, passBatchJob, { batchId: batch.id }, { startAfterSeconds: wait });
  return stored;
}
