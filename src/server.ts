/**
 * The process entry point (`npm start`): reads the configuration from the environment, listens
 * (so that a port in use stops the process before it touches any data), locks `DATA_DIR` on the
 * embedded database, opens the database, applies pending migrations, starts the job queue and
 * its workers in-process (src/jobs; `npm run worker` runs more of them on their own), serves
 * the app, and shuts down gracefully on SIGTERM/SIGINT (stop accepting connections, let
 * in-flight requests finish within SHUTDOWN_TIMEOUT_MS, let running jobs finish within the same
 * bound, close the database). While the database opens, requests get 503 with `Retry-After`
 * (liveness, `/healthz`, answers 200). With `WEB_CONCURRENCY` above 1 this process is the
 * primary of that many server processes, each doing all of the above (src/cluster.ts). This is
 * the only module that reads `process.env` for the service, besides src/telemetry/register.ts,
 * imported first, which starts OpenTelemetry when `OTEL_EXPORTER_OTLP_ENDPOINT` is set (README,
 * "Tracing"); what it buffered is exported before the process exits.
 *
 * Exit codes: 0 stopped by a signal, 1 could not start (port in use, `DATA_DIR` held by another
 * process, database unreachable, failed migration), 2 configuration error.
 *
 * @module server
 */
import './telemetry/register.ts';
import type { RequestListener, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ConfigError, loadConfig, requirePublicBaseUrl, type Config } from './config.ts';
import { createLogger, type Logger } from './logger.ts';
import type { Database } from './db/database.ts';
import { DataDirLockedError } from './db/dataDirLock.ts';
import { MigrationError } from './db/migrate.ts';
import { createHttpServer, listen, ListenError, serveApp } from './http/listener.ts';
import { resolveAdminToken } from './security/adminToken.ts';
import { createApp, warmUpApp } from './app.ts';
import { isClusterWorker, reportListening, runPrimary } from './cluster.ts';
import { closeRuntime, openRuntime, startJobs } from './runtime.ts';
import { exitOnSignals } from './shutdown.ts';
import { shutdownTelemetry } from './telemetry/tracing.ts';

/** A running service. */
export interface RunningService {
  server: Server;
  db: Database;
  url: string;
  /** Stops accepting, waits for in-flight requests (bounded), closes the database. */
  stop(): Promise<void>;
}

/** Seconds a client is asked to wait (`Retry-After`) while the service starts. */
const STARTING_RETRY_AFTER_S = 1;

/**
 * Answers requests while the database opens: `/healthz` 200 (the process is up), `/readyz` 503
 * with its readiness document, anything else 503 with a JSON:API error; 503s carry `Retry-After`
 * (RFC 9110 §10.2.3).
 */
const whileStarting: RequestListener = (req, res) => {
  const path = (req.url ?? '').split('?')[0];
  const [status, body] =
    path === '/healthz'
      ? [200, { status: 'ok' }]
      : path === '/readyz'
        ? [503, { status: 'unavailable', checks: { database: 'unavailable' } }]
        : [
            503,
            { errors: [{ status: '503', code: 'service_unavailable', title: 'Service unavailable', detail: 'The service is starting; retry in a moment.' }] },
          ];
  res.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Cache-Control': 'no-store',
    ...(status === 503 ? { 'Retry-After': String(STARTING_RETRY_AFTER_S) } : {}),
  });
  res.end(JSON.stringify(body));
};

/**
 * Starts the service: listens first (a port in use fails here, before any data is touched), then
 * opens the runtime and serves the app.
 * @throws ListenError, DataDirLockedError, ConfigError, MigrationError, or a database connection error.
 */
export async function startService(config: Config, logger: Logger): Promise<RunningService> {
  const server = createHttpServer(config, whileStarting);
  await listen(server, config.port, config.host);
  let runtime: Awaited<ReturnType<typeof openRuntime>>;
  try {
    runtime = await openRuntime(config, logger);
  } catch (error) {
    await new Promise((done) => server.close(done));
    throw error;
  }
  try {
    const adminToken = await resolveAdminToken(config, logger);
    // Before the app: requests enqueue jobs, and jobs left by an earlier run start again.
    await startJobs(runtime, { work: true });
    const app = createApp({ runtime, adminToken });
    server.off('request', whileStarting);
    serveApp(server, app);
    const { port } = server.address() as AddressInfo;
    const url = `http://${config.host}:${port}`;
    // The validator loads the contract on the first request it sees (~200 ms) and compiles each
    // operation's schemas on its first request: do both before announcing that we listen.
    await fetch(`${url}/readyz`).catch(() => undefined);
    // Only an optimisation: a failed warm-up leaves the compilation to the first requests.
    await warmUpApp(app).then(
      (warmUp) => logger.info(warmUp, 'request validators compiled'),
      (error: unknown) => logger.warn({ err: error }, 'request validators not compiled ahead; the first requests will compile them'),
    );
    if (isClusterWorker()) {
      logger.info({ url, pid: process.pid }, 'process listening');
      reportListening(url, runtime.metrics.registry);
    } else logger.info({ url, docs: `${url}/docs` }, 'listening');
    let stopping: Promise<void> | undefined;
    const stop = () =>
      (stopping ??= (async () => {
        // Clients on keep-alive connections that keep sending would hold the drain open until
        // the timeout: a request that arrives now gets its answer with `Connection: close`
        // (RFC 9112 §9.6), and a connection is closed as soon as it falls idle.
        server.prependListener('request', (_req, res: ServerResponse) => res.setHeader('Connection', 'close'));
        const closed = new Promise<void>((done) => server.close(() => done()));
        server.closeIdleConnections();
        const idleSweep = setInterval(() => server.closeIdleConnections(), 50);
        const timer = setTimeout(() => {
          logger.warn('shutdown timeout reached; closing remaining connections');
          server.closeAllConnections();
        }, config.shutdownTimeoutMs);
        await closed;
        clearInterval(idleSweep);
        clearTimeout(timer);
        await closeRuntime(runtime);
      })());
    return { server, db: runtime.db, url, stop };
  } catch (error) {
    await new Promise((done) => server.close(done));
    await closeRuntime(runtime).catch(() => undefined);
    throw error;
  }
}

async function main(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig(process.env);
    requirePublicBaseUrl(config);
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`Configuration error: ${error.message}`);
      process.exit(2);
    }
    throw error;
  }
  const logger = createLogger(config.logLevel);
  if (config.webConcurrency > 1 && !isClusterWorker()) return runPrimary(config.webConcurrency, logger);
  let service: RunningService;
  try {
    service = await startService(config, logger);
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`Configuration error: ${error.message}`);
      process.exit(2);
    }
    if (error instanceof MigrationError || error instanceof ListenError || error instanceof DataDirLockedError) {
      logger.fatal(error.message);
      console.error(`Could not start: ${error.message}`);
    } else logger.fatal({ err: error }, 'could not start');
    process.exit(1);
  }
  exitOnSignals(logger, async () => {
    await service.stop();
    await shutdownTelemetry();
  });
}

await main();
