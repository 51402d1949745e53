/**
 * After a pass changes: one `pass-changed` job, queued in the transaction of the write that
 * changed it (so a rollback queues nothing and a crash loses nothing), pushes the change to every
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
 * @module delivery/passChanged
 */
import type { SqlExecutor } from '../db/database.ts';
import { Prisma } from '../../generated/prisma/client.ts';
import { defineJob } from '../jobs/jobDefinition.ts';
import type { JobQueue } from '../jobs/queue.ts';
import type { Runtime } from '../runtime.ts';
import { pushToDevices } from './applePush.ts';
import { selectDeliveredTargets, selectPushTargets } from './deliveryStore.ts';
import { syncGooglePass } from './googleSync.ts';

/** How long a change waits for more changes of its pass before it is pushed, in seconds. */
export const COALESCE_SECONDS = 1;

/** Thrown when some pushes must be tried again later (the job is retried with back-off). */
export class RetryLater extends Error {
  override name = 'RetryLater';
}

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
    if (retry.length) throw new RetryLater(`${retry.length} of ${outcomes.length} pushes of pass ${passId} must be tried again (${retry[0]!.result.status} ${retry[0]!.result.reason ?? ''}).`);
    if (google.outcome === 'retry') throw new RetryLater(`The Google Wallet object of pass ${passId} must be written again (${google.reason ?? 'no answer'}).`);
    return { passId, devices: outcomes.length, delivered: outcomes.filter((o) => o.result.outcome === 'delivered').length, google: google.outcome };
  },
  // After the last attempt the failures are in the delivery record; nothing else to mark.
  async onLastAttemptFailed() {},
});

/**
 * Where a pass's change goes: `devices` (int), how many Apple devices are registered for the
 * pass, and `google` (boolean), whether its account has Google Wallet credentials (Google has no
 * registration: every pass has an object). Two output columns for a statement's select list;
 * `pass` names a row with the pass's `id` and `account_id` in its FROM clause.
 */
export function deliveryTargetsSql(pass: string): Prisma.Sql {
  return Prisma.raw(`(SELECT count(*)::int FROM apple_registrations r WHERE r.pass_id = ${pass}.id) AS devices,
         EXISTS (SELECT 1 FROM google_configurations g WHERE g.account_id = ${pass}.account_id) AS google`);
}

/** What {@link deliveryTargetsSql} selects. */
interface DeliveryTargets {
  devices: number;
  google: boolean;
}

/**
 * Queues the delivery of a pass's change, in the caller's transaction (coalesced with a change of
 * the same pass already waiting) — when there is a wallet to deliver to: Apple devices
 * registered for the pass, or Google Wallet when the account has Google credentials.
 * Otherwise nothing is queued (the next download is current anyway).
 * @returns How many Apple devices the change will be pushed to.
 */
export async function queuePassChange(tx: SqlExecutor, jobs: JobQueue, passId: string): Promise<number> {
  const [targets] = await tx.$queryRaw<DeliveryTargets[]>`SELECT ${deliveryTargetsSql('p')} FROM passes p WHERE p.id = ${passId}::uuid`;
  if (targets && (targets.devices || targets.google)) await sendPassChangedJobs(tx, jobs, [passId]);
  return targets?.devices ?? 0;
}

/**
 * Queues the `pass-changed` jobs of passes known to have somewhere to go, in the caller's
 * transaction and one statement, each coalesced with one of its pass already waiting (for
 * {@link queuePassChange}, {@link queuePassChanges} and the pass-change outbox,
 * src/resources/passes/passChangeOutbox.ts).
 */
export async function sendPassChangedJobs(tx: SqlExecutor, jobs: JobQueue, passIds: readonly string[]): Promise<void> {
  await jobs.sendMany(
    tx,
    passChangedJob,
    passIds.map((passId) => ({ data: { passId }, singletonKey: passId, startAfterSeconds: COALESCE_SECONDS })),
  );
}

/**
 * {@link queuePassChange} for many passes at once (a template's new design reaching all its
 * passes): one `pass-changed` job per pass that is in a wallet or has a Google object to write,
 * in one statement, in the caller's transaction.
 * @param passIds The changed passes (any number; those with nowhere to deliver are skipped).
 * @returns How many passes got a job (or were coalesced into one already waiting).
 */
export async function queuePassChanges(tx: SqlExecutor, jobs: JobQueue, passIds: readonly string[]): Promise<number> {
  if (!passIds.length) return 0;
  const rows = await tx.$queryRaw<{ passId: string }[]>`
    SELECT DISTINCT pass_id::text AS "passId" FROM apple_registrations WHERE pass_id = ANY(${passIds}::uuid[])
     UNION
    SELECT p.id::text FROM passes p JOIN google_configurations g ON g.account_id = p.account_id WHERE p.id = ANY(${passIds}::uuid[])`;
  await sendPassChangedJobs(tx, jobs, rows.map((row) => row.passId));
  return rows.length;
}
