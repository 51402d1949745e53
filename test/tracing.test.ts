/**
 * OpenTelemetry, opt-in (README, "Tracing"): a server started with `OTEL_EXPORTER_OTLP_ENDPOINT`
 * exports one trace per request, and one `PATCH /api/v1/loyalty/{id}` of a pass held by an iPhone
 * yields one trace reaching from the request's server span (`updateLoyalty`) through its database
 * statements and the `pass-changed` job it queued to the APNs push; the request's log line
 * carries the trace id; nothing exported carries the pass id, the push token, the pass's
 * authentication token or the API token.
 *
 * The server runs as a real process (test/support/serverProcess.ts) — the SDK starts when the
 * process does — with a fake APNs (test/support/fakeApns.ts; the child trusts its certificate
 * through NODE_EXTRA_CA_CERTS) and an OTLP/HTTP receiver stand-in (test/support/otlpReceiver.ts);
 * the account, its pass and the iPhone holding it come from test/support/serverApplePass.ts.
 * On both databases: PostgreSQL's statements are traced by the SDK's pg instrumentation, PGlite's
 * by the service (src/db/statementTracing.ts).
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PASS_TYPE_ID } from './support/appleCredentials.ts';
import { startFakeApns, type FakeApns } from './support/fakeApns.ts';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from './support/otlpReceiver.ts';
import { pollUntil } from './support/poll.ts';
import { addToIphone, issueApplePass } from './support/serverApplePass.ts';
import { call, startServer, stopServer, type Started } from './support/serverProcess.ts';
import { createTestDatabase, testDatabaseKind, type TestDatabase, migratedDataDir } from './support/testDatabase.ts';

const adminToken = `wpa_${randomBytes(24).toString('base64url')}`;
/** OTLP SpanKind numbers. */
const SERVER = 2;
const CLIENT = 3;
const PRODUCER = 4;
const CONSUMER = 5;

let database: TestDatabase | undefined;
let fake: FakeApns;
let collector: OtlpReceiver;
let dataDir: string;
let server: Started | undefined;

