/**
 * Graceful stop of a long-running process (the server, `npm run worker`) on SIGTERM or SIGINT.
 *
 * @module shutdown
 */
import type { Logger } from './logger.ts';

/**
 * On the first SIGTERM or SIGINT: logs it, runs `stop`, and exits 0 when it resolves, 1 when it
 * rejects (logging the error).
 * @param stop Stops the process's work: stops serving, lets running work finish (bounded), closes
 *   the database.
 */
export function exitOnSignals(logger: Logger, stop: () => Promise<void>): void {
  const shutdown = (signal: string) => {
    logger.info({ signal }, 'shutting down');
    stop().then(
      () => {
        logger.info('shutdown complete');
        process.exit(0);
      },
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
}
