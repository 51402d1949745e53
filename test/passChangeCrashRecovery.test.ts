/**
 * A `kill -9` of the server after a pass change commits and before the pass-change outbox relay
 * (src/delivery/passChangeRelay.ts) has delivered it loses nothing and sends nothing twice: after
 * the restart the Apple device registered for the pass gets its push and the `passUpdated`
 * subscription its event, each exactly once, and the outbox is empty.
 *
 * How the kill lands in that window: the change's transaction writes its outbox row
 * (src/domain/passes/passChanges.ts) but no `webhook_events` row; the relay's own transaction,
 * right after the commit, deletes the row, queues the `pass-changed` job and then inserts the
 * event into `webhook_events`. A session of the test holds `LOCK TABLE webhook_events IN
 * EXCLUSIVE MODE`, so the relay waits on that insert with its delete and job uncommitted (and the
 * `PATCH` does not answer); the test sees the change committed, the row still there and the relay
 * waiting for the lock, kills the server with SIGKILL, and only then releases the lock (the dead
 * process's transaction rolls back). The restarted server, which works jobs, relays rows older
 * than 5 s at its start and every 5 s.
 *
 * The server runs as a real process (test/support/serverProcess.ts, as in
 * test/webhookCrashRecovery.test.ts) with a fake APNs (test/support/fakeApns.ts; the child
 * trusts its certificate through NODE_EXTRA_CA_CERTS, as scripts/exampleAgainstFreshServer.sh
 * does) and a webhook receiver (test/support/webhookReceiver.ts); the account, its pass and the
 * iPhone holding it are set up as in test/tracing.test.ts (test/support/serverApplePass.ts).
 *
 * PostgreSQL only: on the embedded database (PGlite inside the server process) no outside session
 * can hold a lock while the server runs, so there is no way to stop the relay after the commit.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { PASS_TYPE_ID } from './support/appleCredentials.ts';
import { startFakeApns, type FakeApns, type ReceivedPush } from './support/fakeApns.ts';
import { pollUntil } from './support/poll.ts';
import { addToIphone, issueApplePass } from './support/serverApplePass.ts';
import { call, startServer, stopServer, type Started } from './support/serverProcess.ts';
import { createTestDatabase, testDatabaseKind, type TestDatabase } from './support/testDatabase.ts';
import { webhookBodyProblems } from './support/webhookContract.ts';
import { startWebhookReceiver, verifyWebhookSignature, type ReceivedWebhook, type WebhookReceiver } from './support/webhookReceiver.ts';

/**
 * How long after the restarted server listens the push and the event must have arrived (its first
 * relay round runs before that, as its jobs start; counting from the spawn would count a start-up
 * that took 20–40 s on a loaded machine).
 */
const DELIVERED_WITHIN_MS = 15_000;
/** How long to go on watching for a second push or event: longer than the relay's 5 s interval. */
const WATCH_AFTER_MS = 7_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const onPostgresql = testDatabaseKind() === 'postgresql';
const adminToken = `wpa_${randomBytes(24).toString('base64url')}`;
let database: TestDatabase;
let fake: FakeApns;
let receiver: WebhookReceiver;
let env: Record<string, string>;
const servers: Started[] = [];

beforeAll(async () => {
  if (!onPostgresql) return;
  database = await createTestDatabase({ migrated: true });
  fake = await startFakeApns();
  receiver = await startWebhookReceiver();
  const dataDir = await mkdtemp(join(tmpdir(), 'wps-pass-change-crash-'));
  const caFile = join(dataDir, 'fake-apns-ca.pem');
  await writeFile(caFile, fake.ca);
  env = {
    DATA_DIR: dataDir,
    DATABASE_URL: database.url!,
    SECRETS_KEY: randomBytes(32).toString('base64'),
    PUBLIC_BASE_URL: 'http://wallet.test',
    ADMIN_TOKEN: adminToken,
    RATE_LIMIT_PER_SECOND: '0',
    APPLE_ALLOW_DEVELOPMENT_CERTIFICATES: 'true',
    APNS_URL: fake.url,
    NODE_EXTRA_CA_CERTS: caFile,
    WEBHOOK_ALLOW_PRIVATE: 'true',
  };
});
afterAll(async () => {
  for (const server of servers) if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill('SIGKILL');
  await Promise.all(servers.map((server) => server.exited));
  await receiver?.close();
  await fake?.close();
  await database?.drop();
});

async function start(): Promise<Started> {
  const server = await startServer(env);
  servers.push(server);
  return server;
}

/** Rows of the throw-away database, read by the test's own connection (committed data only). */
function select<T>(sql: string, ...values: unknown[]): Promise<T[]> {
  return database.db.prisma.$queryRawUnsafe<T[]>(sql, ...values);
}

