/**
 * Benchmark: how long new pass templates take to be processed. Starts the real server
 * (`src/server.ts` with its in-process job workers) on each database, creates an account through
 * the administration API, then:
 *
 * 1. one at a time (embedded PGlite only): creates a template with the full PassEntry payload and
 *    polls its `meta.links.self`, as a client would, until `processingStatus` is gone. Latency =
 *    from sending the create request to the first processed answer, in ms (so it includes up to
 *    one polling interval, 10 ms). Target: every template within 2000 ms.
 * 2. a burst, on each database: creates BENCH_BURST templates (default 30) with concurrent
 *    requests, then polls until every one is processed. Time = from the first create request to the
 *    last template seen processed. Target: under 3000 ms.
 *
 * Environment: BENCH_SAMPLES (templates measured one at a time, default 50; one more is created
 * first to warm up), BENCH_BURST, BENCH_DATABASES (`pglite,postgresql` by default) and
 * BENCH_DATABASE_URL (a PostgreSQL server where a throw-away database may be created and dropped;
 * default postgresql://postgres@127.0.0.1:5432/postgres). Exits 1 when a target is missed.
 *
 * @module scripts/bench/templateProcessing
 */
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { benchRequest as request, startBenchServer } from './support/benchServer.ts';
import { ICON_PNG, LOGO_PNG, BANNER_PNG } from '../../test/support/images.ts';
import { freePort } from '../support/childProcess.ts';

const TARGET_MS = 2000;
const BURST_TARGET_MS = 3000;
const burst = Number(process.env.BENCH_BURST ?? 30);
const PG_SERVER = process.env.BENCH_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const POLL_MS = 10;
const samples = Number(process.env.BENCH_SAMPLES ?? 50);

const template = (i: number) => ({
  passTemplate: {
    name: `Bench card ${i}`,
    templateType: 'loyalty',
    centralTitle: 'Coffee Club',
    colors: { background: '#1A2B3C', label: '#F5D76E', text: '#FFFFFF' },
    images: { logo: LOGO_PNG, icon: ICON_PNG, banner: BANNER_PNG },
    fields: {
      header: { one: { id: 'points', label: 'Points', defaultValue: '0', localisation: { de: { label: 'Punkte' } } } },
      central: { one: { id: 'member', label: 'Member', defaultValue: 'Guest', localisation: { de: { label: 'Mitglied' } } } },
      details: { one: { id: 'tier', label: 'Tier' }, two: { id: 'since', label: 'Since' }, three: { id: 'shop', label: 'Shop' } },
      back: { one: { id: 'terms', label: 'Terms', defaultValue: 'One stamp per drink.' } },
    },
    appLinking: {
      apple: { appStoreUrl: ['https://apps.apple.com/app/id1234567890'] },
      google: { app: { playStoreUrl: 'https://play.google.com/store/apps/details?id=com.example.club' } },
    },
    barcode: { enabled: true, type: 'qr', source: 'uuid' },
    locations: [{ latitude: 51.5136, longitude: -0.1365, radius: 100, message: 'Nearby' }],
    beacons: [{ proximityUuid: 'f7826da6-4fa2-4e98-8024-bc5b71e0893e', major: 1, minor: 7 }],
  },
});

