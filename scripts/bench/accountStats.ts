/**
 * Benchmark: `GET /api/v1/stats` (the operator console's overview) on PostgreSQL with
 * 1,000,000 passes in one account, next to a floor measured in the same run: the statements the
 * request sends for its days (src/domain/stats/statsStore.ts `selectStatsDays`, captured from a
 * stand-in executor) sent straight through `pg`, side by side as the request sends them (no HTTP,
 * no validation, no Prisma, the last-24-hours statement left out), so the share of everything
 * else shows.
 *
 * The rows are made by the database (one `INSERT … SELECT … FROM generate_series` per table), not
 * through the API: 1,000,000 passes created over the 365 days before today, 60 % of them added to
 * a wallet (two in three on iPhone) a day after, 5 % removed; 300,000 scans; 20,000 delivery
 * attempts (one in ten failed). Then `VACUUM ANALYZE`, as autovacuum would do in production after
 * such a bulk insert, so that the visibility map is set and counts are index-only scans with no
 * heap fetches (https://www.postgresql.org/docs/current/indexes-index-only-scans.html,
 * https://www.postgresql.org/docs/current/routine-vacuuming.html#AUTOVACUUM).
 *
 * Measured: sequential requests (BENCH_REQUESTS, default 200, after 20 of warm-up) for the
 * default range (the 30 days ending today), and a fifth as many for a whole year (366 days, shown
 * for scale: it counts every row), p50/p95/max; and the plan (`EXPLAIN (ANALYZE, BUFFERS)`) of
 * each days statement over the default range, each series a subplan with its time and buffers.
 * Target: p95 ≤ 50 ms for the default range. Exits 1 when missed.
 *
 * Environment: BENCH_DATABASE_URL (a PostgreSQL server where a throw-away database may be
 * created and dropped; default postgresql://postgres@127.0.0.1:5432/postgres), BENCH_REQUESTS,
 * BENCH_PASSES (default 1000000).
 *
 * @module scripts/bench/accountStats
 */
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import type { Prisma } from '../../generated/prisma/client.ts';
import type { SqlExecutor } from '../../src/db/database.ts';
import { selectStatsDays } from '../../src/domain/stats/statsStore.ts';
import { benchRequest, startBenchServer } from './support/benchServer.ts';
import { benchTemplate } from './support/benchTemplate.ts';
import { createThrowAwayDatabase } from './support/throwAwayDatabase.ts';

const serverUrl = process.env.BENCH_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const requests = Number(process.env.BENCH_REQUESTS ?? 200);
const passes = Number(process.env.BENCH_PASSES ?? 1_000_000);
const TARGET_P95_MS = 50;

/** Percentile (0–100) of a sorted sample, nearest rank. */
const percentile = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

/** Times `run` `count` times in a row after 20 warm-up runs; returns the sorted durations in ms. */
async function timeRuns(run: () => Promise<unknown>, count = requests): Promise<number[]> {
  for (let i = 0; i < 20; i++) await run();
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    const start = performance.now();
    await run();
    times.push(performance.now() - start);
  }
  return times.sort((a, b) => a - b);
}

/** The statements {@link selectStatsDays} sends for the range, as text with `$1`… and values, to send through `pg`. */
async function daysStatements(accountId: string, from: string, to: string): Promise<{ text: string; values: unknown[] }[]> {
  const sent: Prisma.Sql[] = [];
  const capture = (async (query: Prisma.Sql) => {
    sent.push(query);
    return [];
  }) as SqlExecutor['$queryRaw'];
  await selectStatsDays({ $queryRaw: capture }, accountId, from, to);
  return sent.map((query) => ({ text: query.text, values: query.values }));
}

/** Fills the account with passes, scans and delivery attempts, all made by the database. */
async function seed(client: pg.Client, accountId: string, templateId: string, readerId: string): Promise<void> {
  const started = performance.now();
  await client.query(
    `INSERT INTO passes (id, account_id, template_id, status, content, locations, beacons, group_tags, created_at, updated_at, added_at, device_type, removed_at)
     SELECT gen_random_uuid(), $1::uuid, $2::uuid,
       (CASE WHEN i % 20 = 0 THEN 'removed' WHEN i % 5 < 3 THEN 'active' ELSE 'issued' END)::pass_status,
       '{}', '[]', '[]', '{}', t, t,
       CASE WHEN i % 5 < 3 OR i % 20 = 0 THEN t + interval '1 day' END,
       (CASE WHEN i % 5 < 3 OR i % 20 = 0 THEN (CASE WHEN i % 3 = 0 THEN 'android' ELSE 'iphone' END) END)::pass_device_type,
       CASE WHEN i % 20 = 0 THEN t + interval '2 days' END
     FROM generate_series(1, $3::int) AS i, LATERAL (SELECT now() - interval '365 days' * (i::float8 / $3::int) AS t) AS at`,
    [accountId, templateId, passes],
  );
  await client.query(
    `INSERT INTO scans (id, account_id, pass_id, reader_id, scan_type, scan_value, validation_type, status, status_detail, scanned_at)
     SELECT gen_random_uuid(), $1::uuid, p.id, $2::uuid, 'barcode', 'x', 'externalValidation', 'successful', 'ok', p.created_at + interval '3 hours'
     FROM (SELECT id, created_at FROM passes WHERE account_id = $1::uuid LIMIT 300000) AS p`,
    [accountId, readerId],
  );
  await client.query(
    `INSERT INTO delivery_attempts (account_id, pass_id, channel, target, operation, outcome, status, attempt, created_at)
     SELECT $1::uuid, p.id, 'apns', 'device', 'push', CASE WHEN random() < 0.1 THEN 'retry' ELSE 'delivered' END, 200, 1, p.created_at
     FROM (SELECT id, created_at FROM passes WHERE account_id = $1::uuid ORDER BY created_at DESC LIMIT 20000) AS p`,
    [accountId],
  );
  await client.query('VACUUM ANALYZE');
  console.log(
    `Seeded ${passes.toLocaleString('en')} passes, 300,000 scans and 20,000 delivery attempts in ${((performance.now() - started) / 1000).toFixed(1)} s.`,
  );
}

