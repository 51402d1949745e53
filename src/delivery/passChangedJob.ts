/**
 * After a pass changes: one `pass-changed` job, queued by the pass-change outbox relay
 * (src/delivery/passChangeRelay.ts) from the change's outbox row (so a rollback queues nothing and
 * a crash loses nothing), pushes the change to every
 * Apple device registered for the pass (src/delivery/applePush.ts) and writes it to the pass's
 * Google Wallet object when the account has Google credentials (src/delivery/googleSync.ts).
 *
 * Coalesced per pass: the queue's `stately` policy keeps at most one queued job per pass (its
 * singleton key), and each job waits a second before it runs, so a burst of changes — ten in a
 * second — makes one push per device; a change made while a job is running queues the next one
 * (https://timgit.github.io/pg-boss/#/./api/queues, "stately"). A retried job skips the devices
 * it reached already (their attempts are recorded with the job id), so a retry pushes nothing
 * twice.
 *
 * @module delivery/passChangedJob
 */
import type { SqlExecutor } from '../db/database.ts';
import { defineJob, RetryLater } from '../jobs/jobDefinition.ts';
import type { JobQueue } from '../jobs/queue.ts';
import type { Runtime } from '../deps.ts';
import { pushToDevices } from './applePush.ts';
import { selectDeliveredTargets, selectPushTargets } from '../domain/deliveryAttempts/deliveryAttemptStore.ts';
import { syncGooglePass } from './googleSync.ts';

/** How long a change waits for more changes of its pass before it is pushed, in seconds. */
export const COALESCE_SECONDS = 1;

/**
 * The `pass-changed` queue. Retries back off from 2 s up to 10 minutes, 10 times (about an hour
 * in all: APNs's own 429/503 advice); a job active for 2 minutes belongs to a dead worker. A
 * worker runs up to 100 jobs at once (their pushes share the HTTP/2 sessions).
 */
export const passChangedJob = defineJob<{ passId: string }, Runtime>({
  name: 'pass-changed',
  settings: {
    policy: 'stately',
    retryLimit: 10,
    retryDelay: 2,
    retryBackoff: true,
    retryDelayMax: 600,
    expireInSeconds: 120,
    deleteAfterSeconds: 7 * 24 * 3600,
    notify: true,
    // Up to 100 passes pushed at once per worker: with one job per fetch, a worker pushed one
    // pass per polling interval (1 pass/s: a template's new design took 50 s for 50 passes).
    batchSize: 100,
  },
  async run(job, runtime) {
    const { passId } = job.data;
    const reached = await selectDeliveredTargets(runtime.db.prisma, { jobId: job.id });
    const targets = (await selectPushTargets(runtime.db.prisma, [passId])).filter((t) => !reached.has(`${t.passId}/${t.deviceLibraryIdentifier}`));
    const context = { jobId: job.id, attempt: job.retryCount + 1, batchId: null };
    const [outcomes, google] = await Promise.all([pushToDevices(runtime, targets, context), syncGooglePass(runtime, passId, context)]);
    const retry = outcomes.filter((o) => o.result.outcome === 'retry');
    if (retry.length)
      throw new RetryLater(
        `${retry.length} of ${outcomes.length} pushes of pass ${passId} must be tried again (${retry[0]!.result.status} ${retry[0]!.result.reason ?? ''}).`,
      );
    if (google.outcome === 'retry') throw new RetryLater(`The Google Wallet object of pass ${passId} must be written again (${google.reason ?? 'no answer'}).`);
    return { passId, devices: outcomes.length, delivered: outcomes.filter((o) => o.result.outcome === 'delivered').length, google: google.outcome };
  },
  // After the last attempt the failures are in the delivery record; nothing else to mark.
  async onLastAttemptFailed() {},
});

/**
 * Queues the `pass-changed` jobs of passes known to have somewhere to go, in the caller's
 * transaction and one statement, each coalesced with one of its pass already waiting. Only the
 * pass-change outbox relay calls it (src/delivery/passChangeRelay.ts).
 */
export async function sendPassChangedJobs(tx: SqlExecutor, jobs: JobQueue, passIds: readonly string[]): Promise<void> {
  await jobs.sendMany(
    tx,
    passChangedJob,
    passIds.map((passId) => ({ data: { passId }, singletonKey: passId, startAfterSeconds: COALESCE_SECONDS })),
  );
}
