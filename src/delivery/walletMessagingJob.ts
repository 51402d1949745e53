/**
 * The `wallet-messaging` job: takes a wallet messaging batch through its status flow (contract
 * `BatchStatus`). Every job of the queue carries only a batch id and runs
 * {@link advanceBatch}, which reads the batch and does the next step its status calls for:
 *
 * - `validating`: resolve the listed recipients with the passes module's `findPass` (or count a
 *   segment's passes) → `scheduled`, or `failed` when no listed recipient can be messaged;
 * - `scheduled`: before `scheduledAt` (by the injected clock) enqueue a job for then and stop;
 *   at or after it → `sending`;
 * - `sending`: send chunk after chunk, each in its own transaction that locks the batch row,
 *   picks the next passes not yet delivered to, renders the message for each, and records the
 *   deliveries while setting `latestMessage` (src/domain/batches/batchStore.ts
 *   `recordDeliveries`); then push the chunk to the Apple devices of its passes, where the
 *   message shows through the pass's message field (`changeMessage`), add it to their Google
 *   Wallet objects (`addMessage`), and record each pass's result (Apple devices and the Google
 *   object counted together). When no pass is left, finish `successful` (every recipient's message stored and, for
 *   passes in a wallet, pushed), `completedWithErrors` (some could not be rendered, stored or
 *   pushed: the errors CSV says why) or `failed`. A run sends at most {@link CHUNKS_PER_RUN}
 *   chunks, then enqueues a job for the rest.
 *
 * Durable and restartable: the state is the database, not the job. A job that runs twice, jobs
 * that run at once (the one `sendBatchNow` enqueued and the one waiting for `scheduledAt`), or a
 * run that died between two chunks all continue where the committed chunks left off; the
 * `(batch, pass)` primary key of deliveries makes sure no pass is messaged twice.
 *
 * @module delivery/walletMessagingJob
 */
import type { PrismaExecutor } from '../db/database.ts';
import { storableCopy, unstorableReason } from '../db/storableText.ts';
import { rollbackToSavepoint, setSavepoint } from '../db/savepoints.ts';
import { pushBatchMessage } from './applePush.ts';
import { messageGooglePasses } from './googleSync.ts';
import { defineJob } from '../jobs/jobDefinition.ts';
import type { Runtime } from '../deps.ts';
import { walletMessagingQueue, type AdvanceOptions, type AdvanceResult } from '../domain/batches/batchQueues.ts';
import { findPass } from '../domain/passes/passStore.ts';
import { passContentOf } from '../domain/passes/serializePass.ts';
import { batchOutcome, renderMessage } from '../domain/batches/batchRules.ts';
import { recordBatchCompleted } from '../domain/batches/batchWebhooks.ts';
import {
  countSegmentPasses,
  deliveryCounts,
  lockBatch,
  recordDeliveries,
  recordPushes,
  recordResolutions,
  selectPendingPushes,
  selectBatchesInFlight,
  selectRecipients,
  selectUndelivered,
  startWhenDue,
  transitionBatch,
  type BatchRow,
  type Delivery,
  type RecipientResolution,
} from '../domain/batches/batchStore.ts';

/** Passes per chunk transaction. */
export const CHUNK_SIZE = 1000;
/** Chunks one job run sends before handing the rest to a new job (keeps a run well under the queue's `expireInSeconds`). */
export const CHUNKS_PER_RUN = 25;

/**
 * What the job works with: the database, the queue (to enqueue the job for `scheduledAt` and the
 * follow-up of a long batch), the clock (which decides when `scheduledAt` is reached, and stamps
 * deliveries and `completedAt`), and what pushes to Apple devices (APNs, the secrets the
 * certificates' keys are sealed with).
 */
export type BatchJobDependencies = Pick<Runtime, 'db' | 'jobs' | 'clock' | 'apns' | 'secrets' | 'metrics' | 'googleWallet' | 'config'>;

const enqueue = (deps: BatchJobDependencies, batchId: string, startAfterSeconds = 0) =>
  deps.jobs.send(deps.db.prisma, walletMessagingQueue, { batchId }, { startAfterSeconds });

/**
 * Resolves the listed recipients of a `validating` batch (or counts its segments' passes) and
 * schedules it, in one transaction holding the batch's row lock.
 * @returns The batch after validation (possibly cancelled or validated by another run meanwhile), or null when it is gone.
 */
async function validate(deps: BatchJobDependencies, batchId: string): Promise<BatchRow | null> {
  const { db, clock } = deps;
  return db.write(async (tx) => {
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
    const changes = recipientCount === 0 ? { ...batchOutcome(0, errorCount), completedAt: now } : { status: 'scheduled' as const };
    return recordBatchCompleted(tx, deps, await transitionBatch(tx, null, batchId, ['validating'], { ...changes, recipientCount, errorCount }, now), now);
  });
}

