/**
 * The `pass-batch` job: works through the stored rows of a CSV pass batch (contract
 * `createPassCreationBatch`, `createPassUpdateBatch`, `BatchStatus`). Every job carries only a
 * batch id and runs {@link advancePassBatch}:
 *
 * - `scheduled` (update batches): before `scheduledAt` (by the injected clock) enqueue a job for
 *   then and stop; at or after it → `sending`;
 * - `processing` (creation) or `sending` (update): apply chunk after chunk of pending rows, each
 *   chunk in one transaction that locks the batch row, writes the passes, records each row's
 *   pass or error, and adds the chunk to `progress`; when no row is pending, finish
 *   `successful`, `completedWithErrors` or `failed` with the `batchCompleted` webhook.
 *
 * A creation chunk issues its passes by the rules of `createPass` (`newPassOf`, computed per row
 * from the same template design) in one multi-row insert, records their starting balances and
 * announces them as `issued` pass changes in one statement (src/domain/passes/passChanges.ts:
 * `passCreated`, their Google Wallet objects): what `createPass` does, per chunk instead of per
 * row. If the insert hits an extId taken meanwhile, the chunk's rows are stored one by one behind
 * savepoints and the losers become row errors. An update chunk locks its passes by ascending id,
 * then applies each row with `modifyPass` / `nullifyStoredPass` (each announces its change),
 * exactly as `updatePass` / `nullifyPass`, each behind a savepoint so that a refused row does not
 * undo the others.
 *
 * Durable and resumable: the state is the database. A row's pass and its `processed_at` commit in
 * the same transaction, so a run killed mid-chunk leaves the chunk pending as a whole (its passes
 * rolled back too) and the next run applies it once.
 *
 * @module domain/batches/passBatchJob
 */
import type { PrismaExecutor } from '../../db/database.ts';
import { isUniqueViolation } from '../../db/prismaErrors.ts';
import { rollbackToSavepoint, setSavepoint } from '../../db/savepoints.ts';
import { ConflictError } from '../../errors.ts';
import { defineJob } from '../../jobs/jobDefinition.ts';
import type { Runtime } from '../../deps.ts';
import { recordStartingBalances } from '../loyalty/loyaltyLedgerStore.ts';
import { issuingDesign, modifyPass, newPassOf, nullifyStoredPass, requireIssuingTemplate } from '../passes/passService.ts';
import { announcePassChanges } from '../passes/passChanges.ts';
import { insertPass, insertPasses, lockPasses, type NewPass, type PassRow } from '../passes/passStore.ts';
import type { AdvanceOptions, AdvanceResult } from './batchQueues.ts';
import { recordBatchCompleted } from './batchWebhooks.ts';
import { lockBatch, startWhenDue, transitionBatch, type BatchRow } from './batchStore.ts';
import { passRowInput, rowErrorOf, type PassBatchKind } from './passBatchRows.ts';
import { recordRowOutcomes, rowCounts, selectPassBatchesInFlight, selectPendingRows, type PendingRow, type RowOutcome } from './passBatchStore.ts';

/** Rows per chunk transaction. */
export const ROW_CHUNK_SIZE = 1000;
/** Chunks one job run applies before handing the rest to a new job (well under `expireInSeconds`). */
export const ROW_CHUNKS_PER_RUN = 20;

/** What the job works with (the runtime's database, queue, clock, configuration). */
export type PassBatchDependencies = Pick<Runtime, 'db' | 'jobs' | 'clock' | 'config'>;

const enqueue = (deps: PassBatchDependencies, batchId: string, startAfterSeconds = 0) =>
  deps.jobs.send(deps.db.prisma, passBatchJob, { batchId }, { startAfterSeconds });

/** The final status of a pass batch from its rows. */
function outcomeOf(done: number, refused: number) {
  if (done === 0) {
    return {
      status: 'failed' as const,
      statusDetail: refused === 0 ? 'The file has no row to apply.' : `None of the ${refused} rows could be applied; see errorsCsvUrl.`,
    };
  }
  if (refused === 0) return { status: 'successful' as const, statusDetail: `All ${done} rows were applied.` };
  return { status: 'completedWithErrors' as const, statusDetail: `${refused} of ${done + refused} rows could not be applied; see errorsCsvUrl.` };
}

