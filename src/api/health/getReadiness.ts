import { clusterStarted, isClusterWorker } from '../../cluster.ts';
import { UNAVAILABLE_RETRY_AFTER_S } from '../../http/errors.ts';
import type { OperationHandler } from '../../http/operation.ts';

/** How long the readiness database check may take, in ms. */
export const READINESS_TIMEOUT_MS = 2000;

/**
 * `GET /readyz`: 200 when `SELECT 1` answers within 2 s, 503 with `Retry-After` otherwise. With
 * several server processes (src/cluster.ts) also 503 until every one has started
 * (`checks.processes: starting`): the primary hands connections to a starting process too, and
 * it could not yet answer them.
 */
export const getReadiness: OperationHandler<'getReadiness'> = async ({ ctx }) => {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('database check timed out')), READINESS_TIMEOUT_MS);
  });
  try {
    await Promise.race([ctx.db.ping(), timeout]);
    if (isClusterWorker()) {
      if (!clusterStarted()) {
        return {
          status: 503,
          body: { status: 'unavailable', checks: { database: 'ok', processes: 'starting' } },
          headers: { 'Retry-After': String(UNAVAILABLE_RETRY_AFTER_S) },
        };
      }
      return { status: 200, body: { status: 'ok', checks: { database: 'ok', processes: 'ok' } } };
    }
    return { status: 200, body: { status: 'ok', checks: { database: 'ok' } } };
  } catch (error) {
    ctx.log.warn({ err: error }, 'readiness check failed');
    return { status: 503, body: { status: 'unavailable', checks: { database: 'unavailable' } }, headers: { 'Retry-After': String(UNAVAILABLE_RETRY_AFTER_S) } };
  } finally {
    clearTimeout(timer);
  }
};