/** A database or rendering error as the reason of a failed delivery: storable, at most 300 characters. */
const reasonOf = (error: unknown) =>
  storableCopy(String((error as Error)?.message ?? error))
    .replace(/\s+/g, ' ')
    .slice(0, 300);

/**
 * Renders the message for each pass of a chunk, each on its own: a pass whose message cannot be
 * rendered, or would contain text the database cannot store (a NUL or an unpaired surrogate
 * from its field values or the recipient's variables, src/db/storableText.ts), gets an error
 * delivery and does not stop the others.
 * @returns One delivery per pass: the message, or why the pass cannot get it.
 */
function render(batch: BatchRow, passes: Awaited<ReturnType<typeof selectUndelivered>>): Delivery[] {
  return passes.map((pass): Delivery => {
    if (pass.status === 'nullified') return { passId: pass.id, error: 'The pass is nullified.' };
    try {
      const rendered = renderMessage(batch.content ?? '', pass.variables, passContentOf(pass));
      const unstorable = 'message' in rendered ? unstorableReason(rendered.message) : undefined;
      if (unstorable)
        return {
          passId: pass.id,
          error: `The rendered message contains ${unstorable} (from the pass's field values or the recipient's variables), which cannot be stored.`,
        };
      return { passId: pass.id, ...rendered };
    } catch (error) {
      return { passId: pass.id, error: `The message could not be rendered for this pass: ${reasonOf(error)}` };
    }
  });
}

/**
 * Records a chunk's deliveries in the caller's transaction. When the database refuses the chunk
 * as a whole, records them one by one, each behind a savepoint (PostgreSQL documentation,
 * SAVEPOINT / ROLLBACK TO SAVEPOINT), so that a pass whose delivery cannot be stored is recorded
 * `failed` with the database's reason and the other passes are messaged.
 * @throws Database errors that even recording a failure hits (the database away): the job retries.
 */
async function recordChunk(tx: PrismaExecutor, batch: BatchRow, deliveries: Delivery[], now: Date): Promise<void> {
  await setSavepoint(tx, 'chunk');
  try {
    await recordDeliveries(tx, batch, deliveries, now);
    return;
  } catch {
    await rollbackToSavepoint(tx, 'chunk');
  }
  for (const delivery of deliveries) {
    await setSavepoint(tx, 'delivery');
    try {
      await recordDeliveries(tx, batch, [delivery], now);
    } catch (error) {
      await rollbackToSavepoint(tx, 'delivery');
      await recordDeliveries(tx, batch, [{ passId: delivery.passId, error: `The message could not be stored for this pass: ${reasonOf(error)}` }], now);
    }
  }
}

/**
 * Sends one chunk of a `sending` batch, or finishes it when no pass is left.
 * @returns `sent` after a chunk, `finished` when it set the final status, `stopped` when the
 *   batch is no longer sending.
 */
async function sendChunk(deps: BatchJobDependencies, batchId: string, chunkSize: number): Promise<'sent' | 'finished' | 'stopped'> {
  const { db, clock } = deps;
  return db.write(async (tx) => {
    const batch = await lockBatch(tx, batchId);
    if (batch?.status !== 'sending') return 'stopped';
    const now = clock.now();
    const passes = await selectUndelivered(tx, batch, chunkSize);
    if (passes.length) {
      await recordChunk(tx, batch, render(batch, passes), now);
      return 'sent';
    }
    const { sent, failed, pushFailed, pending, wallets } = await deliveryCounts(tx, batchId);
    // Pushes of the last chunk still to make: the caller makes them, then comes back to finish.
    if (pending) return 'sent';
    const outcome = batchOutcome(sent - pushFailed, batch.errorCount + pushFailed, wallets);
    const finished = await transitionBatch(
      tx,
      null,
      batchId,
      ['sending'],
      { ...outcome, recipientCount: sent + failed, errorCount: batch.errorCount + pushFailed, completedAt: now },
      now,
    );
    await recordBatchCompleted(tx, deps, finished, now);
    return 'finished';
  });
}

/**
 * Pushes the stored messages of a batch that are not pushed yet (a chunk) to the Apple devices
 * of their passes (src/delivery/applePush.ts), adds them to their Google Wallet objects
 * (src/delivery/googleSync.ts), and records each pass's result.
 */
