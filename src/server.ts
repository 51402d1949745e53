/**
 * The process entry point (`npm start`): reads the configuration from the environment, opens the
 * database, applies pending migrations, listens, and shuts down gracefully on SIGTERM/SIGINT
 * (stop accepting connections, let in-flight requests finish within SHUTDOWN_TIMEOUT_MS, close
 * the database). This is the only module that reads `process.env` for the service.
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
import { createApp } from './app.ts';

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
  const db = await openDatabase({ databaseUrl: config.databaseUrl, pgliteDir: pgliteDirOf(config.dataDir) });
  try {
    const report = await applyMigrations(db);
    for (const warning of report.warnings) logger.warn(warning);
    logger.info({ applied: report.applied, database: db.kind }, 'database ready');
    const adminToken = await resolveAdminToken(config, logger);
    const app = createApp({ db, config, logger, adminToken });
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
        await db.close();
      })());
    return { server, db, url, stop };
  } catch (error) {
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
    if (error instanceof MigrationError) logger.fatal(error.message);
    else logger.fatal({ err: error }, 'could not start');
    process.exit(1);
  }
  const shutdown = (signal: string) => {
    logger.info({ signal }, 'shutting down');
    service.stop().then(
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

await main();