/** Issues the passes of a creation chunk (see the module description). */
async function createRows(tx: PrismaExecutor, batch: BatchRow, rows: PendingRow[], now: Date): Promise<RowOutcome[]> {
  const template = await requireIssuingTemplate(tx, batch.accountId, batch.templateId!);
  const design = issuingDesign(template);
  const outcomes: RowOutcome[] = [];
  const valid: { rowNumber: number; pass: NewPass }[] = [];
  for (const { rowNumber, cells } of rows) {
    try {
      const { extId, body } = passRowInput(cells, 'passCreation');
      valid.push({ rowNumber, pass: newPassOf(design, { accountId: batch.accountId, templateId: template.id, extId, body, now }) });
    } catch (error) {
      const refused = rowErrorOf(error);
      if (!refused) throw error;
      outcomes.push({ rowNumber, error: refused.message, errorColumn: refused.column });
    }
  }
  let created: { rowNumber: number; pass: { id: string; accountId: string; balance: number } }[];
  await setSavepoint(tx, 'chunk');
  try {
    const ids = await insertPasses(
      tx,
      valid.map((v) => v.pass),
    );
    created = ids.map((id, i) => ({ rowNumber: valid[i]!.rowNumber, pass: { ...valid[i]!.pass, id } }));
  } catch (error) {
    // An extId taken since the upload (by another request): store them one by one to find which.
    if (!isUniqueViolation(error)) throw error;
    await rollbackToSavepoint(tx, 'chunk');
    created = [];
    for (const { rowNumber, pass } of valid) {
      await setSavepoint(tx, 'pass');
      try {
        created.push({ rowNumber, pass: await insertPass(tx, pass) });
      } catch (error) {
        await rollbackToSavepoint(tx, 'pass');
        const refused = rowErrorOf(error);
        if (!refused) throw error;
        outcomes.push({ rowNumber, error: refused.message, errorColumn: refused.column });
      }
    }
  }
  await recordStartingBalances(
    tx,
    created.map((c) => c.pass),
    now,
  );
  await announcePassChanges(
    tx,
    { accountId: batch.accountId, kind: 'issued', at: now },
    created.map((c) => c.pass.id),
  );
  return [...outcomes, ...created.map(({ rowNumber, pass }) => ({ rowNumber, passId: pass.id }))];
}

/** Applies the rows of an update chunk, each as `updatePass` / `nullifyPass` would. */
async function updateRows(tx: PrismaExecutor, batch: BatchRow, rows: PendingRow[], now: Date): Promise<RowOutcome[]> {
  const outcomes: RowOutcome[] = [];
  // The chunk's passes are locked first, by ascending id (src/db/contention.ts).
  const refs = rows.map(({ cells }) => cells.pass_id).filter((ref): ref is string => typeof ref === 'string' && ref.length > 0 && ref.length <= 64);
  await lockPasses(tx, batch.accountId, refs);
  for (const { rowNumber, cells } of rows) {
    await setSavepoint(tx, 'pass');
    try {
      const { passRef, action, body } = passRowInput(cells, 'passUpdate');
      const request = { accountId: batch.accountId, idOrExtId: passRef!, now };
      let pass: PassRow;
      if (action === 'nullify') {
        // The changes and the voiding are one change of the pass, announced once as `nullified`.
        if (Object.keys(body).length) await modifyPass(tx, { ...request, body, announce: false });
        pass = await nullifyStoredPass(tx, request);
        if (pass.nullifiedAt?.getTime() !== now.getTime()) throw new ConflictError('The pass is already nullified.', { parameter: 'id' });
      } else {
        pass = (await modifyPass(tx, { ...request, body })).row;
      }
      outcomes.push({ rowNumber, passId: pass.id });
    } catch (error) {
      await rollbackToSavepoint(tx, 'pass');
      const refused = rowErrorOf(error);
      if (!refused) throw error;
      outcomes.push({ rowNumber, error: refused.message, errorColumn: refused.column });
    }
  }
  return outcomes;
}

/**
 * Applies one chunk of a working batch, or finishes it when no row is pending.
 * @returns `applied` after a chunk, `finished` when it set the final status, `stopped` when the
 *   batch is no longer working.
 */
