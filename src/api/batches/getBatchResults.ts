import { stringify } from 'csv-stringify/sync';
import type { OperationHandler } from '../../http/operation.ts';
import { accountOf } from '../../http/operation.ts';
import { passDownloadUrl } from '../../domain/passes/serializePass.ts';
import { batchNotFound, requireBatch } from '../../domain/batches/batchStore.ts';
import { selectRowResults } from '../../domain/batches/passBatchStore.ts';

/** The columns of the results CSV, in order (the contract's BatchResultsCsv). */
const COLUMNS = ['row', 'pass_id', 'ext_id', 'download_url'] as const;

/**
 * `GET /api/v1/batches/{id}/results.csv`: the passes a pass batch created or changed so far, in
 * file order, as RFC 4180 CSV written by csv-stringify, formula-like cells escaped (as
 * `getBatchErrors`; OWASP "CSV injection").
 * @throws NotFoundError for an unknown batch, or a wallet messaging batch (it has no results).
 */
export const getBatchResults: OperationHandler<'getBatchResults'> = async ({ params, ctx }) => {
  const batch = await requireBatch(ctx.db.prisma, accountOf(ctx), params.id);
  if (batch.type === 'walletMessaging') throw batchNotFound(params.id);
  const rows = await selectRowResults(ctx.db.prisma, batch.id);
  const csv = stringify(
    rows.map((r) => [r.rowNumber, r.passId, r.extId ?? '', passDownloadUrl(ctx.baseUrl, r.passId)]),
    { header: true, columns: [...COLUMNS], record_delimiter: 'windows', escape_formulas: true },
  );
  return {
    status: 200,
    headers: { 'Content-Type': 'text/csv; charset=utf-8', 'Content-Disposition': `attachment; filename="batch-${batch.id}-results.csv"` },
    body: csv,
  };
};