async function main(): Promise<void> {
  const database = await createThrowAwayDatabase(serverUrl);
  let server: Awaited<ReturnType<typeof startBenchServer>> | undefined;
  const client = new pg.Client({ connectionString: database.url });
  const pool = new pg.Pool({ connectionString: database.url, max: 4 });
  try {
    const running = await startBenchServer({
      DATABASE_URL: database.url,
      // Stats answers build no links; the value only satisfies the production configuration check.
      PUBLIC_BASE_URL: 'http://127.0.0.1',
      SECRETS_KEY: randomBytes(32).toString('hex'),
      WEB_CONCURRENCY: '1',
    });
    server = running;
    await client.connect();
    const account = await benchRequest(`${running.base}/admin/v1/accounts`, {
      method: 'POST',
      token: running.adminToken,
      body: { account: { name: 'Bench' } },
    });
    const accountId = account.data.id as string;
    const token = account.included[0].attributes.token as string;
    const template = await benchRequest(`${running.base}/api/v1/pass-templates`, { method: 'POST', token, body: { passTemplate: benchTemplate() } });
    const entity = await benchRequest(`${running.base}/admin/v1/accounts/${accountId}/entities`, {
      method: 'POST',
      token: running.adminToken,
      body: { entity: { name: 'Shop' } },
    });
    await benchRequest(`${running.base}/api/v1/entities/${entity.data.id}/readers`, {
      method: 'POST',
      token,
      body: { reader: { id: 'till', name: 'Till', type: 'PartnerReader', password: 'correct horse battery' } },
    });
    const { rows } = await client.query<{ id: string }>(`SELECT id FROM readers WHERE account_id = $1::uuid`, [accountId]);
    await seed(client, accountId, template.id as string, rows[0]!.id);

    const today = new Date().toISOString().slice(0, 10);
    const yearAgo = new Date(Date.now() - 365 * 86_400_000).toISOString().slice(0, 10);
    const results: [string, number[]][] = [];
    const measure = async (name: string, url: string, count: number) => {
      const times = await timeRuns(() => benchRequest(url, { token }), count);
      results.push([name, times]);
      console.log(`${name}: p50 ${percentile(times, 50).toFixed(1)} ms, p95 ${percentile(times, 95).toFixed(1)} ms (${count} requests)`);
    };
    await measure('GET /api/v1/stats (30 days)', `${running.base}/api/v1/stats`, requests);
    const monthAgo = new Date(Date.now() - 29 * 86_400_000).toISOString().slice(0, 10);
    const statements = await daysStatements(accountId, monthAgo, today);
    const floor = await timeRuns(() => Promise.all(statements.map((statement) => pool.query(statement.text, statement.values))));
    results.push(['floor: the days statements, 30 days, side by side through pg', floor]);
    console.log(`floor (the days statements through pg): p50 ${percentile(floor, 50).toFixed(1)} ms, p95 ${percentile(floor, 95).toFixed(1)} ms`);
    await measure('GET /api/v1/stats (366 days)', `${running.base}/api/v1/stats?from=${yearAgo}&to=${today}`, Math.max(20, Math.round(requests / 5)));
    for (const statement of statements) {
      const { rows: plan } = await client.query(`EXPLAIN (ANALYZE, BUFFERS) ${statement.text}`, statement.values);
      console.log(`\nPlan of a days statement, 30 days:\n${plan.map((row) => row['QUERY PLAN']).join('\n')}`);
    }
    console.log('\n| Request | p50 ms | p95 ms | max ms |\n|---|---:|---:|---:|');
    for (const [name, times] of results) {
      console.log(`| ${name} | ${percentile(times, 50).toFixed(1)} | ${percentile(times, 95).toFixed(1)} | ${times.at(-1)!.toFixed(1)} |`);
    }
    const p95 = percentile(results[0]![1], 95);
    console.log(
      `\nTarget: p95 of the default range ≤ ${TARGET_P95_MS} ms on ${passes.toLocaleString('en')} passes: ${p95 <= TARGET_P95_MS ? 'met' : 'MISSED'} (${p95.toFixed(1)} ms).`,
    );
    process.exitCode = p95 <= TARGET_P95_MS ? 0 : 1;
  } finally {
    await client.end().catch(() => {});
    await pool.end().catch(() => {});
    await server?.stop();
    await database.drop();
  }
}

await main();
