/**
 * Benchmark: a template's new design reaching 10,000 passes in Google Wallet — the class patched,
 * then every pass's object written (inserted) by its `pass-changed` job — against a local
 * stand-in for the Google Wallet API and token endpoint (test/support/fakeGoogleWallet.ts), on
 * PostgreSQL, with the per-issuer rate limit on.
 *
 * The real server (`src/server.ts` with its in-process workers) runs on a throw-away PostgreSQL
 * database with `GOOGLE_WALLET_API_URL` and `GOOGLE_OAUTH_TOKEN_URL` pointing at the stand-in.
 * An account, its Google configuration (a fresh service account key) and a processed loyalty
 * template are made through the APIs; the passes are seeded with SQL. Then the template's design
 * changes (PATCH); measured until the stand-in has received every object. Reported: objects
 * written per second, the calls in the busiest second (sliding), and the token grants.
 * Checked: every object written once, no second above the budget.
 *
 * Two runs, each on its own server and database. The throughput run gives the issuer a budget of
 * 1,000/s (`BENCH_GOOGLE_RPS`) to measure what the service itself can sync. The quota run writes
 * 500 passes (`BENCH_QUOTA_PASSES`, 0 skips it) at Google's own quota, 20 calls/s per issuer
 * (src/delivery/googleRateLimit.ts paces them at 16/s), and prints the most calls the stand-in
 * received in any sliding second (stamped on arrival, as Google counts them), which must not be
 * above 20.
 *
 * Environment: BENCH_DATABASE_URL (default postgresql://postgres@127.0.0.1:5432/postgres),
 * BENCH_PASSES (default 10000), BENCH_GOOGLE_RPS (default 1000), BENCH_QUOTA_PASSES (default
 * 500). Exits 1 when an object is missing or written twice, or a second exceeds the budget.
 *
 * @module scripts/bench/googleWalletSync
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { startFakeGoogleWallet } from '../../test/support/fakeGoogleWallet.ts';
import { benchTemplate } from './support/benchTemplate.ts';
import { freePort } from '../support/childProcess.ts';
import { benchRequest as request, startBenchServer } from './support/benchServer.ts';
import { createThrowAwayDatabase } from './support/throwAwayDatabase.ts';

const PASSES = Number(process.env.BENCH_PASSES ?? 10_000);
const RPS = Number(process.env.BENCH_GOOGLE_RPS ?? 1000);
const QUOTA_PASSES = Number(process.env.BENCH_QUOTA_PASSES ?? 500);
/** Google Wallet's quota per issuer (https://developers.google.com/wallet/generic/resources/faq). */
const GOOGLE_QUOTA = 20;
const PG_SERVER = process.env.BENCH_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const ISSUER_ID = '3388000000012345678';
const CLIENT_EMAIL = 'bench@wallet-pass-service.iam.gserviceaccount.com';
const POLL_MS = 100;

