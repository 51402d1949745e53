/**
 * The `wallet-messaging` job: takes a wallet messaging batch through its status flow (contract
 * `BatchStatus`; issue 5). Every job of the queue carries only a batch id and runs
 * {@link advanceBatch}, which reads the batch and does the next step its status calls for:
 *
 * - `validating`: resolve the listed recipients with the passes module's `findPass` (or count a
 *   segment's passes) → `scheduled`, or `failed` when no listed recipient can be messaged;
 * - `scheduled`: before `scheduledAt` (by the injected clock) enqueue a job for then and stop;
 *   at or after it → `sending`;
 * - `sending`: send chunk after chunk, each in its own transaction that locks the batch row,
 *   picks the next passes not yet delivered to, renders the message for each, and records the
 *   deliveries while setting `latestMessage` (src/resources/batches/batchStore.ts
 *   `recordDeliveries`); when no pass is left, finish `successful`, `completedWithErrors` or
 *   `failed`. A run sends at most {@link CHUNKS_PER_RUN} chunks, then enqueues a job for the rest.
 *
 * Durable and restartable: the state is the database, not the job. A job that runs twice, jobs
 * that run at once (the one `sendBatchNow` enqueued and the one waiting for `scheduledAt`), or a
 * run that died between two chunks all continue where the committed chunks left off; the
 * `(batch, pass)` primary key of deliveries makes sure no pass is messaged twice.
 *
 * @module resources/batches/batchSender
 */
import type { Database } from '../../db/database.ts';
import type { Clock } from '../../http/operation.ts';
import { WRITE_TRANSACTION } from '../../http/idempotency.ts';
import type { JobHandler, JobQueue } from '../../jobs/queue.ts';
import type { Logger } from '../../logger.ts';
import { findPass } from '../passes/passStore.ts';
import { passContentOf } from '../passes/serializePass.ts';
import { batchOutcome, renderMessage } from './batchRules.ts';
import {
  countSegmentPasses,
  deliveryCounts,
  lockBatch,
  recordDeliveries,
  recordResolutions,
  selectRecipients,
  selectUndelivered,
  transitionBatch,
  type BatchRow,
  type Delivery,
  type RecipientResolution,
} from './batchStore.ts';

/** Passes per chunk transaction. */
export const CHUNK_SIZE = 1000;
/** Chunks one job run sends before handing the rest to a new job (keeps a run well under the queue's `expireInSeconds`). */
export const CHUNKS_PER_RUN = 25;

/** What the job works with. */
export interface BatchJobDependencies {
  db: Database;
  /** To enqueue the job for `scheduledAt` and the follow-up of a long batch. */
  jobs: JobQueue;
  /** Decides when `scheduledAt` is reached, and stamps deliveries and `completedAt`. */
  clock: Clock;
}

/** Limits of one run (tests make them small to stop a run between chunks). */
export interface AdvanceOptions {
  chunkSize?: number;
  chunksPerRun?: number;
}

/**
 * What a run did: `gone` (no such batch), `idle` (nothing to do: final, cancelled, or another
 * run moved it first), `deferred` (scheduled, not due: a job waits for `scheduledAt`),
 * `continued` (sent its chunks; a new job sends the rest), `finished` (the batch reached its
 * final status in this run).
 */
export type AdvanceResult = 'gone' | 'idle' | 'deferred' | 'continued' | 'finished';

const enqueue = (deps: BatchJobDependencies, batchId: string, startAfterSeconds = 0) =>
  deps.jobs.send(deps.db.prisma, 'wallet-messaging', { batchId }, { startAfterSeconds });

/**
 * Resolves the listed recipients of a `validating` batch (or counts its segments' passes) and
 * schedules it, in one transaction holding the batch's row lock.
 * @returns The batch after validation (possibly cancelled or validated by another run meanwhile), or null when it is gone.
 */
async function validate({ db, clock }: BatchJobDependencies, batchId: string): Promise<BatchRow | null> {
  return db.prisma.$transaction(async (tx) => {
    const batch = await lockBatch(tx, batchId);
    if (batch?.status !== 'validating') return batch;
    const now = clock.now();
    if (batch.segmentTags.length) {
      const recipientCount = await countSegmentPasses(tx, batch.accountId, batch.segmentTags);
      return transitionBatch(tx, null, batchId, ['validating'], { status: 'scheduled', recipientCount }, now);
    }
    const firstPosition = new Map<string, number>();
    const resolutions: RecipientResolution[] = [];
    for (const { position, passRef } of await selectRecipients(tx, batchId)) {
      const pass = await findPass(tx, batch.accountId, passRef);
      let error: string | null = null;
      if (!pass) error = `No pass of this account has the id or extId ${passRef}.`;
      else if (pass.status === 'nullified') error = 'The pass is nullified.';
      else if (firstPosition.has(pass.id)) error = `The pass is already listed as recipient ${firstPosition.get(pass.id)! + 1}.`;
      else firstPosition.set(pass.id, position);
      resolutions.push({ position, passId: pass?.id ?? null, error });
    }
    await recordResolutions(tx, batchId, resolutions);
    const errorCount = resolutions.filter((r) => r.error).length;
    const recipientCount = resolutions.length - errorCount;
    const changes =
      recipientCount === 0
        ? { ...batchOutcome(0, errorCount), completedAt: now }
        : { status: 'scheduled' as const };
    return transitionBatch(tx, null, batchId, ['validating'], { ...changes, recipientCount, errorCount }, now);
  }, WRITE_TRANSACTION);
}

