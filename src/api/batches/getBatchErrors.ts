import { stringify } from 'csv-stringify/sync';
import type { OperationHandler } from '../../http/operation.ts';
import { accountOf } from '../../http/operation.ts';
import { requireBatch } from '../../domain/batches/batchStore.ts';
import { selectBatchErrors } from '../../domain/batches/batchStore.ts';
import { selectRowErrors } from '../../domain/batches/passBatchStore.ts';

/** The columns of the errors CSV, in order (the contract's BatchErrorsCsv). */
const COLUMNS = ['recipient', 'pass_id', 'ext_id', 'error'] as const;
/** The columns of a pass batch's errors CSV (the contract's BatchErrorsCsv, pass batch layout). */
const ROW_COLUMNS = ['row', 'column', 'pass_id', 'ext_id', 'error'] as const;

/**
 * `GET /api/v1/batches/{id}/errors.csv`: the recipients of a batch that were not messaged (for a
 * pass batch: its refused rows, with row number and column), as
 * RFC 4180 CSV written by csv-stringify (quoting, CRLF), with a header row. Cells that a
 * spreadsheet would run as a formula (starting with `=`, `+`, `-`, `@`, tab or CR — extIds may)
 * get a leading `'` (csv-stringify `escape_formulas`; OWASP "CSV injection").
 * @throws NotFoundError for an unknown batch.
 */
export const getBatchErrors: OperationHandler<'getBatchErrors'> = async ({ params, ctx }) => {
  const batch = await requireBatch(ctx.db.prisma, accountOf(ctx), params.id);
  const options = { header: true, record_delimiter: 'windows', escape_formulas: true } as const;
  const csv =
    batch.type === 'walletMessaging'
      ? stringify(
          (await selectBatchErrors(ctx.db.prisma, batch)).map((r) => [r.recipient, r.passId ?? '', r.extId ?? '', r.error]),
          { ...options, columns: [...COLUMNS] },
        )
      : stringify(
          (await selectRowErrors(ctx.db.prisma, batch.id)).map((r) => [r.rowNumber, r.column ?? '', r.passRef ?? '', r.extId ?? '', r.error]),
          { ...options, columns: [...ROW_COLUMNS] },
        );
  return {
    status: 200,
    headers: { 'Content-Type': 'text/csv; charset=utf-8', 'Content-Disposition': `attachment; filename="batch-${batch.id}-errors.csv"` },
    body: csv,
  };
};
