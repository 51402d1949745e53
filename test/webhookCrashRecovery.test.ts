/**
 * A `kill -9` of the server while a webhook delivery waits for its retry loses nothing, on the
 * embedded database and on PostgreSQL: the attempt, its outcome and the job of the next attempt
 * were committed together, so the restarted server makes the retry (same event id, a new request
 * id) and the receiver gets the event. The server runs as a real process
 * (test/support/serverProcess.ts), as in test/crashRecovery.test.ts.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase, testDatabaseKind, type TestDatabase, migratedDataDir } from './support/testDatabase.ts';
import { call, startServer, stopServer } from './support/serverProcess.ts';
import { startWebhookReceiver, verifyWebhookSignature, type WebhookReceiver } from './support/webhookReceiver.ts';

const RETRY_BASE_MS = 4000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let receiver: WebhookReceiver;
let database: TestDatabase | undefined;
let env: Record<string, string>;
const adminToken = `wpa_${randomBytes(24).toString('base64url')}`;

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  const dataDir = testDatabaseKind() === 'pglite' ? await migratedDataDir() : await mkdtemp(join(tmpdir(), 'wps-webhook-crash-'));
  env = { DATA_DIR: dataDir, ADMIN_TOKEN: adminToken, RATE_LIMIT_PER_SECOND: '0', WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_BASE_MS: String(RETRY_BASE_MS) };
  if (testDatabaseKind() === 'postgresql') {
    database = await createTestDatabase({ migrated: true });
    env = { ...env, DATABASE_URL: database.url!, SECRETS_KEY: randomBytes(32).toString('base64'), PUBLIC_BASE_URL: 'http://wallet.test' };
  }
});
afterAll(async () => {
  await receiver?.close();
  await database?.drop();
});

it('retries after a kill -9 and restart a delivery that was waiting for its retry', async () => {
  let server = await startServer(env);
  const account = await call(server, adminToken, 'POST', '/admin/v1/accounts', { account: { name: 'Webhook crash test' } });
  const token = account.body.included[0].attributes.token as string;
  const created = await call(server, token, 'POST', '/api/v1/webhook-subscriptions', {
    webhookSubscription: { url: `${receiver.url}/crash`, scopeType: 'organisation', subscribedEvents: ['passCreated'] },
  });
  expect(created.status).toBe(201);
  const { id, attributes } = created.body.data;
  receiver.script(503);
  const sent = await call(server, token, 'POST', `/api/v1/webhook-subscriptions/${id}/test-event`);
  expect(sent.status).toBe(202);
  await receiver.waitFor(1);
  // Wait until the failed attempt is on record, then kill the server before its retry is due.
  for (;;) {
    const attempts = await call(server, token, 'GET', `/api/v1/webhook-subscriptions/${id}/delivery-attempts`);
    if (attempts.body.data.length) break;
    await sleep(50);
  }
  server.child.kill('SIGKILL');
  await server.exited;
  expect(receiver.received).toHaveLength(1);
  await sleep(500);

  server = await startServer(env);
  // The retry was due RETRY_BASE_MS after the failed attempt, before or soon after the restarted
  // server is ready; counted from its readiness, not from the kill, so that a slow start on a busy
  // machine (17 s seen in CI) is not taken for a late retry.
  const readyAt = Date.now();
  const [first, retry] = await receiver.waitFor(2, { timeoutMs: 30_000 });
  expect(retry!.at - readyAt).toBeLessThan(RETRY_BASE_MS + 15_000);
  expect([first!.status, retry!.status]).toEqual([503, 200]);
  expect(retry!.headers['x-webhook-id']).toBe(sent.body.data.id);
  expect(retry!.headers['x-request-id']).not.toBe(first!.headers['x-request-id']);
  expect(verifyWebhookSignature(attributes.secretKey, retry!)).toBe(true);
  expect(retry!.body).toEqual(sent.body);
  let listed: { attributes: Record<string, unknown> }[] = [];
  for (let i = 0; i < 100 && listed.length < 2; i++) {
    listed = (await call(server, token, 'GET', `/api/v1/webhook-subscriptions/${id}/delivery-attempts`)).body.data;
    if (listed.length < 2) await sleep(50);
  }
  expect(listed.map((a) => [a.attributes.attempt, a.attributes.outcome])).toEqual([
    [2, 'delivered'],
    [1, 'httpError'],
  ]);
  await sleep(1000);
  expect(receiver.received).toHaveLength(2);
  expect(await stopServer(server)).toBe(0);
}, 120_000);
