/**
 * Starts a worker for every job definition on a started queue, each wrapped in the one retry
 * policy (src/jobs/retryPolicy.ts). The server runs them in-process, `npm run worker`
 * (src/worker.ts) on their own; both pass the definitions of `src/queues.ts`.
 *
 * @module jobs/workers
 */
import type { Logger } from '../logger.ts';
import type { AnyJobDefinition } from './jobDefinition.ts';
import type { JobQueue } from './queue.ts';
import { withRetryPolicy } from './retryPolicy.ts';

/**
 * Starts the workers; they run until `queue.stop()`. First enqueues a job for each piece of work
 * the database says is under way (the definitions' `inFlight`): after a crash, the jobs of the
 * dead process stay claimed until their `expireInSeconds` runs out, and this takes the work up
 * again within a polling interval of the start instead. Those definitions' work is safe to run
 * again and concurrently, so a duplicate of a job that is still queued or running elsewhere
 * changes nothing; a definition with a `singletonKey` has its jobs sent with the key instead, so
 * that they are coalesced with the job of the key (src/jobs/jobDefinition.ts).
 * @param definitions The job definitions to work on (their queues were created by `queue.start()`).
 * @param dependencies What the definitions' work gets (the runtime).
 * @throws Error when the queue is not started, or an `inFlight` query fails.
 */
export async function startWorkers<Dependencies>(
  queue: JobQueue,
  definitions: readonly AnyJobDefinition<Dependencies>[],
  dependencies: Dependencies,
  logger: Logger,
): Promise<void> {
  for (const definition of definitions) {
    const payloads = definition.inFlight ? await definition.inFlight(dependencies) : [];
    for (const payload of payloads) {
      await queue.enqueue(
        definition as AnyJobDefinition<never>,
        payload as never,
        definition.singletonKey ? { singletonKey: definition.singletonKey(payload) } : {},
      );
    }
    if (payloads.length) logger.info({ queue: definition.name, resumed: payloads.length }, 'resuming work left in progress');
  }
  for (const definition of definitions) await queue.work(definition as AnyJobDefinition<never>, withRetryPolicy(definition, dependencies, logger));
  logger.info({ queues: definitions.map((d) => d.name) }, 'job workers started');
}