async function pushPending(deps: BatchJobDependencies, batchId: string, limit: number): Promise<void> {
  const passIds = await selectPendingPushes(deps.db.prisma, batchId, limit);
  if (!passIds.length) return;
  const [apple, google] = await Promise.all([pushBatchMessage(deps, batchId, passIds), messageGooglePasses(deps, batchId, passIds)]);
  // Apple devices and the Google object count together; an error stands only when neither was reached.
  const results = apple.map((a, i) => {
    const g = google[i]!;
    const devices = a.devices + g.devices;
    return { passId: a.passId, devices, error: devices > 0 ? null : (a.error ?? g.error) };
  });
  await recordPushes(deps.db.prisma, batchId, results, deps.clock.now());
}

/**
 * Takes the next step of a batch (see the module description). This is what every
 * `wallet-messaging` job runs; it is safe to run at any time, repeatedly and concurrently.
 * @throws Database errors (the job is then retried).
 */
export async function advanceBatch(deps: BatchJobDependencies, batchId: string, options: AdvanceOptions = {}): Promise<AdvanceResult> {
  let batch = await deps.db.prisma.batch.findUnique({ where: { id: batchId } });
  if (batch && batch.type !== 'walletMessaging') return 'gone';
  if (batch?.status === 'validating') batch = await validate(deps, batchId);
  if (!batch) return 'gone';
  if (batch.status === 'scheduled') {
    const { segmentTags, accountId } = batch;
    // A segment's recipients are counted when sending starts.
    const start = await startWhenDue(deps.db.prisma, batch, deps.clock.now(), async () =>
      segmentTags.length ? { recipientCount: await countSegmentPasses(deps.db.prisma, accountId, segmentTags) } : {},
    );
    if ('waitSeconds' in start) {
      await enqueue(deps, batchId, start.waitSeconds);
      return 'deferred';
    }
    batch = start.started;
    if (!batch) return 'idle';
  }
  if (batch.status !== 'sending') return 'idle';
  const chunkSize = options.chunkSize ?? CHUNK_SIZE;
  for (let chunk = 0; chunk < (options.chunksPerRun ?? CHUNKS_PER_RUN); chunk++) {
    // Pushes a stored chunk (also one left by a run that died between storing and pushing).
    await pushPending(deps, batchId, chunkSize);
    const step = await sendChunk(deps, batchId, chunkSize);
    if (step !== 'sent') return step === 'finished' ? 'finished' : 'idle';
  }
  await enqueue(deps, batchId);
  return 'continued';
}

/**
 * The `wallet-messaging` queue: every job carries only a batch id and runs {@link advanceBatch}.
 * A run sends a bounded number of chunks (a few seconds) and hands the rest to a new job, so
 * 5 minutes active means a dead worker. An error fails the attempt and pg-boss retries it (the
 * next attempt goes on from the committed chunks), backing off from 2 s up to 5 minutes; after
 * the last attempt the batch is set `failed`, so that it never stays `validating` or `sending`
 * for ever. No NOTIFY: most of these jobs start at a time (a batch's scheduledAt), which NOTIFY
 * does not announce, and with NOTIFY on pg-boss polls only every 30 s; without it workers poll
 * every `pollingIntervalSeconds`, so a batch starts at most that long after its time. A job
 * scheduled months ahead is kept until 14 days past its start (pg-boss's default retention).
 * At start, every batch validating, sending or due gets a job ({@link advanceBatch} is safe to run
 * concurrently), so a batch whose worker was killed goes on within seconds of the restart, from
 * its committed chunks, instead of when the dead job's claim expires.
 */
export const walletMessagingJob = defineJob<{ batchId: string }, Runtime>({
  name: walletMessagingQueue.name,
  settings: { retryLimit: 8, retryDelay: 2, retryBackoff: true, retryDelayMax: 300, expireInSeconds: 300, deleteAfterSeconds: 7 * 24 * 3600, notify: false },
  async run({ data: { batchId } }, runtime) {
    return { batchId, result: await advanceBatch(runtime, batchId) };
  },
  inFlight: async ({ db, clock }) => (await selectBatchesInFlight(db.prisma, clock.now())).map(({ id }) => ({ batchId: id })),
  async onLastAttemptFailed({ data: { batchId } }, _error, runtime) {
    const { db, clock } = runtime;
    const now = clock.now();
    const { sent } = await deliveryCounts(db.prisma, batchId);
    await db.write(async (tx) => {
      const failed = await transitionBatch(
        tx,
        null,
        batchId,
        ['validating', 'scheduled', 'sending'],
        { status: 'failed', statusDetail: `Sending stopped after an internal error; ${sent} recipients got the message.`, completedAt: now },
        now,
      );
      await recordBatchCompleted(tx, runtime, failed, now);
    });
  },
});
