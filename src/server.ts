/**
 * The process entry point (`npm start`): reads the configuration from the environment, opens the
 * database, applies pending migrations, starts the job queue and its workers in-process
 * (src/jobs; `npm run worker` runs more of them on their own), listens, and shuts down gracefully
 * on SIGTERM/SIGINT (stop accepting connections, let in-flight requests finish within
 * SHUTDOWN_TIMEOUT_MS, let running jobs finish within the same bound, close the database).
 * This is the only module that reads `process.env` for the service.
 *
 * @module server
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ConfigError, loadConfig, type Config } from './config.ts';
import { createLogger, type Logger } from './logger.ts';
import { openDatabase, pgliteDirOf, type Database } from './db/database.ts';
import { applyMigrations, MigrationError } from './db/migrate.ts';
import { resolveAdminToken } from './security/adminToken.ts';
import { resolveSecretsKey } from './security/secrets.ts';
import { createApp } from './app.ts';
import { createJobQueue } from './jobs/queue.ts';
import { startWorkers } from './jobs/workers.ts';
import { exitOnSignals } from './shutdown.ts';

/** A running service. */
export interface RunningService {
  server: Server;
  db: Database;
  url: string;
  /** Stops accepting, waits for in-flight requests (bounded), closes the database. */
  stop(): Promise<void>;
}

/**
 * Starts the service.
 * @throws ConfigError, MigrationError, or a database connection error.
 */
export async function startService(config: Config, logger: Logger): Promise<RunningService> {
  // Before the database: a missing key must stop the service before it touches any data.
  const secretsKey = await resolveSecretsKey(config, logger);
  const db = await openDatabase({ databaseUrl: config.databaseUrl, pgliteDir: pgliteDirOf(config.dataDir) });
  const jobs = createJobQueue(db, logger, { stopTimeoutMs: config.shutdownTimeoutMs });
  try {
    const report = await applyMigrations(db);
    for (const warning of report.warnings) logger.warn(warning);
    logger.info({ applied: report.applied, database: db.kind }, 'database ready');
    const adminToken = await resolveAdminToken(config, logger);
    // Before the app: requests enqueue jobs, and jobs left by an earlier run start again.
    await jobs.start();
    await startWorkers(jobs, { db, logger });
    const app = createApp({ db, config, logger, adminToken, secretsKey, jobs });
    const server = await new Promise<Server>((resolveServer, reject) => {
      const s = app.listen(config.port, config.host, () => resolveServer(s));
      s.once('error', reject);
    });
    const { port } = server.address() as AddressInfo;
    const url = `http://${config.host}:${port}`;
    // The validator loads and compiles the contract on the first request it sees (~200 ms);
    // make that request ourselves so the first client does not pay for it.
    await fetch(`${url}/readyz`).catch(() => undefined);
    logger.info({ url, docs: `${url}/docs` }, 'listening');
    let stopping: Promise<void> | undefined;
    const stop = () =>
      (stopping ??= (async () => {
        const closed = new Promise<void>((done) => server.close(() => done()));
        server.closeIdleConnections();
        const timer = setTimeout(() => {
          logger.warn('shutdown timeout reached; closing remaining connections');
          server.closeAllConnections();
        }, config.shutdownTimeoutMs);
        await closed;
        clearTimeout(timer);
        await jobs.stop();
        await db.close();
      })());
    return { server, db, url, stop };
  } catch (error) {
    await jobs.stop().catch(() => undefined);
    await db.close();
    throw error;
  }
}

async function main(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig(process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`Configuration error: ${error.message}`);
      process.exit(2);
    }
    throw error;
  }
  const logger = createLogger(config.logLevel);
  let service: RunningService;
  try {
    service = await startService(config, logger);
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`Configuration error: ${error.message}`);
      process.exit(2);
    }
    if (error instanceof MigrationError) logger.fatal(error.message);
    else logger.fatal({ err: error }, 'could not start');
    process.exit(1);
  }
  exitOnSignals(logger, () => service.stop());
}

await main();
