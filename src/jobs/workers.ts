/**
 * The handler of every queue (src/jobs/queue.ts), and the one call that starts them all in a
 * process: the server runs them in-process, `npm run worker` (src/worker.ts) on their own.
 * The {@link HANDLERS} type makes the compiler insist on a handler for every queue.
 *
 * @module jobs/workers
 */
import type { Database } from '../db/database.ts';
import type { Clock } from '../http/operation.ts';
import type { Logger } from '../logger.ts';
import { passTemplateProcessingHandler } from '../resources/passTemplates/processPassTemplate.ts';
import { walletMessagingHandler } from '../resources/batches/batchSender.ts';
import type { JobHandler, JobQueue, QueueName } from './queue.ts';

/** What job handlers are built from. */
export interface WorkerDependencies {
  db: Database;
  logger: Logger;
  /** Defaults to the system clock. */
  clock?: Clock;
}

/** What a handler is built from: the worker's dependencies and the queue (to enqueue follow-up jobs). */
export type HandlerDependencies = Required<WorkerDependencies> & { jobs: JobQueue };

const HANDLERS: { [Q in QueueName]: (deps: HandlerDependencies) => JobHandler<Q> } = {
  'pass-template-processing': passTemplateProcessingHandler,
  'wallet-messaging': walletMessagingHandler,
};

/**
 * Starts a worker for every queue on a started queue; they run until `queue.stop()`.
 * @throws Error when the queue is not started.
 */
export async function startWorkers(queue: JobQueue, deps: WorkerDependencies): Promise<void> {
  const full = { clock: { now: () => new Date() }, ...deps, jobs: queue };
  const work = <Q extends QueueName>(name: Q) => queue.work(name, HANDLERS[name](full));
  for (const name of Object.keys(HANDLERS) as QueueName[]) await work(name);
  deps.logger.info({ queues: Object.keys(HANDLERS) }, 'job workers started');
}
