/**
 * Graceful stop of a long-running process (the server, `npm run worker`) on SIGTERM or SIGINT.
 *
 * A Ctrl-C in a terminal sends SIGINT to the whole foreground process group, and `npm start`
 * forwards the SIGINT it got to its child as well, so a process commonly receives the signal
 * twice; a supervisor may repeat SIGTERM. The handlers therefore stay installed for the whole
 * shutdown: had they been removed after the first signal (`process.once`), the next one would
 * meet Node's default action and end the process at once, in the middle of the drain, without
 * "shutdown complete" (https://nodejs.org/docs/latest-v20.x/api/process.html#signal-events:
 * installing a listener removes the default behaviour). Repeated signals are logged and
 * otherwise ignored: the stop is bounded by `SHUTDOWN_TIMEOUT_MS` anyway.
 *
 * @module shutdown
 */
import type { Logger } from './logger.ts';

/**
 * Ends the process with `code` once the log lines written so far reached their destination (pino
 * writes asynchronously; `process.exit` would drop what is still buffered).
 */
export function exitAfterLogFlush(logger: Logger, code: number): void {
  let exited = false;
  const exit = () => {
    if (exited) return;
    exited = true;
    process.exit(code);
  };
  try {
    logger.flush(() => exit());
  } catch {
    exit();
  }
  // A destination that never answers (a closed pipe) must not keep the process up.
  setTimeout(exit, 1000).unref();
}

/**
 * On the first SIGTERM or SIGINT: logs it, runs `stop`, logs "shutdown complete" and exits 0 when
 * it resolves, or logs "shutdown failed" and exits 1 when it rejects; later signals are logged and
 * ignored.
 * @param stop Stops the process's work: stops serving, lets running work finish (bounded), closes
 *   the database.
 */
export function exitOnSignals(logger: Logger, stop: () => Promise<void>): void {
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) {
      logger.info({ signal }, 'shutdown already in progress');
      return;
    }
    stopping = true;
    logger.info({ signal }, 'shutting down');
    stop().then(
      () => {
        logger.info('shutdown complete');
        exitAfterLogFlush(logger, 0);
      },
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        exitAfterLogFlush(logger, 1);
      },
    );
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}
