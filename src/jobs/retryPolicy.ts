/**
 * The one retry policy of every queue: an attempt that throws is logged and rethrown, so that
 * pg-boss retries it with the queue's back-off (`retryLimit`, `retryDelay`, `retryBackoff`); when
 * the last attempt throws, the definition's `onLastAttemptFailed` records the failure and the
 * job ends. Immich's job handlers return a status instead of each catching its own last attempt
 * (https://github.com/immich-app/immich, `server/src/services/job.service.ts`); this wrapper is
 * that idea for pg-boss.
 *
 * @module jobs/retryPolicy
 */
import type { Logger } from '../logger.ts';
import type { JobDefinition, QueuedJob } from './jobDefinition.ts';

/**
 * Wraps a definition's work with the retry policy.
 * @param dependencies What the definition's work gets (plus a per-job child of `logger`).
 * @returns The function pg-boss runs for each job of the queue.
 */
export function withRetryPolicy<Payload, Dependencies>(
  definition: JobDefinition<Payload, Dependencies>,
  dependencies: Dependencies,
  logger: Logger,
): (job: QueuedJob<Payload>) => Promise<void> {
  return async (job) => {
    const log = logger.child({ queue: definition.name, jobId: job.id });
    const scope = { ...dependencies, log };
    try {
      const result = await definition.run(job, scope);
      log.info({ ...result, attempt: job.retryCount + 1 }, 'job done');
    } catch (error) {
      if (job.retryCount < job.retryLimit) {
        log.warn({ err: error, attempt: job.retryCount + 1, retryLimit: job.retryLimit }, 'job attempt failed; it will be retried');
        throw error;
      }
      log.error({ err: error, attempt: job.retryCount + 1 }, 'job failed on its last attempt');
      if (definition.onLastAttemptFailed) await definition.onLastAttemptFailed(job, error, scope);
      else throw error;
    }
  };
}