async function poll(url: string, token: string, done: (attributes: Record<string, any>) => boolean) {
  for (;;) {
    const { data } = await request(url, { token });
    if (done(data.attributes)) return data.attributes as Record<string, any>;
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

/** The most timestamps (ms) within any one second. */
function busiestSecond(times: number[]): number {
  const sorted = [...times].sort((a, b) => a - b);
  let most = 0;
  for (let i = 0, j = 0; j < sorted.length; j++) {
    while (sorted[j]! - sorted[i]! >= 1000) i++;
    most = Math.max(most, j - i + 1);
  }
  return most;
}

/**
 * Syncs `passes` passes of a redesigned template to the stand-in at `rps` calls/s per issuer, on
 * a fresh server and database; prints the figures; answers whether every object was written once
 * and no sliding second at the stand-in held more than `rps` calls.
 */
async function syncRun(passes: number, rps: number): Promise<boolean> {
  const database = await createThrowAwayDatabase(PG_SERVER);
  const dropDatabase = database.drop;

  const keys = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const fake = await startFakeGoogleWallet({ publicKey: keys.publicKey, clientEmail: CLIENT_EMAIL });
  const port = await freePort();
  const server = await startBenchServer({
    PORT: String(port),
    DATABASE_URL: database.url,
    PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
    SECRETS_KEY: randomBytes(32).toString('hex'),
    GOOGLE_WALLET_API_URL: fake.apiUrl,
    GOOGLE_OAUTH_TOKEN_URL: fake.tokenUrl,
    GOOGLE_WALLET_REQUESTS_PER_SECOND: String(rps),
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
    const serviceAccountKey = JSON.stringify({
      type: 'service_account',
      private_key_id: 'bench',
      private_key: keys.privateKey.export({ format: 'pem', type: 'pkcs8' }),
      client_email: CLIENT_EMAIL,
    });
    await request(`${base}/admin/v1/accounts/${accountId}/google-configuration`, {
      method: 'PUT',
      token: adminToken,
      body: { googleConfiguration: { issuerId: ISSUER_ID, serviceAccountKey } },
    });
    const template = await request(`${base}/api/v1/pass-templates`, {
      method: 'POST',
      token,
      body: {
        passTemplate: benchTemplate({ barcode: { enabled: true, type: 'qr', source: 'uuid' } }),
      },
    });
    const processed = await poll(template.meta.links.self, token, (a) => a.processingStatus !== 'processing');
    if (processed.processingStatus === 'failed') throw new Error(`The bench template failed processing: ${JSON.stringify(processed.processingErrors)}`);

    await db.connect();
    const seeded = performance.now();
    await db.query(
      `INSERT INTO passes (id, account_id, template_id, ext_id, status, content, barcode, locations, beacons, group_tags, balance, created_at, updated_at)
       SELECT gen_random_uuid(), $1, $2, 'bench-' || i, 'issued', jsonb_build_object('member', 'Member ' || i, 'points', (i % 1000)::text),
              '{"enabled":true,"type":"qr","source":"uuid"}'::jsonb, '[]', '[]', ARRAY['bench']::varchar[], i % 1000, now(), now()
         FROM generate_series(1, $3::int) AS i`,
      [accountId, template.id, passes],
    );
    console.log(`Seeded ${passes} passes in ${((performance.now() - seeded) / 1000).toFixed(1)} s.`);

    fake.reset();
    const started = performance.now();
    await request(`${base}/api/v1/pass-templates/${template.id}`, {
      method: 'PATCH',
      token,
      body: { passTemplate: { colors: { background: '#AA0000', label: '#FFFFFF', text: '#FFFFFF' } } },
    });
    const objects = () => fake.calls.filter((c) => c.method === 'POST' && c.path === '/loyaltyObject');
    const deadline = started + Math.max(120, (passes / (rps * 0.8)) * 3) * 1000;
    let firstObjectAt: number | null = null;
    while (objects().length < passes && performance.now() < deadline) {
      if (firstObjectAt === null && objects().length) firstObjectAt = performance.now();
      await new Promise((r) => setTimeout(r, 50));
    }
    const seconds = (performance.now() - started) / 1000;
    const written = objects();
    const unique = new Set(written.map((c) => c.body.id)).size;
    const busiest = busiestSecond(fake.calls.map((c) => c.at));
    const classPatched = fake.calls.some((c) => c.method === 'PATCH' && c.path.startsWith('/loyaltyClass/'));
    console.log(`Template redesign reaching ${passes} passes in Google Wallet, PostgreSQL, stand-in API, quota ${rps} calls/s per issuer:`);
    console.log(
      `  PATCH → ${unique} objects written in ${seconds.toFixed(1)} s: ${Math.round(unique / seconds)} objects/s overall` +
        (firstObjectAt
          ? `, ${Math.round(unique / ((performance.now() - firstObjectAt) / 1000))} objects/s once writing (after processing and the refresh)`
          : ''),
    );
    console.log(
      `  calls ${fake.calls.length} (class patched: ${classPatched}), busiest sliding second at the stand-in ${busiest} calls (quota ${rps}), token grants ${fake.tokenRequests.length}`,
    );
    const met = unique === passes && written.length === passes && busiest <= rps && classPatched;
    console.log(`  check: every object written once and no sliding second above the quota — ${met ? 'met' : 'MISSED'}`);
    return met;
  } finally {
    await db.end().catch(() => undefined);
    await server.stop();
    await fake.close();
    await dropDatabase();
  }
}

let met = await syncRun(PASSES, RPS);
if (QUOTA_PASSES > 0) met = (await syncRun(QUOTA_PASSES, GOOGLE_QUOTA)) && met;
process.exitCode = met ? 0 : 1;
