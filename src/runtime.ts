/**
 * Builds the shared dependencies of a process ({@link Runtime}, src/deps.ts): configuration, logger, database, job queue, secrets
 * cipher, clock and the clients of outside services (APNs), built in one place for the server (src/server.ts), `npm run worker`
 * (src/worker.ts) and the tests. Request handlers get them through their request context, job
 * definitions through their scope.
 *
 * @module runtime
 */
import type { Config } from './config.ts';
import type { Runtime } from './deps.ts';
import { systemClock, type Clock } from './clock.ts';
import { lockDataDir, type DataDirLock } from './db/dataDirLock.ts';
import { openDatabase, pgliteDirOf, type Database } from './db/database.ts';
import { applyMigrations } from './db/migrate.ts';
import { createJobQueue, type JobQueueOptions } from './jobs/queue.ts';
import { startWorkers } from './jobs/workers.ts';
import type { Logger } from './logger.ts';
import { createMetrics } from './metrics.ts';
import { queues } from './queues.ts';
import { ApiTokenCache } from './security/apiTokenCache.ts';
import { resolveSecretsKey, SecretCipher } from './security/secrets.ts';
import { createApnsClient, type ApnsClient } from './wallet/apple/apns.ts';
import { createGoogleWalletClient, type GoogleWalletClient } from './wallet/google/client.ts';
import { createGoogleCallbackKeys } from './wallet/google/callbackKeys.ts';
import { createGoogleThrottle } from './delivery/googleRateLimit.ts';
import { createPassChangeRelay } from './delivery/passChangeRelay.ts';
import { createAuditSealer } from './domain/audit/auditSeal.ts';
import { systemResolver, type Resolver } from './net/outboundRequest.ts';

/** What {@link assembleRuntime} builds a runtime from. */
export interface RuntimeParts {
  config: Config;
  logger: Logger;
  /** An open, migrated database. */
  db: Database;
  /** The 32-byte key of secrets at rest. */
  secretsKey: Buffer;
  /** Defaults to the system clock. */
  clock?: Clock;
  /** Polling interval and stop timeout of the job queue (default: 1 s, `SHUTDOWN_TIMEOUT_MS`). */
  jobQueue?: JobQueueOptions;
  /** Defaults to a client of `APNS_URL`; tests pass one that trusts their APNs stand-in. */
  apns?: ApnsClient;
  /** Defaults to a client of `GOOGLE_WALLET_API_URL`, throttled per issuer across workers. */
  googleWallet?: GoogleWalletClient;
  /** The data directory's lock, when the database is the embedded one. */
  dataDirLock?: DataDirLock;
  /** Also measure Node's process metrics (default false: tests run many runtimes in one process). */
  processMetrics?: boolean;
  /** Resolver of the host names webhooks and template images name (default: the system's, `getaddrinfo`). */
  resolveHost?: Resolver;
  /** Time between rounds of the pass-change outbox relay, in ms (default 5000). */
  passChangeRelayIntervalMs?: number;
}

/** Builds a runtime from parts that are already open; starts nothing. */
export function assembleRuntime(parts: RuntimeParts): Runtime {
  const { config, logger, db } = parts;
  const jobs = createJobQueue(db, logger, queues, { stopTimeoutMs: config.shutdownTimeoutMs, ...parts.jobQueue });
  return {
    config,
    logger,
    db,
    jobs,
    secrets: new SecretCipher(parts.secretsKey, config.secretsKeyPrevious ? [config.secretsKeyPrevious] : []),
    clock: parts.clock ?? systemClock,
    apns: parts.apns ?? createApnsClient({ baseUrl: config.apnsUrl }),
    apiTokens: new ApiTokenCache(db.listen),
    metrics: createMetrics(db, { processMetrics: parts.processMetrics ?? false }),
    googleWallet:
      parts.googleWallet ??
      createGoogleWalletClient({
        apiUrl: config.googleWalletApiUrl,
        tokenUrl: config.googleOauthTokenUrl,
        throttle: createGoogleThrottle(db, config.googleWalletRequestsPerSecond),
      }),
    resolveHost: parts.resolveHost ?? systemResolver,
    googleCallbackKeys: createGoogleCallbackKeys({ url: config.googleWalletCallbackKeysUrl, clock: parts.clock ?? systemClock }),
    passChangeRelay: createPassChangeRelay(
      { config, logger, db, jobs },
      parts.passChangeRelayIntervalMs ? { intervalMs: parts.passChangeRelayIntervalMs } : {},
    ),
    auditSealer: createAuditSealer({ db, logger }),
    ...(parts.dataDirLock ? { dataDirLock: parts.dataDirLock } : {}),
  };
}

/**
 * Locks `DATA_DIR` when the database is the embedded one (src/db/dataDirLock.ts): one process
 * per embedded database. With PostgreSQL nothing is locked (servers and workers share it).
 * @throws DataDirLockedError naming the process that holds it.
 */
export function lockEmbeddedDataDir(config: Config): DataDirLock | undefined {
  return config.databaseUrl ? undefined : lockDataDir(config.dataDir);
}

/**
 * Opens the runtime of a process: locks `DATA_DIR` on the embedded database, decides the secrets
 * key (before touching any data, so a missing key stops the process first), opens the database
 * of the configuration, applies pending migrations and assembles the rest. Nothing runs yet: see
 * {@link startJobs}.
 * @throws DataDirLockedError, ConfigError (secrets key), MigrationError, or a database connection
 *   error; the database is closed and the lock released again on failure.
 */
export async function openRuntime(config: Config, logger: Logger): Promise<Runtime> {
  const dataDirLock = lockEmbeddedDataDir(config);
  try {
    const secretsKey = await resolveSecretsKey(config, logger);
    const db = await openDatabase({ databaseUrl: config.databaseUrl, pgliteDir: pgliteDirOf(config.dataDir), poolSize: config.databasePoolSize });
    try {
      const report = await applyMigrations(db);
      for (const warning of report.warnings) logger.warn(warning);
      logger.info({ applied: report.applied, database: db.kind }, 'database ready');
      return assembleRuntime({ config, logger, db, secretsKey, processMetrics: true, ...(dataDirLock ? { dataDirLock } : {}) });
    } catch (error) {
      await db.close();
      throw error;
    }
  } catch (error) {
    dataDirLock?.release();
    throw error;
  }
}

/**
 * Starts the job queue (creating the queues of `src/queues.ts`) and, when `work` is true, a
 * worker for each of them in this process and the pass-change outbox relay.
 * @throws Error when pg-boss cannot start or migrate its schema.
 */
export async function startJobs(runtime: Runtime, options: { work: boolean }): Promise<void> {
  await runtime.jobs.start();
  if (!options.work) return;
  await startWorkers(runtime.jobs, queues, runtime, runtime.logger);
  runtime.passChangeRelay.start();
}

/** Stops the job queue (letting running jobs finish, bounded), closes the outside clients and the database, and releases `DATA_DIR`. */
export async function closeRuntime(runtime: Runtime): Promise<void> {
  try {
    await runtime.passChangeRelay.stop();
    await runtime.auditSealer.stop();
    await runtime.jobs.stop();
    await runtime.apns.close();
    await runtime.googleWallet.close();
    await runtime.db.close();
  } finally {
    runtime.dataDirLock?.release();
  }
}