/**
 * Renders the message for each pass of a chunk.
 * @returns One delivery per pass: the message, or why the pass cannot get it.
 */
function render(batch: BatchRow, passes: Awaited<ReturnType<typeof selectUndelivered>>): Delivery[] {
  return passes.map((pass) => {
    if (pass.status === 'nullified') return { passId: pass.id, error: 'The pass is nullified.' };
    return { passId: pass.id, ...renderMessage(batch.content, pass.variables, passContentOf(pass)) };
  });
}

/**
 * Sends one chunk of a `sending` batch, or finishes it when no pass is left.
 * @returns `sent` after a chunk, `finished` when it set the final status, `stopped` when the
 *   batch is no longer sending.
 */
async function sendChunk({ db, clock }: BatchJobDependencies, batchId: string, chunkSize: number): Promise<'sent' | 'finished' | 'stopped'> {
  return db.prisma.$transaction(async (tx) => {
    const batch = await lockBatch(tx, batchId);
    if (batch?.status !== 'sending') return 'stopped';
    const now = clock.now();
    const passes = await selectUndelivered(tx, batch, chunkSize);
    if (passes.length) {
      await recordDeliveries(tx, batch, render(batch, passes), now);
      return 'sent';
    }
    const { sent, failed } = await deliveryCounts(tx, batchId);
    const outcome = batchOutcome(sent, batch.errorCount);
    await transitionBatch(tx, null, batchId, ['sending'], { ...outcome, recipientCount: sent + failed, completedAt: now }, now);
    return 'finished';
  }, WRITE_TRANSACTION);
}

/**
 * Takes the next step of a batch (see the module description). This is what every
 * `wallet-messaging` job runs; it is safe to run at any time, repeatedly and concurrently.
 * @throws Database errors (the job is then retried).
 */
export async function advanceBatch(deps: BatchJobDependencies, batchId: string, options: AdvanceOptions = {}): Promise<AdvanceResult> {
  let batch = await deps.db.prisma.batch.findUnique({ where: { id: batchId } });
  if (batch?.status === 'validating') batch = await validate(deps, batchId);
  if (!batch) return 'gone';
  if (batch.status === 'scheduled') {
    const now = deps.clock.now();
    const waitMs = batch.scheduledAt.getTime() - now.getTime();
    if (waitMs > 0) {
      await enqueue(deps, batchId, Math.ceil(waitMs / 1000));
      return 'deferred';
    }
    const recipientCount = batch.segmentTags.length ? await countSegmentPasses(deps.db.prisma, batch.accountId, batch.segmentTags) : batch.recipientCount;
    batch = await transitionBatch(deps.db.prisma, null, batchId, ['scheduled'], { status: 'sending', recipientCount }, now);
    if (!batch) return 'idle';
  }
  if (batch.status !== 'sending') return 'idle';
  const chunkSize = options.chunkSize ?? CHUNK_SIZE;
  for (let chunk = 0; chunk < (options.chunksPerRun ?? CHUNKS_PER_RUN); chunk++) {
    const step = await sendChunk(deps, batchId, chunkSize);
    if (step !== 'sent') return step === 'finished' ? 'finished' : 'idle';
  }
  await enqueue(deps, batchId);
  return 'continued';
}

/**
 * The queue handler. An error fails the attempt and pg-boss retries it (the next attempt goes
 * on from the committed chunks); after the last attempt the batch is set `failed`, so that it
 * never stays `validating` or `sending` for ever.
 */
export function walletMessagingHandler(deps: BatchJobDependencies & { logger: Logger }): JobHandler<'wallet-messaging'> {
  return async (job) => {
    const { batchId } = job.data;
    const log = deps.logger.child({ jobId: job.id, batchId });
    try {
      const result = await advanceBatch(deps, batchId);
      log.info({ result }, 'wallet messaging batch advanced');
    } catch (error) {
      if (job.retryCount < job.retryLimit) {
        log.warn({ err: error, attempt: job.retryCount + 1 }, 'wallet messaging batch step failed; it will be retried');
        throw error;
      }
      log.error({ err: error }, 'wallet messaging batch step failed on its last attempt');
      const now = deps.clock.now();
      const { sent } = await deliveryCounts(deps.db.prisma, batchId);
      await transitionBatch(
        deps.db.prisma,
        null,
        batchId,
        ['validating', 'scheduled', 'sending'],
        { status: 'failed', statusDetail: `Sending stopped after an internal error; ${sent} recipients got the message.`, completedAt: now },
        now,
      );
    }
  };
}
