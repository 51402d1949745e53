/**
 * Builds the real app on a throw-away, migrated database for one test file, with responses
 * validated against the contract (an off-contract response becomes a 500 and fails the test),
 * logs captured in memory, and helpers that create tenants through the administration API.
 *
 * Usage:
 *   const service = await startTestService();
 *   afterAll(() => service.close());
 *   const { token } = await service.createAccount();
 *   await service.api.get('/api/v1/entities').set(service.auth(token)).expect(200);
 *
 * Background jobs are off unless asked for: `{ jobs: 'work' }` starts the job queue and its
 * workers as the server does, `{ jobs: 'enqueue' }` only the queue (jobs wait). `restart()`
 * stops the service and starts it again on the same database (`persistent: true` on PGlite).
 *
 * Every response is recorded for the contract coverage check (test/support/contractCoverage.ts).
 */
import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import supertest from 'supertest';
import type { Express } from 'express';
import { createApp, loadApiDocument } from '../../src/app.ts';
import type { OpenApiDocument } from '../../src/http/routes.ts';
import type { Config } from '../../src/config.ts';
import { applyMigrations } from '../../src/db/migrate.ts';
import { createLogger } from '../../src/logger.ts';
import type { JobQueue } from '../../src/jobs/queue.ts';
import type { Runtime } from '../../src/deps.ts';
import { assembleRuntime, startJobs } from '../../src/runtime.ts';
import type { ApnsClient } from '../../src/wallet/apple/apns.ts';
import type { Resolver } from '../../src/net/outboundRequest.ts';
import type { Clock } from '../../src/clock.ts';
import { createTestDatabase, type TestDatabase } from './testDatabase.ts';
import { recordingContractHits } from './contractCoverage.ts';

const bundledContract = loadApiDocument();

/** The configuration tests run with unless they override it. */
export function testConfig(overrides: Partial<Config> = {}): Config {
  return {
    port: 0,
    host: '127.0.0.1',
    dataDir: '/nonexistent',
    databaseUrl: undefined,
    publicBaseUrl: 'http://wallet.test',
    adminToken: undefined,
    logLevel: 'info',
    validateResponses: true,
    rateLimitPerSecond: 0,
    publishableRateLimitPerMinute: 0,
    bodyLimitBytes: 1024 * 1024,
    shutdownTimeoutMs: 1000,
    headersTimeoutMs: 10_000,
    requestTimeoutMs: 30_000,
    authFailuresPerMinute: 0,
    trustProxy: false,
    secretsKey: undefined,
    secretsKeyPrevious: undefined,
    applePassTypeId: 'pass.dev.wallet-pass-service',
    appleAllowDevelopmentCertificates: true,
    imageFetchAllowPrivate: false,
    apnsUrl: 'https://apns.invalid',
    webhookAllowPrivate: false,
    webhookRetryBaseMs: 30_000,
    webhookRetryWindowMs: 86_400_000,
    outboundTimeoutMs: 5000,
    webhookTimeoutMs: 10_000,
    webhookDisableAfterFailures: 5,
    sessionIdleTimeoutMinutes: 30,
    sessionAbsoluteTimeoutHours: 12,
    smtpUrl: undefined,
    smtpFrom: undefined,
    auditRetentionDays: 400,
    passBatchChunkSize: 1000,
    webConcurrency: 1,
    databasePoolSize: 10,
    googleWalletApiUrl: 'http://google-wallet.invalid/walletobjects/v1',
    googleOauthTokenUrl: 'http://google-oauth.invalid/token',
    googleSaveOrigins: [],
    holderPageBadgesDir: null,
    googleWalletRequestsPerSecond: 20,
    googleWalletCallbacks: false,
    googleWalletCallbackKeysUrl: 'http://google-keys.invalid/gp/m/issuer/keys',
    ...overrides,
  };
}

/** A clock tests can set and move. */
export class TestClock implements Clock {
  constructor(private current = new Date('2026-11-21T09:30:00Z')) {}
  now(): Date {
    return new Date(this.current);
  }
  set(date: Date | string): void {
    this.current = new Date(date);
  }
  advance(ms: number): void {
    this.current = new Date(this.current.getTime() + ms);
  }
}

export interface TestServiceOptions {
  config?: Partial<Config>;
  /** The clock of the app and, with `jobs: 'work'`, of the job workers (default: the system clock). */
  clock?: Clock;
  /** A contract to serve instead of generated/openapi.json (to prove validation bites). */
  apiDocument?: OpenApiDocument;
  /** The key of secrets at rest (default: 32 random bytes per service). */
  secretsKey?: Buffer;
  /** Time between rounds of the pass-change outbox relay with `jobs: 'work'`, in ms (default 5000). */
  passChangeRelayIntervalMs?: number;
  /** Background jobs: `off` (default, enqueueing fails), `enqueue` (queue only), `work` (queue and workers). */
  jobs?: 'off' | 'enqueue' | 'work';
  /** On PGlite, keep the database on disk so that `restart()` can reopen it (PostgreSQL always can). */
  persistent?: boolean;
  /** The APNs client (e.g. one trusting test/support/fakeApns.ts); default: one that reaches nothing. */
  apns?: ApnsClient;
  /** The resolver of webhook and image host names (default: the system's), e.g. a table of names to public addresses. */
  resolveHost?: Resolver;
  /** How often idle job workers poll, in seconds (default 0.5; src/jobs/queue.ts `pollingIntervalSeconds`). */
  jobPollingIntervalSeconds?: number;
}

