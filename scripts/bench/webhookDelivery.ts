/**
 * Benchmark: 10,000 webhook events delivered to a local receiver (test/support/webhookReceiver.ts),
 * events per second reported.
 *
 * The real server (`src/server.ts`, its in-process workers) runs on a throw-away PostgreSQL
 * database with `WEBHOOK_ALLOW_PRIVATE=true` (the receiver is on loopback). A subscription is
 * made through the API and disabled; BENCH_WEBHOOK_EVENTS events (default 10,000), each with a
 * pass-sized body (the contract's `passCreated` example) and spread over BENCH_WEBHOOK_KEYS
 * passes (default: one event per pass; fewer passes means longer in-order chains), are seeded
 * with SQL as pending deliveries. Enabling the subscription (PATCH) queues them — one
 * `webhook-delivery` job per pass — and the clock runs from that PATCH until the receiver has
 * every event. Checked: each event received once (no retries: the receiver answers 200), every
 * signature valid, every delivery `delivered` in the database, and events of one pass received
 * in order.
 *
 * Environment: BENCH_DATABASE_URL (default postgresql://postgres@127.0.0.1:5432/postgres),
 * BENCH_WEBHOOK_EVENTS, BENCH_WEBHOOK_KEYS. Exits 1 when an event is missing, duplicated, out
 * of order or badly signed; throughput is reported, not a target.
 *
 * @module scripts/bench/webhookDelivery
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { freePort } from '../support/childProcess.ts';
import { startWebhookReceiver, verifyWebhookSignature } from '../../test/support/webhookReceiver.ts';
import { benchRequest as request, startBenchServer } from './support/benchServer.ts';
import { createThrowAwayDatabase } from './support/throwAwayDatabase.ts';

const EVENTS = Number(process.env.BENCH_WEBHOOK_EVENTS ?? 10_000);
const KEYS = Math.max(1, Math.min(EVENTS, Number(process.env.BENCH_WEBHOOK_KEYS ?? EVENTS)));
const PG_SERVER = process.env.BENCH_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';

const contract = JSON.parse(readFileSync(new URL('../../generated/openapi.json', import.meta.url), 'utf8'));
const example = contract.components.examples.PassCreatedWebhook.value as {
  data: { id: string; relationships: { pass: { data: { id: string } } } };
  included: { id: string }[];
};

const database = await createThrowAwayDatabase(PG_SERVER);
const dropDatabase = database.drop;

const receiver = await startWebhookReceiver();
const port = await freePort();
const server = await startBenchServer({
  PORT: String(port),
  DATABASE_URL: database.url,
  PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
  SECRETS_KEY: randomBytes(32).toString('hex'),
  WEBHOOK_ALLOW_PRIVATE: 'true',
}).catch(async (error: unknown) => {
  await dropDatabase();
  throw error;
});
const db = new pg.Client({ connectionString: database.url });
let failed = false;
try {
  await db.connect();
  const { base, adminToken } = server;
  const account = await request(`${base}/admin/v1/accounts`, { method: 'POST', token: adminToken, body: { account: { name: 'Bench' } } });
  const token = account.included[0].attributes.token as string;
  const accountId = account.data.id as string;
  const created = await request(`${base}/api/v1/webhook-subscriptions`, {
    method: 'POST',
    token,
    body: { webhookSubscription: { url: `${receiver.url}/bench`, scopeType: 'organisation', subscribedEvents: ['passCreated'], enabled: false } },
  });
  const subscriptionId = created.data.id as string;
  const secret = created.data.attributes.secretKey as string;

  // Seed: events and their pending deliveries, in sequence order, KEYS passes round-robin.
  const keys = Array.from({ length: KEYS }, () => randomUUID());
  const seedStarted = performance.now();
  const CHUNK = 2000;
  for (let from = 0; from < EVENTS; from += CHUNK) {
    const ids: string[] = [];
    const keyOf: string[] = [];
    const payloads: string[] = [];
    for (let i = from; i < Math.min(EVENTS, from + CHUNK); i++) {
      const id = randomUUID();
      const passId = keys[i % KEYS]!;
      ids.push(id);
      keyOf.push(passId);
      payloads.push(
        JSON.stringify({
          ...example,
          data: { ...example.data, id, relationships: { pass: { data: { id: passId, type: 'pass' } } } },
          included: [{ ...example.included[0], id: passId }],
        }),
      );
    }
    await db.query(
      `WITH e AS (
         INSERT INTO webhook_events (id, account_id, event_type, payload, occurred_at)
         SELECT id, $1::uuid, 'passCreated', payload, now() FROM unnest($2::uuid[], $3::text[]) AS t(id, payload) RETURNING id)
       INSERT INTO webhook_deliveries (id, subscription_id, event_id, ordering_key, next_attempt_at, created_at)
       SELECT gen_random_uuid(), $4::uuid, t.id, t.key, now(), now() FROM unnest($2::uuid[], $5::text[]) WITH ORDINALITY AS t(id, key, n) ORDER BY n`,
      [accountId, ids, payloads, subscriptionId, keyOf],
    );
  }
  console.log(`seeded ${EVENTS} events over ${KEYS} passes in ${((performance.now() - seedStarted) / 1000).toFixed(1)} s`);

  const started = performance.now();
  await request(`${base}/api/v1/webhook-subscriptions/${subscriptionId}`, { method: 'PATCH', token, body: { webhookSubscription: { enabled: true } } });
  await receiver.waitFor(EVENTS, { timeoutMs: 600_000 });
  const seconds = (performance.now() - started) / 1000;

  const received = receiver.received;
  const eventIds = new Set(received.map((r) => r.headers['x-webhook-id']));
  const badSignatures = received.filter((r) => !verifyWebhookSignature(secret, r)).length;
  const lastSeen = new Map<string, number>();
  let outOfOrder = 0;
  const sequence = new Map<string, number>();
  const { rows: order } = await db.query<{ eventId: string; sequence: string }>(`SELECT event_id::text AS "eventId", sequence::text FROM webhook_deliveries`);
  for (const row of order) sequence.set(row.eventId, Number(row.sequence));
  for (const r of received) {
    const key = r.body.data.relationships.pass.data.id as string;
    const seq = sequence.get(String(r.headers['x-webhook-id'])) ?? -1;
    if ((lastSeen.get(key) ?? -1) > seq) outOfOrder++;
    lastSeen.set(key, seq);
  }
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const { rows } = await db.query<{ status: string; n: number }>(`SELECT status::text, count(*)::int AS n FROM webhook_deliveries GROUP BY status`);
  const delivered = rows.find((r) => r.status === 'delivered')?.n ?? 0;
  console.log(
    `${EVENTS} events over ${KEYS} passes delivered in ${seconds.toFixed(2)} s: ${(EVENTS / seconds).toFixed(0)} events/s ` +
      `(received ${receiver.received.length}, distinct ${eventIds.size}, delivered in the database ${delivered}, bad signatures ${badSignatures}, out of order ${outOfOrder})`,
  );
  failed = receiver.received.length !== EVENTS || eventIds.size !== EVENTS || delivered !== EVENTS || badSignatures > 0 || outOfOrder > 0;
  if (failed) console.error('FAILED: an event is missing, duplicated, undelivered, badly signed or out of order.');
} finally {
  await db.end().catch(() => {});
  await server.stop();
  await receiver.close();
  await dropDatabase();
}
process.exit(failed ? 1 : 0);
