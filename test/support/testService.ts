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
 */
import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import supertest from 'supertest';
import type { Express } from 'express';
import { createApp } from '../../src/app.ts';
import type { OpenApiDocument } from '../../src/http/routes.ts';
import type { Config } from '../../src/config.ts';
import { applyMigrations } from '../../src/db/migrate.ts';
import { createLogger } from '../../src/logger.ts';
import type { Clock } from '../../src/http/operation.ts';
import { createTestDatabase, type TestDatabase } from './testDatabase.ts';

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
    bodyLimitBytes: 1024 * 1024,
    shutdownTimeoutMs: 1000,
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
  clock?: Clock;
  /** A contract to serve instead of generated/openapi.json (to prove validation bites). */
  apiDocument?: OpenApiDocument;
}

export interface TestService {
  app: Express;
  api: supertest.Agent;
  database: TestDatabase;
  adminToken: string;
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
  close(): Promise<void>;
}

/** Starts the app for a test file. Call `close()` in `afterAll`. */
export async function startTestService(options: TestServiceOptions = {}): Promise<TestService> {
  const database = await createTestDatabase();
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
  const app = createApp({
    db: database.db,
    config: testConfig(options.config),
    logger: createLogger('info', sink),
    clock: options.clock,
    adminToken,
    apiDocument: options.apiDocument,
  });
  const api = supertest.agent(app);
  const adminAuth = () => ({ Authorization: `Bearer ${adminToken}` });
  return {
    app,
    api,
    database,
    adminToken,
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
    close: () => database.drop(),
  };
}