beforeAll(async () => {
  if (testDatabaseKind() === 'postgresql') database = await createTestDatabase({ migrated: true });
  fake = await startFakeApns();
  collector = await startOtlpReceiver();
  dataDir = database ? await mkdtemp(join(tmpdir(), 'wps-tracing-')) : await migratedDataDir();
  const caFile = join(dataDir, 'fake-apns-ca.pem');
  await writeFile(caFile, fake.ca);
  server = await startServer({
    DATA_DIR: dataDir,
    ...(database ? { DATABASE_URL: database.url! } : {}),
    SECRETS_KEY: randomBytes(32).toString('base64'),
    PUBLIC_BASE_URL: 'http://wallet.test',
    ADMIN_TOKEN: adminToken,
    RATE_LIMIT_PER_SECOND: '0',
    APPLE_ALLOW_DEVELOPMENT_CERTIFICATES: 'true',
    APNS_URL: fake.url,
    NODE_EXTRA_CA_CERTS: caFile,
    OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
    OTEL_BSP_SCHEDULE_DELAY: '100',
    OTEL_METRIC_EXPORT_INTERVAL: '1000',
  });
}, 120_000);
afterAll(async () => {
  if (server) await stopServer(server);
  await collector?.close();
  await fake?.close();
  await database?.drop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

/** An account with development Apple credentials and a processed loyalty template; a pass of it, held by a simulated iPhone. */
async function passOnAnIphone(): Promise<{ token: string; passId: string; pushToken: string; authenticationToken: string }> {
  const { token, passId } = await issueApplePass(server!, adminToken, 'Tracing test');
  const { passJson, pushToken } = await addToIphone(server!, passId);
  return { token, passId, pushToken, authenticationToken: passJson.authenticationToken! };
}

/** The chain of spans from `span` up to its trace's root, by parent ids. */
function ancestry(spans: ReceivedSpan[], span: ReceivedSpan): ReceivedSpan[] {
  const byId = new Map(spans.map((s) => [s.spanId, s]));
  const chain = [span];
  for (let parent = byId.get(span.parentSpanId); parent; parent = byId.get(parent.parentSpanId)) chain.push(parent);
  return chain;
}

it('traces one PATCH /api/v1/loyalty/{id} from its server span through statements and the pass-changed job to the APNs push', async () => {
  const { token, passId, pushToken, authenticationToken } = await passOnAnIphone();
  const pushesBefore = fake.requests.length;

  const patched = await call(server!, token, 'PATCH', `/api/v1/loyalty/${passId}`, { balance: 25 });
  expect(patched.status).toBe(200);

  // The push reaches the fake APNs, and its span the receiver.
  await pollUntil(
    async () => fake.requests.length,
    (n) => n > pushesBefore,
    { timeoutMs: 30_000 },
  );
  const apnsSpan = await pollUntil(
    async () => collector.spans.find((s) => s.name === 'POST /3/device/{deviceToken}'),
    (found) => found !== undefined,
    { timeoutMs: 30_000 },
  );
  expect(apnsSpan).toMatchObject({
    kind: CLIENT,
    serviceName: 'wallet-pass-service',
    attributes: { 'http.request.method': 'POST', 'http.response.status_code': 200, 'apns.topic': PASS_TYPE_ID, 'apns.outcome': 'delivered' },
  });

  // One trace: APNs push ← process pass-changed ← send pass-changed ← … ← updateLoyalty (the root).
  // Spans are exported as they end, the outer ones last: wait for the chain to reach a root.
  const chain = await pollUntil(
    async () => ancestry(collector.spans, apnsSpan!),
    (spans) => spans.at(-1)!.parentSpanId === '',
    { timeoutMs: 30_000 },
  );
  const trace = collector.spans.filter((s) => s.traceId === apnsSpan!.traceId);
  const names = chain.map((s) => s.name);
  expect(names[1]).toBe('process pass-changed');
  expect(chain[1]).toMatchObject({ kind: CONSUMER, attributes: { 'messaging.system': 'pg-boss', 'messaging.destination.name': 'pass-changed' } });
  expect(names).toContain('send pass-changed');
  expect(chain.find((s) => s.name === 'send pass-changed')!.kind).toBe(PRODUCER);
  const root = chain.at(-1)!;
  expect(root).toMatchObject({
    name: 'updateLoyalty',
    kind: SERVER,
    parentSpanId: '',
    attributes: { 'http.request.method': 'PATCH', 'http.route': '/api/v1/loyalty/{id}', 'http.response.status_code': 200 },
  });

  // The request's database statements are in the trace, parameterised, on either database.
  const statements = trace.filter((s) => s.kind === CLIENT && s.attributes['db.system'] === 'postgresql');
  expect(statements.length).toBeGreaterThan(0);
  expect(statements[0]!.name).toMatch(testDatabaseKind() === 'postgresql' ? /^pg\.query:/ : /^pglite\.query:/);
  for (const statement of statements) expect(statement.attributes['db.statement']).toEqual(expect.any(String));
  expect(statements.some((s) => ancestry(trace, s).at(-1) === root && /UPDATE|WITH/.test(String(s.attributes['db.statement'])))).toBe(true);

  // The request's log line carries the trace id.
  const lines = server!
    .output()
    .split('\n')
    .filter((line) => line.includes('"request completed"') && line.includes('"method":"PATCH"'))
    .map((line) => JSON.parse(line) as { trace_id?: string; span_id?: string });
  expect(lines.at(-1)).toMatchObject({ trace_id: root.traceId, span_id: root.spanId });

  // Nothing exported names the pass in full, the device's push token, or a credential.
  const exported = collector.bodies.join('\n');
  for (const secret of [passId, pushToken, authenticationToken, token, adminToken]) expect(exported).not.toContain(secret);

  // Metrics are exported too.
  await pollUntil(
    async () => collector.metricExports,
    (n) => n > 0,
    { timeoutMs: 10_000 },
  );
}, 180_000);
