/**
 * Benchmark: a wallet-messaging batch to 100,000 passes, each with one registered Apple device,
 * pushed to a local APNs stand-in (test/support/fakeApns.ts: HTTP/2, TLS client certificates)
 * in under 60 s on PostgreSQL; then the devices' fetches of their updated passes, with signing
 * and from the cache of built passes.
 *
 * The real server (`src/server.ts`, its in-process workers) runs on a throw-away PostgreSQL
 * database with `APNS_URL` pointing at the stand-in (trusted through `NODE_EXTRA_CA_CERTS`). An
 * account, an entity, development Apple credentials and a processed template are made through
 * the APIs; the passes, one device each and its registration are seeded with SQL (each pass gets
 * its sealed `authenticationToken`, as the first download gives it). A batch for the segment is
 * scheduled, then sent now; measured from `send-now` to the batch's final status (polled every
 * 100 ms). Checked: `successful`, one push per device at the stand-in, every pass messaged.
 * Then BENCH_FETCHES devices (default 2,000) fetch their pass through Apple's "send an updated
 * pass" endpoint, 20 at a time: first built and signed, then the same again from the cache.
 * Last, the template's design changes (PATCH): measured until every device got its push
 * (src/domain/passTemplates/templateRefreshJob.ts); reported, not a target.
 *
 * Environment: BENCH_DATABASE_URL (default postgresql://postgres@127.0.0.1:5432/postgres),
 * BENCH_RECIPIENTS (default 100000), BENCH_FETCHES (default 2000). Exits 1 when the batch takes
 * 60 s or more or misses a device.
 *
 * @module scripts/bench/applePushFanOut
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { SecretCipher } from '../../src/security/secrets.ts';
import { appleAuthenticationTokenContext } from '../../src/security/secretContexts.ts';
import { createDevelopmentCertificates } from '../../src/wallet/apple/developmentCertificates.ts';
import { startFakeApns } from '../../test/support/fakeApns.ts';
import { benchTemplate } from './support/benchTemplate.ts';
import { freePort } from '../support/childProcess.ts';
import { benchRequest as request, startBenchServer } from './support/benchServer.ts';
import { createThrowAwayDatabase } from './support/throwAwayDatabase.ts';

const TARGET_S = 60;
const POLL_MS = 100;
const RECIPIENTS = Number(process.env.BENCH_RECIPIENTS ?? 100_000);
const FETCHES = Math.min(Number(process.env.BENCH_FETCHES ?? 2_000), RECIPIENTS);
const PG_SERVER = process.env.BENCH_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const FINAL = ['successful', 'completedWithErrors', 'failed', 'cancelled'];
const PASS_TYPE = 'pass.com.example.bench';

async function poll(url: string, token: string, done: (attributes: Record<string, any>) => boolean) {
  for (;;) {
    const { data } = await request(url, { token });
    if (done(data.attributes)) return data.attributes as Record<string, any>;
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

/** Runs `work` over `items`, `concurrency` at a time. */
async function pool<T>(items: T[], concurrency: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) await work(items[next++]!);
    }),
  );
}

const database = await createThrowAwayDatabase(PG_SERVER);
const dropDatabase = database.drop;

