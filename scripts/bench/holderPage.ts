/**
 * Benchmark: serving the holder page (`GET /passes/{id}`, a pass's `downloadUrl`) next to serving
 * a static file of the same size, in the same run. The page — its barcode SVG (bwip-js), its
 * "Save to Google Wallet" link and its HTML — is rendered once per pass version, language and
 * platform and then served from memory (src/domain/holderPages/holderPageCache.ts); what is left
 * per request is the pass and template lookups. The baseline is Express's own `express.static`
 * (https://expressjs.com/en/5x/api.html#express.static) serving the page's bytes from a file, in a
 * child process of its own (this file with the argument `static <file>`).
 *
 * The service is the real server (`src/server.ts`, embedded PGlite, response validation off as in
 * production) with an account that has an Apple configuration, a processed template and one pass
 * with a QR barcode. Requests go one after the other over loopback from this process (so the
 * times are the server's time plus a loopback round trip, the same for both), as an iPhone in
 * German, after a warm-up; the first request, which renders, is reported apart.
 *
 * Environment: BENCH_SAMPLES (requests per side, default 2000), BENCH_WARMUP (requests before
 * measuring, default 200). Prints p50 and p95 of both and their ratio; exits 1 when the page's
 * p95 is above TARGET_P95_MS.
 *
 * @module scripts/bench/holderPage
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import express from 'express';
import { createDevelopmentCertificates } from '../../src/wallet/apple/developmentCertificates.ts';
import { benchTemplate } from './support/benchTemplate.ts';
import { benchRequest as request, startBenchServer } from './support/benchServer.ts';
import { stopChild } from '../support/childProcess.ts';

/** The page's p95 target, in milliseconds, one request at a time on loopback. */
const TARGET_P95_MS = 25;
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 2000);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 200);
const PASS_TYPE = 'pass.com.example.bench';
const HEADERS = {
  Accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8',
  'Accept-Language': 'de-DE,de;q=0.9,en;q=0.5',
  'User-Agent': 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1',
};

if (process.argv[2] === 'static') {
  // The baseline: Express serving one file, printing its URL when it listens.
  const file = process.argv[3]!;
  const app = express();
  app.use(express.static(join(file, '..'), { etag: false, lastModified: false }));
  const server = app.listen(0, '127.0.0.1', () => {
    const address = server.address() as { port: number };
    console.log(`http://127.0.0.1:${address.port}/${file.split('/').pop()}`);
  });
} else {
  await main();
}

/** p-th percentile of sorted values. */
function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** Times of `count` sequential GETs of `url`, in milliseconds (after `warmup` untimed ones). */
async function time(url: string, count: number, warmup: number): Promise<number[]> {
  for (let i = 0; i < warmup; i++) await (await fetch(url, { headers: HEADERS })).arrayBuffer();
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    const res = await fetch(url, { headers: HEADERS });
    await res.arrayBuffer();
    times.push(performance.now() - started);
    if (res.status !== 200) throw new Error(`${url} answered ${res.status}`);
  }
  return times.sort((a, b) => a - b);
}

/** A service with one pass, its page URL. */
async function seed(base: string, adminToken: string): Promise<string> {
  const account = await request(`${base}/admin/v1/accounts`, { method: 'POST', token: adminToken, body: { account: { name: 'Bench' } } });
  const accountId = account.data.id as string;
  const token = account.included[0].attributes.token as string;
  await request(`${base}/admin/v1/accounts/${accountId}/entities`, { method: 'POST', token: adminToken, body: { entity: { name: 'Bench shop' } } });
  const chain = createDevelopmentCertificates({ passTypeIdentifier: PASS_TYPE, teamIdentifier: 'BENCH12345', organizationName: 'Bench' });
  const configured = await fetch(`${base}/admin/v1/accounts/${accountId}/apple-configurations/${PASS_TYPE}`, {
    method: 'PUT',
    headers: { Authorization: `Bearer ${adminToken}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({
      appleConfiguration: {
        teamIdentifier: 'BENCH12345',
        organizationName: 'Bench',
        certificate: chain.certificatePem,
        privateKey: chain.privateKeyPem,
        wwdrCertificate: chain.wwdrCertificatePem,
      },
    }),
  });
  if (!configured.ok) throw new Error(`Setting the Apple configuration answered ${configured.status}: ${await configured.text()}`);
  const template = await request(`${base}/api/v1/pass-templates`, {
    method: 'POST',
    token,
    body: { passTemplate: benchTemplate({ barcode: { enabled: true, type: 'qr', source: 'uuid' } }) },
  });
  for (;;) {
    const { data } = await request(template.meta.links.self, { token });
    if (data.attributes.processingStatus === 'failed') throw new Error(`The bench template failed processing: ${JSON.stringify(data.attributes)}`);
    if (data.attributes.processingStatus !== 'processing') break;
    await new Promise((r) => setTimeout(r, 100));
  }
  const pass = await request(`${base}/api/v1/passes?passTemplate=${template.id}`, { method: 'POST', token, body: { pass: { member: 'Ada' } } });
  return new URL(pass.data.attributes.downloadUrl as string).pathname;
}

async function main(): Promise<void> {
  const server = await startBenchServer();
  const dir = await mkdtemp(join(tmpdir(), 'wps-bench-static-'));
  let baseline: ReturnType<typeof spawn> | undefined;
  try {
    const pageUrl = `${server.base}${await seed(server.base, server.adminToken)}`;
    const first = performance.now();
    const html = await (await fetch(pageUrl, { headers: HEADERS })).text();
    const firstMs = performance.now() - first;
    const file = join(dir, 'page.html');
    await writeFile(file, html);
    baseline = spawn(process.execPath, ['--import', 'tsx', import.meta.filename, 'static', file], { stdio: ['ignore', 'pipe', 'inherit'] });
    const staticUrl = await new Promise<string>((resolve) => baseline!.stdout!.once('data', (chunk: Buffer) => resolve(chunk.toString().trim())));

    const page = await time(pageUrl, SAMPLES, WARMUP);
    const fileTimes = await time(staticUrl, SAMPLES, WARMUP);
    const row = (name: string, t: number[]) =>
      `${name.padEnd(34)} p50 ${percentile(t, 50).toFixed(2).padStart(6)} ms   p95 ${percentile(t, 95).toFixed(2).padStart(6)} ms`;
    console.log(`Holder page, ${Buffer.byteLength(html)} bytes, ${SAMPLES} sequential requests each (iPhone, de):`);
    console.log(`  first request (renders)            ${firstMs.toFixed(2)} ms`);
    console.log(`  ${row('service, GET /passes/{id}', page)}`);
    console.log(`  ${row('baseline, express.static file', fileTimes)}`);
    console.log(
      `  ratio service / baseline           p50 ${(percentile(page, 50) / percentile(fileTimes, 50)).toFixed(2)}×   p95 ${(percentile(page, 95) / percentile(fileTimes, 95)).toFixed(2)}×`,
    );
    const ok = percentile(page, 95) <= TARGET_P95_MS;
    console.log(ok ? `OK: p95 within ${TARGET_P95_MS} ms.` : `MISSED: p95 above ${TARGET_P95_MS} ms.`);
    process.exitCode = ok ? 0 : 1;
  } finally {
    if (baseline) await stopChild(baseline);
    await server.stop();
    await rm(dir, { recursive: true, force: true });
  }
}
