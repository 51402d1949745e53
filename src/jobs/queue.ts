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
 * One module owns all queues: a new kind of job adds its queue name, payload type and settings
 * to {@link JobPayloads} and {@link QUEUE_SETTINGS}, and its handler to src/jobs/workers.ts.
 *
 * PGlite (one connection): pg-boss talks to the same PGlite instance through `fromPglite`
 * (`backend: 'pglite'`). Its statements wait while a Prisma transaction holds the connection.
 * So that `send` inside such a transaction never needs pg-boss's own connection (which would
 * wait for the transaction that waits for it: a deadlock), every queue's metadata is loaded
 * into pg-boss's cache by {@link JobQueue.start}, before any request can enqueue.
 *
 * @module jobs/queue
 */
import { PgBoss, fromPglite, fromPrisma, type JobWithMetadata, type QueueOptions } from 'pg-boss';
import type { Database, PrismaExecutor } from '../db/database.ts';
import type { Logger } from '../logger.ts';

/** Every queue of the service and the payload of its jobs. */
export interface JobPayloads {
  /** Validate and render one design version of a pass template (src/resources/passTemplates/processPassTemplate.ts). */
  'pass-template-processing': { templateId: string; version: number };
  /** Take one step of a wallet messaging batch: validate, wait, or send (src/resources/batches/batchSender.ts). */
  'wallet-messaging': { batchId: string };
}

/** The name of a queue. */
export type QueueName = keyof JobPayloads;

/** pg-boss settings of a queue, applied at every start. */
export type QueueSettings = QueueOptions & {
  /** Wake workers through LISTEN/NOTIFY as soon as a job commits, instead of at their next poll. */
  notify?: boolean;
};

/**
 * Settings per queue. Template processing takes milliseconds, so a job active for 60 s belongs
 * to a dead worker and is retried; transient failures (the database away) retry up to 4 times
 * with exponential backoff from 1 s. Finished jobs are kept 7 days for inspection.
 */
export const QUEUE_SETTINGS: Record<QueueName, QueueSettings> = {
  'pass-template-processing': {
    retryLimit: 4,
    retryDelay: 1,
    retryBackoff: true,
    expireInSeconds: 60,
    deleteAfterSeconds: 7 * 24 * 3600,
    notify: true,
  },
  // A run sends a bounded number of chunks (a few seconds) and hands the rest to a new job, so
  // 5 minutes active means a dead worker. Retries back off from 2 s up to 5 minutes; a job
  // scheduled months ahead is kept until 14 days past its start (pg-boss's default retention).
  // No NOTIFY: most of these jobs start at a time (a batch's scheduledAt), which NOTIFY does not
  // announce, and with NOTIFY on pg-boss polls only every 30 s; without it workers poll every
  // `pollingIntervalSeconds`, so a batch starts at most that long after its time.
  'wallet-messaging': {
    retryLimit: 8,
    retryDelay: 2,
    retryBackoff: true,
    retryDelayMax: 300,
    expireInSeconds: 300,
    deleteAfterSeconds: 7 * 24 * 3600,
    notify: false,
  },
};

/** A job as a handler receives it. */
export interface QueuedJob<Q extends QueueName> {
  /** The pg-boss job id (a UUID). */
  id: string;
  data: JobPayloads[Q];
  /** Attempts already failed before this one (0 on the first run). */
  retryCount: number;
  /** Retries allowed; when `retryCount === retryLimit` this is the last attempt. */
  retryLimit: number;
}

/** Handles one job. Throwing fails the attempt; pg-boss retries it per {@link QUEUE_SETTINGS}. */
export type JobHandler<Q extends QueueName> = (job: QueuedJob<Q>) => Promise<void>;