async function applyChunk(deps: PassBatchDependencies, batchId: string, chunkSize: number): Promise<'applied' | 'finished' | 'stopped'> {
  const { db, clock } = deps;
  return db.write(async (tx) => {
    const batch = await lockBatch(tx, batchId);
    const working = batch?.type === 'passCreation' ? 'processing' : 'sending';
    if (!batch || batch.status !== working) return 'stopped';
    const now = clock.now();
    const rows = await selectPendingRows(tx, batchId, chunkSize);
    if (rows.length) {
      const outcomes = batch.type === 'passCreation' ? await createRows(tx, batch, rows, now) : await updateRows(tx, batch, rows, now);
      await recordRowOutcomes(tx, batchId, outcomes, now);
      return 'applied';
    }
    const { done, refused } = await rowCounts(tx, batchId);
    const finished = await transitionBatch(tx, null, batchId, [working], { ...outcomeOf(done, refused), errorCount: refused, completedAt: now }, now);
    await recordBatchCompleted(tx, deps, finished, now);
    return 'finished';
  });
}

/**
 * Takes the next step of a pass batch (see the module description): what every `pass-batch` job
 * runs; safe at any time, repeatedly and concurrently (chunks lock the batch row).
 * @throws Database errors (the job is then retried).
 */
export async function advancePassBatch(deps: PassBatchDependencies, batchId: string, options: AdvanceOptions = {}): Promise<AdvanceResult> {
  let batch: BatchRow | null = await deps.db.prisma.batch.findUnique({ where: { id: batchId } });
  if (!batch || batch.type === 'walletMessaging') return 'gone';
  if (batch.status === 'scheduled') {
    const start = await startWhenDue(deps.db.prisma, batch, deps.clock.now());
    if ('waitSeconds' in start) {
      await enqueue(deps, batchId, start.waitSeconds);
      return 'deferred';
    }
    batch = start.started;
    if (!batch) return 'idle';
  }
  if (batch.status !== 'processing' && batch.status !== 'sending') return 'idle';
  const chunkSize = options.chunkSize ?? ROW_CHUNK_SIZE;
  for (let chunk = 0; chunk < (options.chunksPerRun ?? ROW_CHUNKS_PER_RUN); chunk++) {
    const step = await applyChunk(deps, batchId, chunkSize);
    if (step !== 'applied') return step === 'finished' ? 'finished' : 'idle';
  }
  await enqueue(deps, batchId);
  return 'continued';
}

/** The queue's payload. */
export type PassBatchPayload = { batchId: string };

/** Kinds of pass batch, for callers that pick the job of a batch. */
export const PASS_BATCH_TYPES: readonly PassBatchKind[] = ['passCreation', 'passUpdate'];

/**
 * The `pass-batch` queue: every job carries only a batch id and runs {@link advancePassBatch}, a
 * bounded number of chunks per run. Retries back off from 2 s to 5 minutes; after the last attempt
 * the batch is set `failed` (with `batchCompleted`), so it never stays working for ever. At start
 * every batch processing, sending or due gets a job, so a batch whose worker was killed resumes
 * within seconds from its committed chunks. No NOTIFY (as `wallet-messaging`: update batches
 * start at a time).
 */
export const passBatchJob = defineJob<PassBatchPayload, Runtime>({
  name: 'pass-batch',
  settings: { retryLimit: 8, retryDelay: 2, retryBackoff: true, retryDelayMax: 300, expireInSeconds: 300, deleteAfterSeconds: 7 * 24 * 3600, notify: false },
  async run({ data: { batchId } }, runtime) {
    return { batchId, result: await advancePassBatch(runtime, batchId, { chunkSize: runtime.config.passBatchChunkSize }) };
  },
  inFlight: async ({ db, clock }) => (await selectPassBatchesInFlight(db.prisma, clock.now())).map(({ id }) => ({ batchId: id })),
  async onLastAttemptFailed({ data: { batchId } }, _error, runtime) {
    const { db, clock } = runtime;
    const now = clock.now();
    await db.write(async (tx) => {
      const { done } = await rowCounts(tx, batchId);
      const failed = await transitionBatch(
        tx,
        null,
        batchId,
        ['scheduled', 'processing', 'sending'],
        { status: 'failed', statusDetail: `The batch stopped after an internal error; ${done} rows were applied.`, completedAt: now },
        now,
      );
      await recordBatchCompleted(tx, runtime, failed, now);
    });
  },
});
