/**
 * Benchmark (issue 17): a CSV pass creation batch of 100,000 rows on PostgreSQL creates at least
 * 2,000 passes per second, and the server's memory does not grow with the file. Starts the real
 * server (`src/server.ts`, one process with its in-process job worker: `WEB_CONCURRENCY=1`, so
 * that its memory is the one process's) on a throw-away PostgreSQL database, creates an account
 * and a processed loyalty template through the API, then uploads two files through
 * `createPassCreationBatch` (multipart, as a client would) — a small one (BENCH_SMALL_ROWS, default
 * 10,000 rows) and the large one (BENCH_ROWS, default 100,000) — each with an extId, a name, a
 * points balance and group tags per row, and polls each batch (every 100 ms) until it is final.
 *
 * Measured per file: the upload (request until 202: the file stored on disk, read, checked and
 * inserted as rows), the processing (202 until the final status), and rows per second over both;
 * the server's peak resident memory (Linux `VmHWM` of /proc/<pid>/status) after start, after the
 * small file and after the large one. Checked: each batch `successful`, one pass per row.
 *
 * Environment: BENCH_DATABASE_URL (default postgresql://postgres@127.0.0.1:5432/postgres),
 * BENCH_ROWS, BENCH_SMALL_ROWS, BENCH_SERVER_HEAP_MB (caps the server's V8 old space with
 * `--max-old-space-size`: peak RSS shows what V8 chose to keep, the cap shows what the batch
 * needs — a batch that needed memory in proportion to its file would run out of it). Exits 1 when the large batch is under 2,000 rows/s or incomplete.
 *
 * @module scripts/bench/csvPassBatches
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { benchRequest as request, startBenchServer } from './support/benchServer.ts';
import { benchTemplate } from './support/benchTemplate.ts';
import { createThrowAwayDatabase } from './support/throwAwayDatabase.ts';

const TARGET_ROWS_PER_S = 2000;
const ROWS = Number(process.env.BENCH_ROWS ?? 100_000);
const SMALL_ROWS = Number(process.env.BENCH_SMALL_ROWS ?? 10_000);
const PG_SERVER = process.env.BENCH_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const FINAL = ['successful', 'completedWithErrors', 'failed'];

/** Peak resident memory of a process, in MB (Linux `VmHWM`). */
function peakRssMb(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmHWM:'))!;
  return Number(line.replace(/\D+/g, '')) / 1024;
}

/** A CSV file of `rows` members (extIds prefixed with `prefix`). */
function csvOf(rows: number, prefix: string): Buffer {
  const lines = ['ext_id,group_tags,passfield_member,passfield_points'];
  for (let i = 1; i <= rows; i++) lines.push(`${prefix}-${i},"bench, ${prefix}",Member ${i},${i % 1000}`);
  return Buffer.from(`${lines.join('\r\n')}\r\n`);
}

