/**
 * Durable background jobs, kept in the service's own database by pg-boss 12 (exact pin 12.35.0;
 * see the toolchain notes). pg-boss installs and migrates its tables in the `pgboss` schema on
 * start; the Prisma migrations never touch it.
 *
 * Jobs are enqueued with {@link JobQueue.send} inside the Prisma interactive transaction that
 * writes the data they act on, so the data and its job commit or roll back together: a template
 * is never stored without its processing job, nor a job without its template. A job survives a
 * restart; a worker that dies while running one loses its claim after the queue's
 * `expireInSeconds`, and the job is retried.
 *
 * The queues are the job definitions of `src/queues.ts` (src/jobs/jobDefinition.ts); this module
 * knows none of them by name.
 *
 * PGlite (one connection): pg-boss talks to the same PGlite instance through `fromPglite`
 * (`backend: 'pglite'`). Its statements wait while a Prisma transaction holds the connection.
 * So that `send` inside such a transaction never needs pg-boss's own connection (which would
 * wait for the transaction that waits for it: a deadlock), every queue's metadata is loaded
 * into pg-boss's cache by {@link JobQueue.start}, before any request can enqueue.
 *
 * Polling on PGlite: its one connection serves requests and jobs alike, and every statement runs
 * as synchronous WebAssembly on the event loop, so each of pg-boss's fetches (a locking
 * `UPDATE … FOR UPDATE SKIP LOCKED`, 2–15 ms each, one per queue per polling interval: six per
 * second at 1 s) holds up the requests that arrive meanwhile. There, pg-boss's workers do not poll
 * on their own (only every {@link PGLITE_WORKER_POLL_SECONDS}, a floor); one read-only statement
 * per polling interval asks which of the service's queues have a job due (the fetch's conditions:
 * `state < 'active' AND NOT blocked AND start_after <= job_now()`) and wakes only those queues'
 * workers in process (pg-boss `notifyWorker`). A job sent now still wakes its worker at once
 * through NOTIFY, which PGlite delivers in process; a delayed one (a retry, a coalescing window,
 * a batch's start) is picked up within a polling interval of its time, as before. pg-boss's
 * vacuum monitor is off there: PGlite runs no autovacuum to report on. PostgreSQL is unchanged.
 *
 * With tracing on, a job carries the trace of whoever queued it, and each run is a span of that
 * trace (src/jobs/jobTracing.ts).
 *
 * @module jobs/queue
 */
import type { PGlite } from '@electric-sql/pglite';
import { PgBoss, fromPglite, fromPrisma, type JobResult, type JobWithMetadata } from 'pg-boss';
import type { Database, SqlExecutor } from '../db/database.ts';
import { selectDueQueues } from '../db/jobQueueStore.ts';
import type { Logger } from '../logger.ts';
import type { AnyJobDefinition, JobDefinition, QueueDeclaration, QueuedJob } from './jobDefinition.ts';
import { runningJob, sendingJobs } from './jobTracing.ts';

/** Options of {@link createJobQueue}. */
export interface JobQueueOptions {
  /**
   * How often an idle worker polls, in seconds (≥ 0.5, default 1); on PGlite, how often one
   * statement looks for due jobs of every queue instead (module comment). LISTEN/NOTIFY wakes
   * workers as soon as a job commits; polling is the floor for a missed notification and what
   * finds delayed jobs, so a job waits at most this long for a free worker (within the 2 s
   * processing target of pass templates).
   */
  pollingIntervalSeconds?: number;
  /** How long `stop()` waits for running jobs, in ms (default 10000). */
  stopTimeoutMs?: number;
}

