/**
 * What a kind of background job is: its queue name, its pg-boss settings, the work one job does,
 * and what to record when its last attempt fails. A definition lives beside the code it runs (a
 * resource's or delivery's module); `src/queues.ts` lists them all, as `src/operations.ts` lists
 * the HTTP handlers. A new queue is one definition and one line there; nothing under `src/jobs/`
 * changes.
 *
 * Modelled on Documenso's job definitions (`packages/lib/jobs/definitions/…` plus one registry
 * array in `packages/lib/jobs/client.ts`, https://github.com/documenso/documenso).
 *
 * @module jobs/jobDefinition
 */
import type { Queue } from 'pg-boss';
import type { Logger } from '../logger.ts';

/**
 * pg-boss settings of a queue (https://timgit.github.io/pg-boss/#/./api/queues), applied at
 * every start: retries (`retryLimit`, `retryDelay` s, `retryBackoff`, `retryDelayMax` s), how long
 * a job may stay active before it is presumed dead and retried (`expireInSeconds`), retention, and
 * the queue `policy` (`stately` keeps at most one queued job per `singletonKey`: later sends are
 * coalesced into it).
 */
export type QueueSettings = Omit<Queue, 'name' | 'partition' | 'deadLetter'> & {
  /** Wake workers through LISTEN/NOTIFY as soon as a job commits, instead of at their next poll. */
  notify?: boolean;
  /**
   * Jobs a worker takes in one fetch and runs concurrently (default 1). While fetches come back
   * full, the worker fetches again at once instead of waiting its polling interval (pg-boss
   * `burstWhenBatchFull`), so a backlog drains at the speed of the work, not one job per poll.
   * Each job of a fetch succeeds or fails on its own (pg-boss `perJobResults`).
   */
  batchSize?: number;
};

/** A job as its definition receives it. */
export interface QueuedJob<Payload> {
  /** The pg-boss job id (a UUID). */
  id: string;
  data: Payload;
  /** Attempts already failed before this one (0 on the first run). */
  retryCount: number;
  /** Retries allowed; when `retryCount === retryLimit` this is the last attempt. */
  retryLimit: number;
}

/** What a job's work gets besides its payload: the shared dependencies and its own logger. */
export type JobScope<Dependencies> = Dependencies & {
  /** A child logger bound to the queue and the job id. */
  log: Logger;
};

/**
 * A queue as the code that fills it knows it: its name, and (as a type) the payload of its jobs.
 * A module low in the house can send jobs to a queue whose work lives higher up — the domain
 * queues webhook deliveries that src/delivery sends — by declaring the queue
 * ({@link declareQueue}) beside its senders; the {@link JobDefinition} of the worker takes the
 * declaration's name. Every definition is a declaration of its own queue, too.
 */
export interface QueueDeclaration<Payload> {
  /** The pg-boss queue name, e.g. `pass-template-processing`. */
  readonly name: string;
  /** Never set: carries the payload type. */
  readonly payload?: Payload;
}

/** Declares a queue by name for its senders (see {@link QueueDeclaration}). */
export function declareQueue<Payload>(name: string): QueueDeclaration<Payload> {
  return { name };
}

/**
 * A kind of job.
 * @typeParam Payload The JSON payload of its jobs (kept small: ids, never secrets).
 * @typeParam Dependencies What its work needs (the service's runtime, src/deps.ts).
 */
export interface JobDefinition<Payload, Dependencies> extends QueueDeclaration<Payload> {
  readonly settings: QueueSettings;
  /**
   * Does the work of one job. Throwing fails the attempt, which pg-boss retries per `settings`
   * (src/jobs/retryPolicy.ts). The result, if any, is logged when the job ends.
   */
  // biome-ignore lint/suspicious/noConfusingVoidType: a job's work returns a record to log, or nothing at all
  run(job: QueuedJob<Payload>, scope: JobScope<Dependencies>): Promise<Record<string, unknown> | void>;
  /**
   * Called once when the last attempt has failed, to record the failure where users see it (a
   * template `failed`, a batch `failed`), so that nothing stays in progress for ever. Throwing
   * here fails the job in pg-boss too.
   */
  onLastAttemptFailed?(job: QueuedJob<Payload>, error: unknown, scope: JobScope<Dependencies>): Promise<void>;
  /**
   * The work the database says is under way (a template version still processing, a batch still
   * sending), as payloads of jobs that take it up again. Every worker start enqueues them, so work
   * whose worker was killed resumes at once instead of when its job's claim expires
   * (`expireInSeconds`). Only for definitions whose `run` is safe to run again (idempotent, its
   * state in the database) and either safe concurrently with another run of the same payload or
   * kept from that by a {@link singletonKey} on a `stately` queue.
   */
  inFlight?(dependencies: Dependencies): Promise<Payload[]>;
  /**
   * The singleton key of a payload, on a `stately` queue: the jobs {@link inFlight} queues at
   * start are sent with it, so that they are coalesced with a job of the same key already
   * waiting and never run beside one already running.
   */
  singletonKey?(payload: Payload): string;
}

/**
 * Thrown by a job's work when part of it must be tried again later (an outside service answered
 * 429 or 5xx, or not at all): the attempt fails and pg-boss retries it with the queue's back-off.
 */
export class RetryLater extends Error {
  override name = 'RetryLater';
}

/** A definition of any payload, as the registry holds them. */
// biome-ignore lint/suspicious/noExplicitAny: the registry holds definitions of every payload type; each is checked where it is defined
export type AnyJobDefinition<Dependencies> = JobDefinition<any, Dependencies>;

/**
 * Declares a kind of job (an identity function that fixes the payload type, so callers of
 * `JobQueue.send` are checked against it).
 */
export function defineJob<Payload, Dependencies>(definition: JobDefinition<Payload, Dependencies>): JobDefinition<Payload, Dependencies> {
  return definition;
}