(onPostgresql ? it : it.skip)(
  'delivers the push and the passUpdated event of a PATCH exactly once after a kill -9 between its commit and the relay',
  async () => {
    let server = await start();

    // An account with development Apple credentials, a processed loyalty template, a pass.
    const { token, passId } = await issueApplePass(server, adminToken, 'Pass change crash test');

    // The subscription to passUpdated.
    const subscription = await call(server, token, 'POST', '/api/v1/webhook-subscriptions', {
      webhookSubscription: { url: `${receiver.url}/pass-updated`, scopeType: 'organisation', subscribedEvents: ['passUpdated'] },
    });
    expect(subscription.status).toBe(201);
    const secret = subscription.body.data.attributes.secretKey as string;

    // A simulated iPhone adds the pass: it registers with the pass's authentication token.
    const { pushToken } = await addToIphone(server, passId);
    // Nothing so far is pushed (no device held the pass when it was issued; a registration pushes nothing) nor sent.
    expect(await select('SELECT id FROM pass_change_outbox')).toEqual([]);
    await sleep(1500);
    expect(fake.requests).toEqual([]);
    expect(receiver.received).toEqual([]);

    // Hold the relay after the commit: its transaction waits to insert into webhook_events.
    const locker = new pg.Client({ connectionString: database.url });
    await locker.connect();
    let patch: Promise<string> | undefined;
    const message = `Double points until Sunday ${randomBytes(4).toString('hex')}`;
    try {
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE webhook_events IN EXCLUSIVE MODE');
      // Not awaited: it does not answer while the relay waits; the kill ends it.
      patch = call(server, token, 'PATCH', `/api/v1/passes/${passId}`, { message }).then(
        (res) => `answered ${res.status}`,
        // fetch's own error (another realm than the test's: no instanceof here).
        (error: unknown) => `failed: ${String(error)}`,
      );
      const committed = await pollUntil(
        async () => ({
          pass: await select<{ latest_message: string | null }>('SELECT latest_message FROM passes WHERE id = $1::uuid', passId),
          outbox: await select<{ pass_id: string; event_type: string | null; push: boolean }>('SELECT pass_id::text, event_type, push FROM pass_change_outbox'),
          relayWaiting: await select<{ n: number }>(`SELECT count(*)::int AS n FROM pg_locks WHERE relation = 'webhook_events'::regclass AND NOT granted`),
        }),
        (state) => state.pass[0]?.latest_message === message && state.outbox.length > 0 && state.relayWaiting[0]!.n > 0,
        { timeoutMs: 30_000, intervalMs: 50 },
      );
      // The change is committed, its outbox row (still there for everyone else) says push and
      // passUpdated, and the relay waits for the lock: it has taken the row, not yet committed.
      expect(committed.pass[0]?.latest_message).toBe(message);
      expect(committed.outbox).toEqual([{ pass_id: passId, event_type: 'passUpdated', push: true }]);
      expect(committed.relayWaiting[0]!.n).toBeGreaterThan(0);

      server.child.kill('SIGKILL');
      expect(await server.exited).toBeNull();
      expect(server.child.signalCode).toBe('SIGKILL');
    } finally {
      await locker.query('ROLLBACK').catch(() => undefined);
      await locker.end();
    }
    // The PATCH never got an answer; nothing was delivered before the kill.
    expect(await patch).toMatch(/^failed: /);
    expect(fake.requests).toEqual([]);
    expect(receiver.received).toEqual([]);

    const spawnedAt = Date.now();
    server = await start();
    const listeningAt = Date.now();
    const pushesTo = (r: ReceivedPush) => r.pushToken === pushToken;
    const passUpdated = (r: ReceivedWebhook) => r.body?.data?.attributes?.webhookType === 'passUpdated';
    const delivered = await pollUntil(
      async () => ({
        pushes: fake.requests.filter(pushesTo),
        events: receiver.received.filter(passUpdated),
        outbox: await select<{ id: string }>('SELECT id::text FROM pass_change_outbox'),
      }),
      (state) => state.pushes.length >= 1 && state.events.length >= 1 && state.outbox.length === 0,
      { timeoutMs: DELIVERED_WITHIN_MS, intervalMs: 100 },
    );
    // The relay's first round runs as the jobs start, before the server says it listens.
    const after = (at: number | undefined) => (at === undefined ? 'never' : `${at - spawnedAt} ms`);
    console.log(
      `after the restart (spawned, listening ${listeningAt - spawnedAt} ms later): push ${after(delivered.pushes[0]?.at)}, passUpdated ${after(delivered.events[0]?.at)} after the spawn`,
    );
    expect(delivered.pushes).toHaveLength(1);
    expect(delivered.events).toHaveLength(1);
    expect(delivered.outbox).toEqual([]);

    const [push] = delivered.pushes;
    expect(push).toMatchObject({ topic: PASS_TYPE_ID, pushType: 'alert', clientCertificateUid: PASS_TYPE_ID });
    const [event] = delivered.events;
    expect(event!.path).toBe('/pass-updated');
    expect(verifyWebhookSignature(secret, event!)).toBe(true);
    expect(webhookBodyProblems('passUpdated', event!.body)).toEqual([]);
    expect(event!.body.data.relationships.pass.data).toEqual({ id: passId, type: 'pass' });
    expect(event!.body.included[0]).toMatchObject({ id: passId, type: 'pass', attributes: { latestMessage: message } });

    // Longer than the relay's interval: no second push, no second event, nothing pushed or sent elsewhere.
    await sleep(WATCH_AFTER_MS);
    expect(fake.requests.filter(pushesTo)).toHaveLength(1);
    expect(fake.requests).toHaveLength(1);
    expect(receiver.received.filter(passUpdated)).toHaveLength(1);
    expect(receiver.received).toHaveLength(1);
    expect(await select('SELECT id FROM pass_change_outbox')).toEqual([]);
    expect(await select<{ n: number }>(`SELECT count(*)::int AS n FROM webhook_events WHERE event_type = 'passUpdated'`)).toEqual([{ n: 1 }]);
    expect(await stopServer(server)).toBe(0);
  },
  180_000,
);