/** The job queue of the service (one per process). */
export interface JobQueue {
  /**
   * Installs or migrates pg-boss's schema, creates the queues with their settings and loads
   * their metadata. Must finish before `send` or `work`. Idempotent.
   * @throws Error when the database cannot be reached or pg-boss cannot migrate.
   */
  start(): Promise<void>;
  /**
   * Enqueues a job through the caller's transaction (it commits with it).
   * @param tx The Prisma interactive transaction of the write the job acts on.
   * @param queue The job's definition (its payload type checks `data`).
   * @param options.id A UUID to use as the job id (default: pg-boss makes one).
   * @param options.startAfterSeconds Delay before the job may run, in seconds from the
   *   database's clock (default 0: at once).
   * @param options.singletonKey On a queue with the `stately` policy, at most one job per key
   *   waits at a time: a job sent while another with the key is queued is coalesced into it.
   * @returns The job id, or null when the job was coalesced into a queued one.
   * @throws Error when the queue is not started, or pg-boss refused a job without a singleton key.
   */
  send<Payload>(
    tx: SqlExecutor,
    queue: QueueDeclaration<Payload>,
    data: NoInfer<Payload>,
    options?: { id?: string; startAfterSeconds?: number; singletonKey?: string },
  ): Promise<string | null>;
  /**
   * Enqueues many jobs of one queue through the caller's transaction, in one statement (pg-boss
   * `insert`, https://timgit.github.io/pg-boss/#/./api/jobs?id=insert): what {@link JobQueue.send}
   * does for each, without a round trip per job. A job whose singleton key is already queued
   * is coalesced into it (the insert skips it).
   * @param jobs Each job's payload and options, as for `send`.
   * @throws Error when the queue is not started.
   */
  sendMany<Payload>(
    tx: SqlExecutor,
    queue: QueueDeclaration<Payload>,
    jobs: readonly { data: NoInfer<Payload>; startAfterSeconds?: number; singletonKey?: string }[],
  ): Promise<void>;
  /**
   * Enqueues a job on pg-boss's own connection, outside any transaction (for work that is already
   * stored, e.g. resuming it at start).
   * @param options.singletonKey As for `send`: on a `stately` queue the job is coalesced into a
   *   queued one with the key.
   * @returns The job id, or null when the job was coalesced into a queued one.
   * @throws Error when the queue is not started, or pg-boss refused a job without a singleton key.
   */
  enqueue<Payload>(queue: QueueDeclaration<Payload>, data: NoInfer<Payload>, options?: { singletonKey?: string }): Promise<string | null>;
  /**
   * Runs `handler` for the jobs of `queue` in this process until `stop()`: up to
   * `queue.settings.batchSize` jobs at a time (default 1), fetching again at once while fetches
   * come back full. A job whose handler throws fails alone and is retried per the queue's settings.
   * @throws Error when the queue is not started.
   */
  work<Payload>(queue: JobDefinition<Payload, never>, handler: (job: QueuedJob<Payload>) => Promise<void>): Promise<void>;
  /** Stops workers (waiting for running jobs, bounded) and pg-boss's timers and connections. Idempotent. */
  stop(): Promise<void>;
}

/** A UUID no job has: looking it up loads a queue's metadata into pg-boss's cache. */
const NO_JOB = '00000000-0000-0000-0000-000000000000';

/** On PGlite, how often pg-boss's workers poll on their own, in seconds: a floor under the due-job watcher. */
export const PGLITE_WORKER_POLL_SECONDS = 30;

/**
 * A pg-boss instance on the database: PGlite's own instance (no vacuum monitor: PGlite runs no
 * autovacuum), or a small pool of its own (at most 4 connections plus 1 for LISTEN) on PostgreSQL;
 * its errors and warnings go to `logger`.
 */
function newPgBoss(db: Database, logger: Logger): PgBoss {
  const common = { schedule: false, useListenNotify: true } as const;
  const boss =
    db.driver.kind === 'pglite'
      ? new PgBoss({ ...common, db: fromPglite(db.driver.pglite), backend: 'pglite', monitorVacuum: false })
      : new PgBoss({ ...common, connectionString: db.driver.connectionString, max: 4, application_name: 'wallet-pass-service-jobs' });
  boss.on('error', (err) => logger.error({ err }, 'job queue error'));
  boss.on('warning', (warning) => logger.warn({ warning }, 'job queue warning'));
  return boss;
}

/**
 * Starts pg-boss and creates (or updates) the queue of every definition, loading each queue's
 * metadata into pg-boss's cache so that `send` inside a transaction never needs its own connection.
 */
async function startQueues(boss: PgBoss, queues: readonly AnyJobDefinition<never>[]): Promise<void> {
  await boss.start();
  for (const { name, settings } of queues) {
    const { batchSize: _worker, ...queueSettings } = settings;
    await boss.createQueue(name, queueSettings);
    // The policy of a queue is fixed when it is created; the rest follows the definition.
    const { policy: _policy, ...updatable } = queueSettings;
    await boss.updateQueue(name, updatable);
    await boss.findJobs(name, { id: NO_JOB });
  }
}

/**
 * Runs a fetched batch of jobs at once, each succeeding or failing on its own (pg-boss
 * `perJobResults`), each in its span when tracing is on (src/jobs/jobTracing.ts).
 */
function runBatch(queue: string, jobs: JobWithMetadata<object>[], handler: (job: QueuedJob<never>) => Promise<void>): Promise<JobResult[]> {
  return Promise.all(
    jobs.map(async (job): Promise<JobResult> => {
      try {
        await runningJob(queue, job, (data) => handler({ id: job.id, data: data as never, retryCount: job.retryCount, retryLimit: job.retryLimit }));
        return { id: job.id, status: 'completed' };
      } catch (error) {
        return { id: job.id, status: 'failed', output: { message: String((error as Error)?.message ?? error) } };
      }
    }),
  );
}

/**
 * On PGlite, the due-job watcher: every polling interval one read-only statement finds which of
 * the queues worked here have a job due, and wakes only their workers (`notifyWorker`), instead of
 * every worker running its own locking fetch on the one connection.
 */