const fake = await startFakeApns();
const caDir = await mkdtemp(join(tmpdir(), 'wps-bench-apns-'));
await writeFile(join(caDir, 'ca.pem'), fake.ca);
const secretsKey = randomBytes(32);
const port = await freePort();
const server = await startBenchServer({
  PORT: String(port),
  DATABASE_URL: database.url,
  PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
  SECRETS_KEY: secretsKey.toString('hex'),
  APNS_URL: fake.url,
  NODE_EXTRA_CA_CERTS: join(caDir, 'ca.pem'),
  APPLE_ALLOW_DEVELOPMENT_CERTIFICATES: 'true',
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
  const chain = createDevelopmentCertificates({ passTypeIdentifier: PASS_TYPE, teamIdentifier: 'BENCH12345', organizationName: 'Bench' });
  await fetch(`${base}/admin/v1/accounts/${accountId}/apple-configurations/${PASS_TYPE}`, {
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
  }).then(async (res) => {
    if (!res.ok) throw new Error(`Setting the Apple configuration answered ${res.status}: ${await res.text()}`);
  });
  const template = await request(`${base}/api/v1/pass-templates`, {
    method: 'POST',
    token,
    body: {
      passTemplate: benchTemplate(),
    },
  });
  const processed = await poll(template.meta.links.self, token, (a) => a.processingStatus !== 'processing');
  if (processed.processingStatus === 'failed') throw new Error(`The bench template failed processing: ${JSON.stringify(processed.processingErrors)}`);

  await db.connect();
  const seeded = performance.now();
  const { rows: passes } = await db.query<{ id: string }>(
    `INSERT INTO passes (id, account_id, template_id, ext_id, status, content, locations, beacons, group_tags, balance, added_at, device_type, created_at, updated_at)
     SELECT gen_random_uuid(), $1, $2, 'bench-' || i, 'active', jsonb_build_object('member', 'Member ' || i, 'points', '0'),
            '[]', '[]', ARRAY['bench']::varchar[], i % 1000, now(), 'iphone', now(), now()
       FROM generate_series(1, $3::int) AS i
     RETURNING id::text AS id`,
    [accountId, template.id, RECIPIENTS],
  );
  const cipher = new SecretCipher(secretsKey);
  const tokens = new Map<string, string>();
  for (let i = 0; i < passes.length; i += 10_000) {
    const slice = passes.slice(i, i + 10_000);
    const sealed = slice.map(({ id }) => {
      const value = randomBytes(24).toString('base64url');
      tokens.set(id, value);
      return Buffer.from(cipher.encrypt(value, appleAuthenticationTokenContext(id)));
    });
    await db.query(`UPDATE passes p SET apple_authentication_token = t.token FROM unnest($1::uuid[], $2::bytea[]) AS t(id, token) WHERE p.id = t.id`, [
      slice.map((p) => p.id),
      sealed,
    ]);
  }
  await db.query(
    `WITH devices AS (
       INSERT INTO apple_devices (id, account_id, device_library_identifier, push_token, created_at, updated_at)
       SELECT gen_random_uuid(), $1, 'device-' || p.id, md5(p.id::text) || md5(p.ext_id), now(), now() FROM passes p WHERE p.account_id = $1
       RETURNING id, device_library_identifier)
     INSERT INTO apple_registrations (device_id, pass_id, account_id, pass_type_identifier, created_at, renewed_at)
     SELECT d.id, substring(d.device_library_identifier FROM 8)::uuid, $1, $2, now(), now() FROM devices d`,
    [accountId, PASS_TYPE],
  );
  console.log(`Seeded ${RECIPIENTS} passes, each with one registered device, in ${((performance.now() - seeded) / 1000).toFixed(1)} s.`);

  const batch = await request(`${base}/api/v1/entities/${entity.data.id}/messaging/wallet`, {
    method: 'POST',
    token,
    body: { batch: { message: 'Hello %{member}', scheduledAt: new Date(Date.now() + 3600_000).toISOString(), segments: [{ groupTag: 'bench' }] } },
  });
  const self = batch.links.self as string;
  const validated = await poll(self, token, (a) => a.status !== 'validating');
  if (validated.status !== 'scheduled') throw new Error(`The batch is ${validated.status} after validation.`);
  fake.reset();
  const started = performance.now();
  await request(`${self}/send-now`, { method: 'POST', token });
  const final = await poll(self, token, (a) => FINAL.includes(a.status));
  const seconds = (performance.now() - started) / 1000;
  const devices = new Set(fake.requests.map((r) => r.pushToken)).size;
  const complete = final.status === 'successful' && final.recipientCount === RECIPIENTS && devices === RECIPIENTS && fake.requests.length === RECIPIENTS;
  console.log(`Wallet message to ${RECIPIENTS} passes with one Apple device each, PostgreSQL, pushed to a local APNs stand-in:`);
  console.log(
    `  send-now → ${final.status} in ${seconds.toFixed(1)} s (${Math.round(RECIPIENTS / seconds)} pushes/s); pushes received ${fake.requests.length}, devices reached ${devices}`,
  );

  // The devices fetch their updated passes.
  const sample = passes.slice(0, FETCHES).map((p) => p.id);
  const fetchAll = async () => {
    const began = performance.now();
    await pool(sample, 20, async (id) => {
      const res = await fetch(`${base}/wallet/apple/v1/passes/${PASS_TYPE}/${id}`, { headers: { Authorization: `ApplePass ${tokens.get(id)}` } });
      if (res.status !== 200) throw new Error(`Fetching pass ${id} answered ${res.status}: ${await res.text()}`);
      await res.arrayBuffer();
    });
    return FETCHES / ((performance.now() - began) / 1000);
  };
  const signed = await fetchAll();
  const cached = await fetchAll();
  console.log(
    `  devices fetching their updated pass (${FETCHES}, 20 at a time): ${Math.round(signed)} passes/s built and signed, ${Math.round(cached)} passes/s from the cache`,
  );
  // A new design of the template reaches every pass: marked updated and pushed to its device.
  fake.reset();
  const redesigned = performance.now();
  await request(`${base}/api/v1/pass-templates/${template.id}`, {
    method: 'PATCH',
    token,
    body: { passTemplate: { colors: { background: '#AA0000', label: '#FFFFFF', text: '#FFFFFF' } } },
  });
  const redesignDeadline = redesigned + 10 * TARGET_S * 1000;
  while (new Set(fake.requests.map((r) => r.pushToken)).size < RECIPIENTS && performance.now() < redesignDeadline)
    await new Promise((r) => setTimeout(r, POLL_MS));
  const redesignSeconds = (performance.now() - redesigned) / 1000;
  const redesignDevices = new Set(fake.requests.map((r) => r.pushToken)).size;
  console.log(
    `  template redesign → ${redesignDevices} of ${RECIPIENTS} devices pushed in ${redesignSeconds.toFixed(1)} s (${Math.round(redesignDevices / redesignSeconds)} passes/s, processing included)`,
  );
  const met = complete && seconds < TARGET_S;
  console.log(
    `  target: all ${RECIPIENTS} pushed in under ${TARGET_S} s — ${met ? 'met' : `MISSED${complete ? ` by ${(seconds - TARGET_S).toFixed(1)} s` : ' (not every device reached)'}`}`,
  );
  process.exitCode = met ? 0 : 1;
} finally {
  await db.end().catch(() => undefined);
  await server.stop();
  await fake.close();
  await rm(caDir, { recursive: true, force: true });
  await dropDatabase();
}
