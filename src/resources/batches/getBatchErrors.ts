import { stringify } from 'csv-stringify/sync';
import type { OperationHandler } from '../../http/operation.ts';
import { accountOf } from '../../http/operation.ts';
import { requireBatch } from './batchStore.ts';
import { selectBatchErrors } from './batchStore.ts';

/** The columns of the errors CSV, in order (the contract's BatchErrorsCsv). */
const COLUMNS = ['recipient', 'pass_id', 'ext_id', 'error'] as const;

/**
 * `GET /api/v1/batches/{id}/errors.csv`: the recipients of a batch that were not messaged, as
 * RFC 4180 CSV written by csv-stringify (quoting, CRLF), with a header row. Cells that a
 * spreadsheet would run as a formula (starting with `=`, `+`, `-`, `@`, tab or CR — extIds may)
 * get a leading `'` (csv-stringify `escape_formulas`; OWASP "CSV injection").
 * @throws NotFoundError for an unknown batch.
 */
export const getBatchErrors: OperationHandler<'getBatchErrors'> = async ({ params, ctx }) => {
  const batch = await requireBatch(ctx.db.prisma, accountOf(ctx), params.id);
  const rows = await selectBatchErrors(ctx.db.prisma, batch);
  const csv = stringify(
    rows.map((r) => [r.recipient, r.passId ?? '', r.extId ?? '', r.error]),
    { header: true, columns: [...COLUMNS], record_delimiter: 'windows', escape_formulas: true },
  );
  return {
    status: 200,
    headers: { 'Content-Type': 'text/csv; charset=utf-8', 'Content-Disposition': `attachment; filename="batch-${batch.id}-errors.csv"` },
    body: csv,
  };
};
