/**
 * Database access for the rows of CSV pass batches (`batch_rows`, one per data row of the
 * file). A row's `processed_at` and `pass_id` are written in the transaction that creates or
 * changes its pass, so a row is applied at most once however often a chunk is retried: the
 * primary key (batch, row number) is the row's idempotency key.
 *
 * @module domain/batches/passBatchStore
 */
import type { PrismaExecutor } from '../../db/database.ts';
import { Prisma } from '../../../generated/prisma/client.ts';
import { queryRows } from '../../db/rows.ts';

/** A row as the upload stores it: its cells, its `ext_id`/`pass_id`, and why it is refused, if it is. */
export interface NewBatchRow {
  rowNumber: number;
  cells: Record<string, string>;
  ref: string | null;
  error: string | null;
  errorColumn: string | null;
}

/** Stores a chunk of rows in one statement; refused rows are processed at once. */
export async function insertBatchRows(tx: PrismaExecutor, batch: { id: string; accountId: string }, rows: NewBatchRow[], now: Date): Promise<void> {
  if (!rows.length) return;
  await tx.$executeRaw`
    INSERT INTO batch_rows (batch_id, row_number, account_id, cells, ref, error, error_column, processed_at)
    SELECT ${batch.id}::uuid, t.n, ${batch.accountId}::uuid, t.cells, t.ref, t.error, t.col, CASE WHEN t.error IS NULL THEN NULL ELSE ${now}::timestamptz END
      FROM unnest(${rows.map((r) => r.rowNumber)}::int[], ${rows.map((r) => JSON.stringify(r.cells))}::jsonb[], ${rows.map((r) => r.ref)}::varchar[],
                  ${rows.map((r) => r.error)}::varchar[], ${rows.map((r) => r.errorColumn)}::varchar[]) AS t(n, cells, ref, error, col)`;
}

/**
 * Refuses the rows of a creation batch whose `ext_id` another row of the file also gives (all of
 * them), or a live pass of the account already has.
 */
export async function refuseTakenExtIds(tx: PrismaExecutor, batch: { id: string; accountId: string }, now: Date): Promise<void> {
  await tx.$executeRaw`
    UPDATE batch_rows r SET error = 'ext_id ' || r.ref || ' is given on more than one row of the file.', error_column = 'ext_id', processed_at = ${now}
      FROM (SELECT ref FROM batch_rows WHERE batch_id = ${batch.id}::uuid AND ref IS NOT NULL GROUP BY ref HAVING count(*) > 1) d
     WHERE r.batch_id = ${batch.id}::uuid AND r.ref = d.ref AND r.error IS NULL`;
  await tx.$executeRaw`
    UPDATE batch_rows r SET error = 'A pass with extId ' || r.ref || ' already exists in this account.', error_column = 'ext_id', processed_at = ${now}
      FROM passes p
     WHERE r.batch_id = ${batch.id}::uuid AND r.error IS NULL AND r.ref IS NOT NULL
       AND p.account_id = ${batch.accountId}::uuid AND p.ext_id = r.ref AND p.status <> 'nullified'`;
}

/** Rows of a batch and how many are refused. */
export async function rowCounts(tx: PrismaExecutor, batchId: string): Promise<{ total: number; refused: number; done: number }> {
  const [row] = await tx.$queryRaw<{ total: number; refused: number; done: number }[]>`
    SELECT count(*)::int AS total, count(*) FILTER (WHERE error IS NOT NULL)::int AS refused,
           count(*) FILTER (WHERE pass_id IS NOT NULL)::int AS done
      FROM batch_rows WHERE batch_id = ${batchId}::uuid`;
  return row!;
}

/** A row still to apply. */
export interface PendingRow {
  rowNumber: number;
  cells: Record<string, string>;
}

/** The next rows of a batch still to apply, in file order, at most `limit`. */
export function selectPendingRows(tx: PrismaExecutor, batchId: string, limit: number): Promise<PendingRow[]> {
  return queryRows<PendingRow>(
    tx,
    Prisma.sql`
    SELECT row_number, cells FROM batch_rows
     WHERE batch_id = ${batchId}::uuid AND processed_at IS NULL
     ORDER BY row_number LIMIT ${limit}`,
  );
}

/** The outcome of one applied row: its pass, or why it was refused. */
export type RowOutcome = { rowNumber: number; passId: string } | { rowNumber: number; error: string; errorColumn: string | null };

/**
 * Records the outcome of a chunk's rows and adds them to the batch's `processed_count` (and the
 * refused ones to `error_count`), in the caller's transaction (the one that wrote the passes).
 */
export async function recordRowOutcomes(tx: PrismaExecutor, batchId: string, outcomes: RowOutcome[], now: Date): Promise<void> {
  if (!outcomes.length) return;
  const refused = outcomes.filter((o) => 'error' in o).length;
  await tx.$executeRaw`
    UPDATE batch_rows r SET pass_id = t.pass_id, error = t.error, error_column = t.col, processed_at = ${now}
      FROM unnest(${outcomes.map((o) => o.rowNumber)}::int[], ${outcomes.map((o) => ('passId' in o ? o.passId : null))}::uuid[],
                  ${outcomes.map((o) => ('error' in o ? o.error : null))}::varchar[], ${outcomes.map((o) => ('error' in o ? o.errorColumn : null))}::varchar[])
           AS t(n, pass_id, error, col)
     WHERE r.batch_id = ${batchId}::uuid AND r.row_number = t.n`;
  await tx.$executeRaw`
    UPDATE batches SET processed_count = processed_count + ${outcomes.length}, error_count = error_count + ${refused}, updated_at = ${now}
     WHERE id = ${batchId}::uuid`;
}

/** One row of a pass batch's errors CSV (the contract's BatchErrorsCsv, pass batch layout). */
export interface RowErrorLine {
  rowNumber: number;
  column: string | null;
  passRef: string | null;
  extId: string | null;
  error: string;
}

/** The refused rows of a pass batch, in file order. */
export function selectRowErrors(prisma: PrismaExecutor, batchId: string): Promise<RowErrorLine[]> {
  return queryRows<RowErrorLine>(
    prisma,
    Prisma.sql`
    SELECT row_number, error_column AS column, cells->>'pass_id' AS pass_ref, cells->>'ext_id' AS ext_id, error
      FROM batch_rows WHERE batch_id = ${batchId}::uuid AND error IS NOT NULL ORDER BY row_number`,
  );
}

/** One row of a pass batch's results CSV (the contract's BatchResultsCsv). */
export interface RowResultLine {
  rowNumber: number;
  passId: string;
  extId: string | null;
}

/** The rows of a pass batch that created or changed a pass, in file order. */
export function selectRowResults(prisma: PrismaExecutor, batchId: string): Promise<RowResultLine[]> {
  return queryRows<RowResultLine>(
    prisma,
    Prisma.sql`
    SELECT r.row_number, r.pass_id::text AS pass_id, p.ext_id
      FROM batch_rows r JOIN passes p ON p.id = r.pass_id
     WHERE r.batch_id = ${batchId}::uuid AND r.error IS NULL ORDER BY r.row_number`,
  );
}

/** Pass batches whose job should be running: processing, sending, or scheduled and due. */
export function selectPassBatchesInFlight(prisma: PrismaExecutor, now: Date): Promise<{ id: string }[]> {
  return prisma.batch.findMany({
    where: {
      type: { in: ['passCreation', 'passUpdate'] },
      OR: [{ status: { in: ['processing', 'sending'] } }, { status: 'scheduled', scheduledAt: { lte: now } }],
    },
    select: { id: true },
  });
}