/** Options of {@link createJobQueue}. */
export interface JobQueueOptions {
  /**
   * How often an idle worker polls, in seconds (≥ 0.5, default 1). LISTEN/NOTIFY wakes workers
   * as soon as a job commits; polling is the floor for a missed notification, so a job waits at
   * most this long for a free worker (within the 2 s processing target of pass templates).
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
   * @param options.id A UUID to use as the job id (default: pg-boss makes one).
   * @param options.startAfterSeconds Delay before the job may run, in seconds from the
   *   database's clock (default 0: at once).
   * @returns The job id.
   * @throws Error when the queue is not started, or pg-boss refused the job.
   */
  send<Q extends QueueName>(tx: PrismaExecutor, queue: Q, data: JobPayloads[Q], options?: { id?: string; startAfterSeconds?: number }): Promise<string>;
  /**
   * Runs `handler` for the jobs of `queue` in this process, one at a time, until `stop()`.
   * @throws Error when the queue is not started.
   */
  work<Q extends QueueName>(queue: Q, handler: JobHandler<Q>): Promise<void>;
  /** Stops workers (waiting for running jobs, bounded) and pg-boss's timers and connections. Idempotent. */
  stop(): Promise<void>;
}

/** A UUID no job has: looking it up loads a queue's metadata into pg-boss's cache. */
const NO_JOB = '00000000-0000-0000-0000-000000000000';

/**
 * Creates the job queue on the database `db` (nothing runs until `start()`).
 * @param db The open database; pg-boss reuses its PGlite instance, or opens its own small pool
 *   (at most 4 connections plus 1 for LISTEN) on the same PostgreSQL database.
 * @param logger Receives pg-boss errors and warnings.
 */
export function createJobQueue(db: Database, logger: Logger, options: JobQueueOptions = {}): JobQueue {
  const common = { schedule: false, useListenNotify: true } as const;
  const boss =
    db.driver.kind === 'pglite'
      ? new PgBoss({ ...common, db: fromPglite(db.driver.pglite), backend: 'pglite' })
      : new PgBoss({ ...common, connectionString: db.driver.connectionString, max: 4, application_name: 'wallet-pass-service-jobs' });
  boss.on('error', (err) => logger.error({ err }, 'job queue error'));
  boss.on('warning', (warning) => logger.warn({ warning }, 'job queue warning'));
  const pollingIntervalSeconds = options.pollingIntervalSeconds ?? 1;
  let starting: Promise<void> | undefined;
  let started = false;
  let stopping: Promise<void> | undefined;

  const assertStarted = () => {
    if (!started || stopping) throw new Error('The job queue is not running; call start() first.');
  };

  return {
    start: () =>
      (starting ??= (async () => {
        await boss.start();
        for (const [name, { notify, ...settings }] of Object.entries(QUEUE_SETTINGS)) {
          await boss.createQueue(name, { ...settings, notify });
          await boss.updateQueue(name, { ...settings, notify });
          await boss.findJobs(name, { id: NO_JOB });
        }
        started = true;
      })()),

    async send(tx, queue, data, sendOptions = {}) {
      assertStarted();
      const id = await boss.send(queue, data, {
        db: fromPrisma(tx),
        ...(sendOptions.id ? { id: sendOptions.id } : {}),
        ...(sendOptions.startAfterSeconds ? { startAfter: sendOptions.startAfterSeconds } : {}),
      });
      if (!id) throw new Error(`pg-boss did not accept the ${queue} job.`);
      return id;
    },

    async work(queue, handler) {
      assertStarted();
      await boss.work(
        queue,
        // NOTIFY is a hint pg-boss may miss (a notification that lands while the worker is between
        // fetches); polling stays the floor, at the same interval whether or not LISTEN is up.
        { includeMetadata: true, batchSize: 1, pollingIntervalSeconds, notifyPollingIntervalSeconds: pollingIntervalSeconds },
        async (jobs: JobWithMetadata<JobPayloads[typeof queue]>[]) => {
          for (const job of jobs) {
            await handler({ id: job.id, data: job.data, retryCount: job.retryCount, retryLimit: job.retryLimit });
          }
        },
      );
    },

    stop: () =>
      (stopping ??= (async () => {
        if (starting) await starting.catch(() => {});
        await boss.stop({ graceful: true, close: true, timeout: options.stopTimeoutMs ?? 10_000 });
      })()),
  };
}