/** Creates a template and polls it until processed; returns the latency in ms. */
async function measure(base: string, token: string, i: number): Promise<number> {
  const started = performance.now();
  const created = await request(`${base}/api/v1/pass-templates`, { method: 'POST', token, body: template(i) });
  for (;;) {
    const { data } = await request(created.meta.links.self, { token });
    if (data.attributes.processingStatus === undefined) return performance.now() - started;
    if (data.attributes.processingStatus === 'failed') throw new Error(`Template ${i} failed: ${JSON.stringify(data.attributes.processingErrors)}`);
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

/** Creates `count` templates at once (concurrent requests), then polls until all are processed; returns the elapsed ms. */
async function measureBurst(base: string, token: string, count: number): Promise<number> {
  const started = performance.now();
  const created = await Promise.all(
    Array.from({ length: count }, (_, i) => request(`${base}/api/v1/pass-templates`, { method: 'POST', token, body: template(1000 + i) })),
  );
  let pending = created.map((c) => c.meta.links.self as string);
  while (pending.length) {
    const states = await Promise.all(pending.map(async (url) => ({ url, status: (await request(url, { token })).data.attributes.processingStatus })));
    const failed = states.find((s) => s.status === 'failed');
    if (failed) throw new Error(`Template ${failed.url} failed`);
    pending = states.filter((s) => s.status !== undefined).map((s) => s.url);
    if (pending.length) await new Promise((r) => setTimeout(r, POLL_MS));
  }
  return performance.now() - started;
}

/** Runs the burst on one database; returns the elapsed ms. */
async function burstOn(kind: 'pglite' | 'postgresql'): Promise<number> {
  const dbName = `wps_bench_${randomBytes(6).toString('hex')}`;
  const dbUrl = new URL(PG_SERVER);
  dbUrl.pathname = `/${dbName}`;
  const admin = new pg.Client({ connectionString: PG_SERVER });
  if (kind === 'postgresql') {
    await admin.connect();
    await admin.query(`CREATE DATABASE ${dbName}`);
  }
  const port = await freePort();
  const server = await startBenchServer(
    kind === 'postgresql'
      ? { PORT: String(port), DATABASE_URL: dbUrl.toString(), PUBLIC_BASE_URL: `http://127.0.0.1:${port}`, SECRETS_KEY: randomBytes(32).toString('base64') }
      : {},
  );
  try {
    const { base } = server;
    const account = await request(`${base}/admin/v1/accounts`, { method: 'POST', token: server.adminToken, body: { account: { name: 'Bench' } } });
    const token = account.included[0].attributes.token as string;
    await measure(base, token, 0);
    return await measureBurst(base, token, burst);
  } finally {
    await server.stop();
    if (kind === 'postgresql') {
      await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
      await admin.end();
    }
  }
}

/** Measures templates created one at a time on the embedded database; returns whether every one met the target. */
async function oneAtATime(): Promise<boolean> {
  const server = await startBenchServer();
  try {
    const { base } = server;
    const account = await request(`${base}/admin/v1/accounts`, { method: 'POST', token: server.adminToken, body: { account: { name: 'Bench' } } });
    const token = account.included[0].attributes.token as string;
    await measure(base, token, 0);
    const latencies: number[] = [];
    for (let i = 1; i <= samples; i++) latencies.push(await measure(base, token, i));
    latencies.sort((a, b) => a - b);
    const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.ceil(q * latencies.length) - 1)]!;
    const ms = (v: number) => `${v.toFixed(0)} ms`;
    const worst = latencies[latencies.length - 1]!;
    console.log(`Pass template processing, create → processed, embedded PGlite, ${samples} templates one at a time:`);
    console.log(`  min ${ms(latencies[0]!)}   median ${ms(at(0.5))}   p95 ${ms(at(0.95))}   max ${ms(worst)}`);
    console.log(`  target: every template within ${TARGET_MS} ms — ${worst <= TARGET_MS ? 'met' : 'MISSED'}`);
    return worst <= TARGET_MS;
  } finally {
    await server.stop();
  }
}

const databases = (process.env.BENCH_DATABASES ?? 'pglite,postgresql').split(',');
if (databases.includes('pglite') && samples > 0 && !(await oneAtATime())) process.exitCode = 1;
for (const kind of databases as ('pglite' | 'postgresql')[]) {
  const ms = await burstOn(kind);
  const met = ms < BURST_TARGET_MS;
  console.log(
    `Burst of ${burst} templates, first create → all processed, ${kind === 'pglite' ? 'embedded PGlite' : 'PostgreSQL'}: ${ms.toFixed(0)} ms — target < ${BURST_TARGET_MS} ms ${met ? 'met' : 'MISSED'}`,
  );
  if (!met) process.exitCode = 1;
}
