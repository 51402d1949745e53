/**
 * The shared dependencies of a process — configuration, logger, database, job queue, secrets
 * cipher, clock, the clients of outside services — as one type, on a low floor: request handlers
 * get them through their request context, job definitions through their scope, and every module
 * that needs them imports this type, never the module that builds them (src/runtime.ts, the
 * wiring at the top).
 *
 * @module deps
 */
import type { Clock } from './clock.ts';
import type { Config } from './config.ts';
import type { DataDirLock } from './db/dataDirLock.ts';
import type { Database } from './db/database.ts';
import type { JobQueue } from './jobs/queue.ts';
import type { Logger } from './logger.ts';
import type { Resolver } from './net/outboundRequest.ts';
import type { ServiceMetrics } from './metrics.ts';
import type { ApiTokenCache } from './security/apiTokenCache.ts';
import type { SecretCipher } from './security/secrets.ts';
import type { ApnsClient } from './wallet/apple/apns.ts';
import type { GoogleCallbackKeys } from './wallet/google/callbackKeys.ts';
import type { GoogleWalletClient } from './wallet/google/client.ts';

/** Work a process runs in the background between `start()` and `stop()`. */
export interface BackgroundTask {
  /** Starts it. Idempotent. */
  start(): void;
  /** Stops it and waits for work under way. Idempotent. */
  stop(): Promise<void>;
}

/** What handlers and jobs run with. */
export interface Runtime {
  readonly config: Config;
  readonly logger: Logger;
  readonly db: Database;
  /** The job queue of `src/queues.ts` (started by {@link startJobs}). */
  readonly jobs: JobQueue;
  /** Encrypts and decrypts secrets stored in the database (src/security/secrets.ts). */
  readonly secrets: SecretCipher;
  readonly clock: Clock;
  /** Pushes pass updates to Apple devices (`APNS_URL`), one HTTP/2 session per certificate. */
  readonly apns: ApnsClient;
  /** API keys this process verified lately (src/security/apiTokenCache.ts). */
  readonly apiTokens: ApiTokenCache;
  /** What `GET /metrics` reports (src/metrics.ts). */
  readonly metrics: ServiceMetrics;
  /** Calls the Google Wallet API (`GOOGLE_WALLET_API_URL`), within Google's per-issuer rate. */
  readonly googleWallet: GoogleWalletClient;
  /** Google's root keys of Wallet callbacks (`GOOGLE_WALLET_CALLBACK_KEYS_URL`), fetched and cached per process. */
  readonly googleCallbackKeys: GoogleCallbackKeys;
  /**
   * Resolves the host names of outbound requests to addresses users chose (webhooks, template
   * images) before the guard checks them (src/net/outboundRequest.ts): the system resolver; tests inject one.
   */
  readonly resolveHost: Resolver;
  /** The pass-change outbox relay (src/delivery/passChangeRelay.ts): relays this process's changes as they commit; started with the workers, also what is left in the outbox. */
  readonly passChangeRelay: BackgroundTask;
  /** The audit log's sealer (src/domain/audit/auditSeal.ts): seals this process's audit events into their chains after they commit. */
  readonly auditSealer: BackgroundTask;
  /** The lock of `DATA_DIR` held while the embedded database is open (src/db/dataDirLock.ts); released by {@link closeRuntime}. */
  readonly dataDirLock?: DataDirLock;
}