export interface TestService {
  /** The app, behind the recorder of contract coverage (it can `listen`). */
  app: Express;
  api: supertest.Agent;
  database: TestDatabase;
  adminToken: string;
  /** The key of secrets at rest the app runs with. */
  secretsKey: Buffer;
  /** Every log line written, parsed. */
  logs: Record<string, unknown>[];
  /** Everything written to the log, as text. */
  logText(): string;
  /** `{ Authorization: 'Bearer <token>' }`. */
  auth(token: string): { Authorization: string };
  /** Admin authorisation header. */
  adminAuth(): { Authorization: string };
  /** Creates an account through the administration API; returns its id and first API key. */
  createAccount(name?: string): Promise<{ accountId: string; token: string; tokenId: string }>;
  /** Creates an entity through the administration API; returns its id. */
  createEntity(accountId: string, name?: string): Promise<string>;
  /** The job queue the app enqueues into (started unless `jobs` is `off`). */
  jobs: JobQueue;
  /** What the app runs with (database, queue, secrets, clock …). */
  runtime: Runtime;
  /**
   * Stops this service (its jobs and its database handle, keeping the data) and starts a new one
   * on the same database, as a restarted server; the options replace this service's.
   */
  restart(options?: TestServiceOptions): Promise<TestService>;
  /**
   * Another node on the same PostgreSQL database: its own app, pool, caches and administration
   * token, as a second server would have. Its `close()` closes only its own connections.
   * @throws Error on PGlite, which one process owns.
   */
  anotherNode(options?: TestServiceOptions): Promise<TestService>;
  close(): Promise<void>;
}

/** Starts the app for a test file. Call `close()` in `afterAll`. */
export async function startTestService(options: TestServiceOptions = {}): Promise<TestService> {
  return serviceOn(await createTestDatabase({ persistent: options.persistent, migrated: true }), options);
}

async function serviceOn(database: TestDatabase, options: TestServiceOptions): Promise<TestService> {
  await applyMigrations(database.db);
  const logs: Record<string, unknown>[] = [];
  const chunks: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      const text = String(chunk);
      chunks.push(text);
      for (const line of text.split('\n').filter(Boolean)) logs.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  const adminToken = `wpa_${randomBytes(24).toString('base64url')}`;
  const secretsKey = options.secretsKey ?? randomBytes(32);
  const logger = createLogger('info', sink);
  const runtime = assembleRuntime({
    config: testConfig(options.config),
    logger,
    db: database.db,
    secretsKey,
    clock: options.clock,
    jobQueue: { pollingIntervalSeconds: options.jobPollingIntervalSeconds ?? 0.5, stopTimeoutMs: 1000 },
    ...(options.apns ? { apns: options.apns } : {}),
    ...(options.resolveHost ? { resolveHost: options.resolveHost } : {}),
    ...(options.passChangeRelayIntervalMs ? { passChangeRelayIntervalMs: options.passChangeRelayIntervalMs } : {}),
  });
  const { jobs } = runtime;
  if (options.jobs === 'enqueue' || options.jobs === 'work') await startJobs(runtime, { work: options.jobs === 'work' });
  const app = createApp({ runtime, adminToken, apiDocument: options.apiDocument });
  const recorded = recordingContractHits(app, bundledContract);
  const api = supertest.agent(recorded);
  const adminAuth = () => ({ Authorization: `Bearer ${adminToken}` });
  return {
    app: recorded,
    api,
    database,
    adminToken,
    secretsKey,
    logs,
    logText: () => chunks.join(''),
    auth: (token) => ({ Authorization: `Bearer ${token}` }),
    adminAuth,
    async createAccount(name = `Account ${randomBytes(3).toString('hex')}`) {
      const res = await api.post('/admin/v1/accounts').set(adminAuth()).send({ account: { name } }).expect(201);
      return { accountId: res.body.data.id, token: res.body.included[0].attributes.token, tokenId: res.body.included[0].id };
    },
    async createEntity(accountId, name = `Entity ${randomBytes(3).toString('hex')}`) {
      const res = await api.post(`/admin/v1/accounts/${accountId}/entities`).set(adminAuth()).send({ entity: { name } }).expect(201);
      return res.body.data.id as string;
    },
    jobs,
    runtime,
    async restart(next = {}) {
      await runtime.passChangeRelay.stop();
      await jobs.stop();
      if (!options.apns) await runtime.apns.close();
      await database.db.close();
      return serviceOn({ ...database, db: await database.reopen() }, { secretsKey, ...next });
    },
    async anotherNode(next = {}) {
      const db = await database.reopen();
      return serviceOn({ ...database, db, drop: () => db.close() }, { secretsKey, ...next });
    },
    async close() {
      await runtime.passChangeRelay.stop();
      await jobs.stop();
      if (!options.apns) await runtime.apns.close();
      await database.drop();
    },
  };
}
