/**
 * `npm run worker`: runs the job workers (src/jobs/workers.ts) in a process of their own, with no
 * HTTP server, next to any number of servers and other workers on the same PostgreSQL database
 * (pg-boss hands each job to one of them). Reads the same environment as the server; applies
 * pending migrations first (serialised with the servers' by the migration lock); stops on
 * SIGTERM/SIGINT, letting running jobs finish within SHUTDOWN_TIMEOUT_MS.
 *
 * PostgreSQL only: the embedded PGlite database must be opened by one process at a time (two
 * processes on one data directory corrupt it, and PGlite does not lock it), and there the server
 * runs the workers itself. Without DATABASE_URL the worker refuses to start (exit code 2).
 *
 * Like the server, it imports src/telemetry/register.ts first (OpenTelemetry, README "Tracing").
 *
 * Exit codes: 0 stopped by a signal, 1 could not start, 2 configuration error.
 *
 * @module worker
 */
import './telemetry/register.ts';
import { ConfigError, loadConfig, requirePublicBaseUrl, type Config } from './config.ts';
import { createLogger } from './logger.ts';
import { MigrationError } from './db/migrate.ts';
import type { Runtime } from './deps.ts';
import { closeRuntime, openRuntime, startJobs } from './runtime.ts';
import { exitOnSignals } from './shutdown.ts';
import { shutdownTelemetry } from './telemetry/tracing.ts';

let config: Config;
try {
  config = loadConfig(process.env);
  if (!config.databaseUrl) {
    throw new ConfigError(
      'npm run worker needs DATABASE_URL (PostgreSQL). The embedded database can be opened by one process only; there the server runs the workers itself.',
    );
  }
  requirePublicBaseUrl(config);
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  console.error(`Configuration error: ${error.message}`);
  process.exit(2);
}

const logger = createLogger(config.logLevel).child({ process: 'worker' });
let runtime: Runtime | undefined;
try {
  runtime = await openRuntime(config, logger);
  await startJobs(runtime, { work: true });
} catch (error) {
  if (error instanceof MigrationError) logger.fatal(error.message);
  else logger.fatal({ err: error }, 'could not start');
  if (runtime) await closeRuntime(runtime).catch(() => undefined);
  process.exit(1);
}

const running = runtime;
exitOnSignals(logger, async () => {
  await closeRuntime(running);
  await shutdownTelemetry();
});