console.log('Creating the throw-away database …');
const database = await createThrowAwayDatabase(PG_SERVER);
console.log('Starting the server …');
// The server picks its port (PORT=0); links in answers use PUBLIC_BASE_URL, requests go to `base`.
const server = await startBenchServer({
  DATABASE_URL: database.url,
  PUBLIC_BASE_URL: 'http://127.0.0.1',
  SECRETS_KEY: randomBytes(32).toString('hex'),
  WEB_CONCURRENCY: '1',
  ...(process.env.BENCH_SERVER_HEAP_MB ? { NODE_OPTIONS: `--max-old-space-size=${Number(process.env.BENCH_SERVER_HEAP_MB)}` } : {}),
}).catch(async (error: unknown) => {
  await database.drop();
  throw error;
});
const db = new pg.Client({ connectionString: database.url });
console.log(`Server ${server.base} (pid ${server.pid}).`);
try {
  const { base, adminToken } = server;
  const account = await request(`${base}/admin/v1/accounts`, { method: 'POST', token: adminToken, body: { account: { name: 'Bench' } } });
  const token = account.included[0].attributes.token as string;
  const template = await request(`${base}/api/v1/pass-templates`, {
    method: 'POST',
    token,
    body: {
      passTemplate: benchTemplate(),
    },
  });
  for (;;) {
    const { data } = await request(`${base}/api/v1/pass-templates/${template.id}`, { token });
    if (data.attributes.processingStatus === 'failed') throw new Error('The bench template failed processing.');
    // A processed template's answer has no processingStatus (only a pending or failed one has).
    if (data.attributes.processingStatus !== 'processing') break;
    await new Promise((r) => setTimeout(r, 50));
  }
  await db.connect();
  const startRss = peakRssMb(server.pid);

  /** Uploads a file of `rows` rows and waits for its batch; returns the timings. */
  const run = async (rows: number, prefix: string) => {
    const file = csvOf(rows, prefix);
    const form = new FormData();
    form.set('passTemplate', template.id);
    form.set('csv', new Blob([file], { type: 'text/csv' }), `${prefix}.csv`);
    const started = performance.now();
    const res = await fetch(`${base}/api/v1/passes/batch`, { method: 'POST', headers: { Authorization: `Bearer ${token}` }, body: form });
    const body = (await res.json()) as Record<string, any>;
    if (res.status !== 202) throw new Error(`The upload answered ${res.status}: ${JSON.stringify(body)}`);
    const accepted = performance.now();
    let attributes: Record<string, any>;
    for (;;) {
      attributes = (await request(`${base}/api/v1/batches/${body.data.id}`, { token })).data.attributes;
      if (FINAL.includes(attributes.status)) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const finished = performance.now();
    const { rows: counted } = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM passes WHERE ext_id LIKE $1`, [`${prefix}-%`]);
    return {
      bytes: file.length,
      uploadS: (accepted - started) / 1000,
      processS: (finished - accepted) / 1000,
      totalS: (finished - started) / 1000,
      status: attributes.status as string,
      passes: counted[0]!.n,
      peakMb: peakRssMb(server.pid),
    };
  };

  const small = await run(SMALL_ROWS, 'small');
  const large = await run(ROWS, 'large');
  const rate = (rows: number, s: number) => Math.round(rows / s);
  console.log(`CSV pass creation batches, PostgreSQL (real server, one process with its in-process worker; ${cpus().length} CPUs, shared):`);
  for (const [name, rows, r] of [
    ['small', SMALL_ROWS, small],
    ['large', ROWS, large],
  ] as const) {
    console.log(
      `  ${name}: ${rows} rows (${(r.bytes / 1e6).toFixed(1)} MB): upload → 202 ${r.uploadS.toFixed(2)} s, 202 → ${r.status} ${r.processS.toFixed(2)} s; ` +
        `${rate(rows, r.totalS)} rows/s overall (${rate(rows, r.processS)} rows/s creating); ${r.passes} passes; server peak RSS ${r.peakMb.toFixed(0)} MB`,
    );
  }
  if (process.env.BENCH_SERVER_HEAP_MB) console.log(`  server run with --max-old-space-size=${Number(process.env.BENCH_SERVER_HEAP_MB)}`);
  console.log(
    `  server peak RSS after start ${startRss.toFixed(0)} MB, after ${SMALL_ROWS} rows ${small.peakMb.toFixed(0)} MB, after ${ROWS} rows ${large.peakMb.toFixed(0)} MB`,
  );
  const complete = large.status === 'successful' && large.passes === ROWS && small.status === 'successful' && small.passes === SMALL_ROWS;
  const met = complete && rate(ROWS, large.totalS) >= TARGET_ROWS_PER_S;
  console.log(`  target: ≥ ${TARGET_ROWS_PER_S} rows/s for ${ROWS} rows, one pass per row — ${met ? 'met' : 'MISSED'}`);
  process.exitCode = met ? 0 : 1;
} finally {
  await db.end().catch(() => undefined);
  await server.stop();
  await database.drop();
}
