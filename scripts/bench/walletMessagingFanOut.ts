/**
 * Benchmark (issue 5): a wallet messaging batch to 10,000 passes by segment finishes in under
 * 30 s on PostgreSQL. Starts the real server (`src/server.ts`, with its in-process job worker, as
 * in production) on a throw-away PostgreSQL database, creates an account, an entity and a
 * processed loyalty template through the API, seeds the passes with one SQL statement (5,000 more
 * outside the segment, so that the segment query has something to leave out), schedules a batch
 * for the segment with `%{member}` and `%{points}` placeholders, waits until it is `scheduled`,
 * then calls `send-now` and polls the batch (every 100 ms, as a client would) until it is final.
 *
 * Measured: from the `send-now` request to the first answer showing the final status, in
 * seconds (so it includes the worker's pick-up, at most its 2 s polling interval, and up to one
 * 100 ms poll). Checked: the batch is `successful` for every pass, every pass has exactly one
 * delivery row and its rendered `latestMessage`.
 *
 * Environment: BENCH_DATABASE_URL (a PostgreSQL server where a throw-away database may be
 * created and dropped; default postgresql://postgres@127.0.0.1:5432/postgres), BENCH_RECIPIENTS
 * (default 10000). Exits 1 when the batch takes 30 s or more, or does not reach every pass.
 *
 * @module scripts/bench/walletMessagingFanOut
 */
import { freePort } from '../support/childProcess.ts';
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { benchRequest as request, startBenchServer } from './support/benchServer.ts';
import { benchTemplate } from './support/benchTemplate.ts';
import { createThrowAwayDatabase } from './support/throwAwayDatabase.ts';

const TARGET_S = 30;
const POLL_MS = 100;
const RECIPIENTS = Number(process.env.BENCH_RECIPIENTS ?? 10_000);
const OUTSIDE = 5_000;
const PG_SERVER = process.env.BENCH_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const FINAL = ['successful', 'completedWithErrors', 'failed', 'cancelled'];

/** Polls `url` until `done` holds for its `data.attributes`; returns them. */
async function poll(url: string, token: string, done: (attributes: Record<string, any>) => boolean, everyMs: number) {
  for (;;) {
    const { data } = await request(url, { token });
    if (done(data.attributes)) return data.attributes as Record<string, any>;
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

const database = await createThrowAwayDatabase(PG_SERVER);
const dropDatabase = database.drop;

const port = await freePort();
const server = await startBenchServer({
  PORT: String(port),
  DATABASE_URL: database.url,
  PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
  SECRETS_KEY: randomBytes(32).toString('hex'),
}).catch(async (error: unknown) => {
  await dropDatabase();
  throw error;
});
const db = new pg.Client({ connectionString: database.url });
try {
  const { base, adminToken } = server;
  const account = await request(`${base}/admin/v1/accounts`, { method: 'POST', token: adminToken, body: { account: { name: 'Bench' } } });
  const accountId = account.data.id as string;
  const token = account.included[0].attributes.token as string;
  const entity = await request(`${base}/admin/v1/accounts/${accountId}/entities`, {
    method: 'POST',
    token: adminToken,
    body: { entity: { name: 'Bench shop' } },
  });
  const template = await request(`${base}/api/v1/pass-templates`, {
    method: 'POST',
    token,
    body: {
      passTemplate: benchTemplate(),
    },
  });
  const processed = await poll(template.meta.links.self, token, (a) => a.processingStatus !== 'processing', 20);
  if (processed.processingStatus === 'failed') throw new Error(`The bench template failed processing: ${JSON.stringify(processed.processingErrors)}`);

  await db.connect();
  const seeded = performance.now();
  await db.query(
    `INSERT INTO passes (id, account_id, template_id, ext_id, status, content, locations, beacons, group_tags, balance, created_at, updated_at)
     SELECT gen_random_uuid(), $1, $2, 'bench-' || i, 'issued', jsonb_build_object('member', 'Member ' || i, 'points', '0'),
            '[]', '[]', CASE WHEN i <= $3 THEN ARRAY['bench', 'all']::varchar[] ELSE ARRAY['all']::varchar[] END, i % 1000, now(), now()
       FROM generate_series(1, $3::int + $4::int) AS i`,
    [accountId, template.id, RECIPIENTS, OUTSIDE],
  );
  console.log(`Seeded ${RECIPIENTS + OUTSIDE} passes (${RECIPIENTS} in the segment) in ${((performance.now() - seeded) / 1000).toFixed(1)} s.`);

  const batch = await request(`${base}/api/v1/entities/${entity.data.id}/messaging/wallet`, {
    method: 'POST',
    token,
    body: {
      batch: {
        message: 'Hello %{member}, you have %{points} points.',
        scheduledAt: new Date(Date.now() + 3600_000).toISOString(),
        segments: [{ groupTag: 'bench' }],
      },
    },
  });
  const self = batch.links.self as string;
  const validated = await poll(self, token, (a) => a.status !== 'validating', POLL_MS);
  if (validated.status !== 'scheduled') throw new Error(`The batch is ${validated.status} after validation.`);

  const started = performance.now();
  await request(`${self}/send-now`, { method: 'POST', token });
  const final = await poll(self, token, (a) => FINAL.includes(a.status), POLL_MS);
  const seconds = (performance.now() - started) / 1000;

  const { rows } = await db.query<{ deliveries: number; messaged: number; wrong: number }>(
    `SELECT (SELECT count(*) FROM batch_deliveries WHERE batch_id = $1)::int AS deliveries,
            (SELECT count(*) FROM passes WHERE 'bench' = ANY(group_tags) AND latest_message = 'Hello ' || (content->>'member') || ', you have ' || balance || ' points.')::int AS messaged,
            (SELECT count(*) FROM passes WHERE NOT 'bench' = ANY(group_tags) AND latest_message IS NOT NULL)::int AS wrong`,
    [batch.data.id],
  );
  const { deliveries, messaged, wrong } = rows[0]!;
  const complete = final.status === 'successful' && final.recipientCount === RECIPIENTS && deliveries === RECIPIENTS && messaged === RECIPIENTS && wrong === 0;
  console.log(`Wallet messaging fan-out, ${RECIPIENTS} passes by segment, PostgreSQL (real server, in-process worker):`);
  console.log(`  send-now → ${final.status} in ${seconds.toFixed(2)} s (${Math.round(RECIPIENTS / seconds)} passes/s)`);
  console.log(
    `  recipientCount ${final.recipientCount}, delivery rows ${deliveries}, passes with their rendered message ${messaged}, passes outside the segment messaged ${wrong}`,
  );
  console.log(`  target: under ${TARGET_S} s, every pass messaged once — ${complete && seconds < TARGET_S ? 'met' : 'MISSED'}`);
  process.exitCode = complete && seconds < TARGET_S ? 0 : 1;
} finally {
  await db.end().catch(() => undefined);
  await server.stop();
  await dropDatabase();
}