function dueJobWatcher(pglite: PGlite, boss: PgBoss, workerIds: Map<string, string[]>, pollingIntervalSeconds: number, logger: Logger) {
  let timer: NodeJS.Timeout | undefined;
  let looking: Promise<void> = Promise.resolve();
  let stopped = false;
  const watch = () => {
    timer = setTimeout(() => {
      looking = selectDueQueues(pglite, [...workerIds.keys()])
        .then(
          (names) => {
            for (const name of names) for (const id of workerIds.get(name) ?? []) boss.notifyWorker(id);
          },
          (err: unknown) => logger.error({ err }, 'job queue: looking for due jobs failed; trying again'),
        )
        .finally(() => !stopped && watch());
    }, pollingIntervalSeconds * 1000);
    timer.unref();
  };
  return {
    /** Starts watching (once). */
    start() {
      if (!timer && !stopped) watch();
    },
    /** Stops watching and waits for a look under way. */
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await looking;
    },
  };
}

/**
 * Creates the job queue on the database `db` (nothing runs until `start()`).
 * @param db The open database; pg-boss reuses its PGlite instance, or opens its own small pool
 *   (at most 4 connections plus 1 for LISTEN) on the same PostgreSQL database.
 * @param logger Receives pg-boss errors and warnings.
 * @param queues Every job definition of the service (src/queues.ts): `start()` creates their queues.
 */
export function createJobQueue(db: Database, logger: Logger, queues: readonly AnyJobDefinition<never>[], options: JobQueueOptions = {}): JobQueue {
  const pglite = db.driver.kind === 'pglite' ? db.driver.pglite : undefined;
  const boss = newPgBoss(db, logger);
  const pollingIntervalSeconds = options.pollingIntervalSeconds ?? 1;
  let starting: Promise<void> | undefined;
  let started = false;
  let stopping: Promise<void> | undefined;
  // PGlite: the workers of each queue worked here, woken by the due-job watcher.
  const workerIds = new Map<string, string[]>();
  const watcher = pglite ? dueJobWatcher(pglite, boss, workerIds, pollingIntervalSeconds, logger) : undefined;

  const assertStarted = () => {
    if (!started || stopping) throw new Error('The job queue is not running; call start() first.');
  };

  return {
    start: () =>
      (starting ??= startQueues(boss, queues).then(() => {
        started = true;
      })),

    async send(tx, queue, data, sendOptions = {}) {
      assertStarted();
      const id = await sendingJobs(queue.name, 1, (stamp) =>
        boss.send(queue.name, stamp(data as object), {
          db: fromPrisma(tx),
          ...(sendOptions.id ? { id: sendOptions.id } : {}),
          ...(sendOptions.startAfterSeconds ? { startAfter: sendOptions.startAfterSeconds } : {}),
          ...(sendOptions.singletonKey ? { singletonKey: sendOptions.singletonKey } : {}),
        }),
      );
      if (!id && !sendOptions.singletonKey) throw new Error(`pg-boss did not accept the ${queue.name} job.`);
      return id;
    },

    async sendMany(tx, queue, jobs) {
      assertStarted();
      if (!jobs.length) return;
      await sendingJobs(queue.name, jobs.length, (stamp) =>
        boss.insert(
          queue.name,
          jobs.map((job) => ({
            data: stamp(job.data as object),
            ...(job.startAfterSeconds ? { startAfter: job.startAfterSeconds } : {}),
            ...(job.singletonKey ? { singletonKey: job.singletonKey } : {}),
          })),
          { db: fromPrisma(tx) },
        ),
      );
    },

    async enqueue(queue, data, enqueueOptions = {}) {
      assertStarted();
      const id = await sendingJobs(queue.name, 1, (stamp) =>
        boss.send(queue.name, stamp(data as object), enqueueOptions.singletonKey ? { singletonKey: enqueueOptions.singletonKey } : {}),
      );
      if (!id && !enqueueOptions.singletonKey) throw new Error(`pg-boss did not accept the ${queue.name} job.`);
      return id;
    },

    async work(queue, handler) {
      assertStarted();
      const batchSize = queue.settings.batchSize ?? 1;
      // On PGlite the workers' own polling is only a floor under the due-job watcher (module comment).
      const workerPollSeconds = pglite ? PGLITE_WORKER_POLL_SECONDS : pollingIntervalSeconds;
      const workerId = await boss.work(
        queue.name,
        {
          includeMetadata: true,
          batchSize,
          // Without it a worker waits a polling interval after every fetch, even a full one: a
          // burst of 30 jobs took 30 intervals. pg-boss ignores it at batchSize 1.
          burstWhenBatchFull: true,
          perJobResults: true,
          // NOTIFY is a hint pg-boss may miss (a notification that lands while the worker is between
          // fetches); polling stays the floor, at the same interval whether or not LISTEN is up.
          pollingIntervalSeconds: workerPollSeconds,
          notifyPollingIntervalSeconds: workerPollSeconds,
        },
        (jobs: JobWithMetadata<object>[]) => runBatch(queue.name, jobs, handler),
      );
      if (!pglite) return;
      workerIds.set(queue.name, [...(workerIds.get(queue.name) ?? []), workerId]);
      if (!stopping) watcher?.start();
    },

    stop: () =>
      (stopping ??= (async () => {
        if (starting) await starting.catch(() => {});
        await watcher?.stop();
        await boss.stop({ graceful: true, close: true, timeout: options.stopTimeoutMs ?? 10_000 });
      })()),
  };
}
