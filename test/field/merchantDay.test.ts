/**
 * A merchant's day on a simulated internet, with the service run as the README deploys it
 * (test/field/run.ts sets the network up; this file runs inside "the internet"):
 *
 * - the service, compiled, on PostgreSQL, behind nginx configured with the README's own server
 *   blocks, at `https://wallet.hoshi-coffee.jp` — with none of the lab switches in its environment
 *   (checked in /proc), reaching Apple, Google, the CDN and the webhook receiver at their real
 *   names on public addresses, trusting the test CA through `NODE_EXTRA_CA_CERTS`;
 * - the operator runs the admin CLI on the host; the merchant's backend calls the API through
 *   the proxy with the typed client; a simulated iPhone registers with the Apple web service;
 *   Google's stand-in takes the class and object, signs a save callback with keys it serves at
 *   pay.google.com; the merchant's receiver takes the webhooks.
 *
 * The day: set-up → previews whose images do not come (the time budget) → webhook destinations
 * (public accepted, private refused) → a template with images from the CDN → passes for holders
 * with Japanese, Greek, Cyrillic and Arabic names → holder page and .pkpass through the proxy →
 * iPhone registration → points change → APNs push → Google class and object → save callback →
 * webhooks → a name moved to a private address refused at delivery → a message batch → the
 * delivery timeline of one pass, printed, with every hop.
 *
 * The one thing the simulation cannot have is a Pass Type ID certificate Apple signed: the
 * service (production: Apple's WWDR G4 required) refuses the test chain's upload, which the test
 * checks, and the test then stores the test chain as an accepted upload would — the test's
 * "Apple root" is what the simulated iPhone trusts.
 */
import { execFileSync } from 'node:child_process';
import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import pg from 'pg';
import sharp from 'sharp';
import { checkPkpass, passFieldValue } from '../../examples/pkpass.ts';
import { SimulatedWallet } from '../../examples/simulatedWallet.ts';
import { createWalletPassClient, type WalletPassClient } from '../../src/client/index.ts';
import { openDatabase } from '../../src/db/database.ts';
import { upsertAppleConfiguration } from '../../src/domain/appleConfigurations/appleConfigurationStore.ts';
import { SecretCipher } from '../../src/security/secrets.ts';
import { createDevelopmentCertificates } from '../../src/wallet/apple/developmentCertificates.ts';
import { startFakeApns, type FakeApns } from '../support/fakeApns.ts';
import { startFakeGoogleCallbacks, type FakeGoogleCallbacks } from '../support/fakeGoogleCallbacks.ts';
import { startFakeGoogleWallet, type FakeGoogleWallet } from '../support/fakeGoogleWallet.ts';
import { CLIENT_EMAIL, ISSUER_ID, serviceAccountKeyFile, serviceAccountKeyPair } from '../support/googleCredentials.ts';
import { listenWith, type Listening } from '../support/listen.ts';
import { pollUntil } from '../support/poll.ts';
import { startWebhookReceiver, verifyWebhookSignature, type WebhookReceiver } from '../support/webhookReceiver.ts';
import { environmentsOf, LAB_SWITCHES, repositoryRoot, startFieldService, type FieldService } from './fieldService.ts';
import { startReverseProxy, type ReverseProxy } from './reverseProxy.ts';
import type { FieldPlan } from './run.ts';
import { INTERNET_HOSTS, MERCHANT_DOMAIN, serviceHostsFile, STALLED_ADDRESS } from './simulatedInternet.ts';

if (!process.env.FIELD_PLAN) throw new Error('The field suite runs on the simulated internet: npm run test:field (test/field/run.ts).');
const plan = JSON.parse(readFileSync(process.env.FIELD_PLAN, 'utf8')) as FieldPlan;
const credentialsOf = (name: string) => ({
  key: readFileSync(plan.credentials[name]!.keyFile, 'utf8'),
  cert: readFileSync(plan.credentials[name]!.certFile, 'utf8'),
});

const BASE_URL = `https://${INTERNET_HOSTS.service.name}`;
const PASS_TYPE_ID = 'pass.jp.hoshi-coffee.members';
const TEAM_ID = 'HOSHI12345';
const IPHONE_UA = 'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1';
const ANDROID_UA = 'Mozilla/5.0 (Linux; Android 15; Pixel 9) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36';
const HOLDERS = ['山田 花子', 'Ζωή Παπαδοπούλου', 'Ольга Смирнова', 'محمد الأحمد'];
const PG_SOCKET_DIR = process.env.FIELD_PG_SOCKET_DIR ?? '/var/run/postgresql';
const database = `wps_field_${process.pid}`;
const ARTIFACTS = join(repositoryRoot, 'test/artifacts/field');
const apple = createDevelopmentCertificates({ passTypeIdentifier: PASS_TYPE_ID, teamIdentifier: TEAM_ID, organizationName: '星珈琲 Hoshi Coffee' });

let apns: FakeApns;
let apnsSandbox: FakeApns;
let google: FakeGoogleWallet;
let googleKeys: FakeGoogleCallbacks;
let hooks: WebhookReceiver;
let cdn: Listening;
let dns: UdpSocket;
let proxy: ReverseProxy | undefined;
let service: FieldService | undefined;
const cdnRequests: { path: string; from: string | undefined }[] = [];
const dnsQueries: string[] = [];

/** What the merchant has by the end of each step. */
const day = {
  accountId: '',
  token: '',
  entityId: '',
  templateId: '',
  hookSecret: '',
  movedSubscriptions: [] as string[],
  passes: [] as { id: string; holder: string; downloadUrl: string }[],
  iphone: new SimulatedWallet(BASE_URL),
  client: undefined as unknown as WalletPassClient,
};

/** A request to the service through the proxy (the merchant's backend or a holder's browser). */
async function request(path: string, init: RequestInit = {}): Promise<Response> {
  return fetch(`${BASE_URL}${path}`, { redirect: 'manual', ...init });
}

/** A JSON call to the API with the merchant's key. */
async function api(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await request(path, {
    method,
    headers: { Authorization: `Bearer ${day.token}`, 'Content-Type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

/** A brand image of the CDN (PNG). */
const brandImage = (width: number, height: number, colour: string) =>
  sharp({ create: { width, height, channels: 4, background: colour } })
    .png()
    .toBuffer();

/** The first DNS question's name of a query (RFC 1035 §4.1.2), for the record. */
function questionName(packet: Buffer): string {
  const labels: string[] = [];
  for (let at = 12; at < packet.length && packet[at]! > 0; at += packet[at]! + 1) labels.push(packet.subarray(at + 1, at + 1 + packet[at]!).toString('latin1'));
  return labels.join('.');
}

beforeAll(async () => {
  const images = {
    '/brand/logo.png': await brandImage(480, 150, '#6B3E26'),
    '/brand/icon.png': await brandImage(87, 87, '#6B3E26'),
    '/brand/banner.png': await brandImage(1125, 432, '#E8C39E'),
  };
  // The internet: Apple (production and sandbox), Google's APIs and callback keys, the CDN, the
  // merchant's webhook receiver, and a DNS server that never answers.
  apns = await startFakeApns({
    host: INTERNET_HOSTS.apns.address,
    port: 443,
    hostname: INTERNET_HOSTS.apns.name,
    certificate: credentialsOf(INTERNET_HOSTS.apns.name),
  });
  apnsSandbox = await startFakeApns({
    host: INTERNET_HOSTS.apnsSandbox.address,
    port: 443,
    hostname: INTERNET_HOSTS.apnsSandbox.name,
    certificate: credentialsOf(INTERNET_HOSTS.apnsSandbox.name),
  });
  google = await startFakeGoogleWallet({
    publicKey: serviceAccountKeyPair().publicKey,
    clientEmail: CLIENT_EMAIL,
    tokenAudience: `https://${INTERNET_HOSTS.googleOauth.name}/token`,
    listen: {
      addresses: [INTERNET_HOSTS.googleOauth.address, INTERNET_HOSTS.googleWallet.address],
      port: 443,
      tls: credentialsOf(INTERNET_HOSTS.googleWallet.name),
    },
  });
  googleKeys = await startFakeGoogleCallbacks({
    listen: { addresses: [INTERNET_HOSTS.googleKeys.address], port: 443, tls: credentialsOf(INTERNET_HOSTS.googleKeys.name) },
  });
  hooks = await startWebhookReceiver({ addresses: [INTERNET_HOSTS.webhooks.address], port: 443, tls: credentialsOf(INTERNET_HOSTS.webhooks.name) });
  cdn = await listenWith(
    (req: IncomingMessage, res: ServerResponse) => {
      cdnRequests.push({ path: req.url ?? '', from: req.socket.remoteAddress });
      const image = images[req.url as keyof typeof images];
      if (image) res.writeHead(200, { 'Content-Type': 'image/png', 'Cache-Control': 'max-age=86400' }).end(image);
      else res.writeHead(404).end();
    },
    { addresses: [INTERNET_HOSTS.cdn.address], port: 443, tls: credentialsOf(INTERNET_HOSTS.cdn.name) },
  );
  dns = createSocket('udp4', (packet) => dnsQueries.push(questionName(packet)));
  await new Promise<void>((resolve) => dns.bind(53, INTERNET_HOSTS.resolver.address, resolve));

  // The service's database, on PostgreSQL's Unix socket (a socket is no network: it is shared by the namespaces).
  const admin = new pg.Client({ host: PG_SOCKET_DIR, user: 'postgres', database: 'postgres' });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${database}`);
  await admin.end();

  proxy = await startReverseProxy({
    namespace: plan.internet.svc,
    readmePath: join(repositoryRoot, 'README.md'),
    serverName: INTERNET_HOSTS.service.name,
    certFile: plan.credentials[INTERNET_HOSTS.service.name]!.certFile,
    keyFile: plan.credentials[INTERNET_HOSTS.service.name]!.keyFile,
    dir: plan.dir,
  });
  service = startFieldService({
    namespace: plan.internet.svc,
    databaseUrl: `postgresql://postgres@localhost/${database}?host=${encodeURIComponent(PG_SOCKET_DIR)}`,
    publicBaseUrl: BASE_URL,
    caFile: plan.caFile,
    dataDir: join(plan.dir, 'data'),
  });
  const ready = await pollUntil(
    () =>
      request('/readyz')
        .then((res) => res.status)
        .catch(() => 0),
    (status) => status === 200,
    { timeoutMs: 120_000, intervalMs: 500 },
  );
  if (ready !== 200) throw new Error(`The service did not become ready through the proxy (last status ${ready}):\n${service.output().slice(-4000)}`);
}, 180_000);

afterAll(async () => {
  const code = await service?.stop();
  await proxy?.stop();
  // Kept for reading after a failure: the service's log and nginx's error log.
  mkdirSync(ARTIFACTS, { recursive: true });
  writeFileSync(join(ARTIFACTS, 'service.log'), service?.output() ?? '');
  writeFileSync(join(ARTIFACTS, 'nginx-error.log'), proxy?.errorLog() ?? '');
  if (code !== 0) console.log(`The service exited with ${code}; its log: ${join(ARTIFACTS, 'service.log')}`);
  await Promise.all([apns?.close(), apnsSandbox?.close(), google?.close(), googleKeys?.close(), hooks?.close(), cdn?.close()]);
  dns?.close();
  const admin = new pg.Client({ host: PG_SOCKET_DIR, user: 'postgres', database: 'postgres' });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
  await admin.end();
}, 60_000);

it('runs the production configuration: no lab switch in its environment, no route out of its namespace, operators only inside', async () => {
  const environments = environmentsOf(service!.pid);
  // The primary and the server processes it forked (WEB_CONCURRENCY defaults to the CPUs with PostgreSQL).
  expect(environments.length).toBeGreaterThanOrEqual(2);
  for (const env of environments) {
    expect(Object.keys(env).filter((name) => LAB_SWITCHES.test(name))).toEqual([]);
    expect(env).toMatchObject({ NODE_ENV: 'production', PUBLIC_BASE_URL: BASE_URL, DATABASE_URL: expect.stringMatching(/^postgresql:/) });
  }
  expect(execFileSync('ip', ['netns', 'identify', String(service!.pid)], { encoding: 'utf8' }).trim()).toBe(plan.internet.svc);
  expect(execFileSync('ip', ['-n', plan.internet.svc, 'route', 'show', 'default'], { encoding: 'utf8' }).trim()).toBe('');
  expect(execFileSync('ip', ['route', 'show', 'default'], { encoding: 'utf8' }).trim()).toBe('');
  // The README's nginx: http goes to https; the administration API is kept to the operators' network.
  const http = await fetch(`http://${INTERNET_HOSTS.service.name}/passes/x`, { redirect: 'manual' });
  expect({ status: http.status, location: http.headers.get('location') }).toEqual({ status: 301, location: `${BASE_URL}/passes/x` });
  expect((await request('/admin/v1/accounts', { headers: { Authorization: `Bearer ${service!.adminToken}` } })).status).toBe(403);
  expect((await request('/metrics')).status).toBe(403);
});

it('the operator sets the merchant up with the admin CLI on the host; the test chain is refused as production refuses it', async () => {
  const account = await service!.admin('account', 'create', '--name', '星珈琲 Hoshi Coffee');
  expect(account.code).toBe(0);
  const created = JSON.parse(account.stdout) as { account: { id: string }; token: string };
  day.accountId = created.account.id;
  day.token = created.token;
  day.client = createWalletPassClient({ baseUrl: BASE_URL, token: day.token });
  const entity = await service!.admin('entity', 'create', '--account', day.accountId, '--name', '京都 三条店');
  expect(entity.code).toBe(0);
  day.entityId = (JSON.parse(entity.stdout) as { entity: { id: string } }).entity.id;
  const keyFile = join(plan.dir, 'google-service-account.json');
  writeFileSync(keyFile, serviceAccountKeyFile(), { mode: 0o600 });
  const googleSet = await service!.admin('google', 'set', '--account', day.accountId, '--issuer-id', ISSUER_ID, '--key', keyFile);
  expect({ code: googleSet.code, stderr: googleSet.stderr }).toEqual({ code: 0, stderr: '' });

  for (const [name, pem] of [
    ['pass.cert.pem', apple.certificatePem],
    ['pass.key.pem', apple.privateKeyPem],
    ['wwdr.pem', apple.wwdrCertificatePem],
  ] as const)
    writeFileSync(join(plan.dir, name), pem, { mode: 0o600 });
  const appleSet = await service!.admin(
    ...['apple', 'set', '--account', day.accountId, '--pass-type-id', PASS_TYPE_ID, '--team-id', TEAM_ID, '--organization', '星珈琲'],
    ...['--certificate', join(plan.dir, 'pass.cert.pem'), '--key', join(plan.dir, 'pass.key.pem'), '--wwdr', join(plan.dir, 'wwdr.pem')],
  );
  expect(appleSet.code).toBe(1);
  expect(`${appleSet.stdout}${appleSet.stderr}`).toContain("is not Apple's WWDR G4");
  // What an accepted upload of Apple-signed credentials stores (src/api/administration/setAppleConfiguration.ts).
  const db = await openDatabase({ databaseUrl: service!.env.DATABASE_URL! });
  try {
    await db.write((tx) =>
      upsertAppleConfiguration(
        tx,
        new SecretCipher(service!.secretsKey),
        day.accountId,
        {
          passTypeIdentifier: PASS_TYPE_ID,
          teamIdentifier: TEAM_ID,
          organizationName: '星珈琲',
          certificatePem: apple.certificatePem,
          privateKeyPem: apple.privateKeyPem,
          wwdrCertificatePem: apple.wwdrCertificatePem,
          certificateFingerprint: 'field-test-chain',
          certificateNotAfter: new Date(Date.now() + 300 * 24 * 3600 * 1000),
          wwdrIsAppleG4: false,
        },
        new Date(),
      ),
    );
  } finally {
    await db.close();
  }
  const shown = await service!.admin('apple', 'show', '--account', day.accountId, '--pass-type-id', PASS_TYPE_ID);
  expect(shown.code).toBe(0);
});

it('answers a preview whose image host does not resolve, or does not answer, within the time budget, naming what ran out', async () => {
  const preview = async (logo: string) => {
    const started = Date.now();
    const res = await api('POST', '/api/v1/pass-templates/preview', {
      passTemplate: { name: 'Draft', templateType: 'loyalty', images: { logo, icon: `https://${INTERNET_HOSTS.cdn.name}/brand/icon.png` } },
    });
    return { status: res.status, error: res.body?.errors?.[0], ms: Date.now() - started };
  };
  const [unresolvable, stalled] = await Promise.all([
    preview('https://images.gone-cdn.example/logo.png'),
    preview(`https://stalled-cdn.${MERCHANT_DOMAIN}/logo.png`),
  ]);
  expect(unresolvable).toMatchObject({
    status: 400,
    error: {
      source: { pointer: '/passTemplate/images/logo' },
      detail:
        'images.logo: https://images.gone-cdn.example/logo.png cannot be fetched: https://images.gone-cdn.example: the time budget of 5000 ms ran out while resolving images.gone-cdn.example (DNS).',
    },
  });
  expect(stalled).toMatchObject({
    status: 400,
    error: { detail: expect.stringContaining(`the time budget of 5000 ms ran out while connecting to ${STALLED_ADDRESS}.`) },
  });
  // The resolver was asked (and never answered: glibc would have waited 10 s); the budget ended the wait.
  expect(dnsQueries).toContain('images.gone-cdn.example');
  for (const { ms } of [unresolvable, stalled]) expect(ms).toBeLessThan(9000);
  console.log(`Previews with an unresolvable and a stalled image host answered 400 in ${unresolvable.ms} and ${stalled.ms} ms.`);
});

it('accepts webhooks to a host on a public IPv4 address and refuses private, loopback, link-local and IPv4-mapped private ones', async () => {
  const subscribe = (url: string, subscribedEvents: string[]) =>
    api('POST', '/api/v1/webhook-subscriptions', { webhookSubscription: { url, subscribedEvents, scopeType: 'organisation' } });
  const main = await subscribe(`https://${INTERNET_HOSTS.webhooks.name}/wallet-events`, [
    'passCreated',
    'passInstalled',
    'passUpdated',
    'batchCompleted',
    'passTemplateProcessed',
  ]);
  expect(main.status).toBe(201);
  day.hookSecret = main.body.data.attributes.secretKey;
  for (const name of ['hooks-moved', 'hooks-relocated']) {
    const moved = await subscribe(`https://${name}.${MERCHANT_DOMAIN}/events`, ['passTemplateProcessed']);
    expect(moved.status).toBe(201);
    day.movedSubscriptions.push(moved.body.data.id);
  }
  for (const [url, address] of [
    [`https://intranet.${MERCHANT_DOMAIN}/hook`, '10.20.30.40'],
    [`https://loopback.${MERCHANT_DOMAIN}/hook`, '127.0.0.1'],
    [`https://metadata.${MERCHANT_DOMAIN}/latest`, '169.254.169.254'],
    [`https://mapped.${MERCHANT_DOMAIN}/hook`, '::ffff:10.20.30.40'],
    ['https://[::ffff:a14:1e28]/hook', '::ffff:a14:1e28'],
    ['https://0x7f000001/hook', '127.0.0.1'],
  ]) {
    const res = await subscribe(url!, ['passCreated']);
    expect({ url, status: res.status, detail: res.body.errors?.[0]?.detail }).toEqual({
      url,
      status: 400,
      detail: expect.stringContaining(`resolves to ${address}, a private or reserved address`),
    });
  }
  // The hosts file gives localhost both loopback addresses; either is refused.
  const localhost = await subscribe('https://localhost/hook', ['passCreated']);
  expect({ status: localhost.status, detail: localhost.body.errors?.[0]?.detail }).toEqual({
    status: 400,
    detail: expect.stringMatching(/^localhost resolves to (127\.0\.0\.1|::1), a private or reserved address \(loopback\)\.$/),
  });
});

it('processes a template whose images come from the CDN', async () => {
  const created = await day.client.POST('/api/v1/pass-templates', {
    body: {
      passTemplate: {
        name: '星珈琲 メンバーズカード',
        templateType: 'loyalty',
        defaultLanguage: 'ja',
        centralTitle: '星珈琲',
        notificationHeader: '星珈琲からのお知らせ',
        description: '星珈琲のメンバーズカード',
        colors: { background: '#3B2314', label: '#E8C39E', text: '#FFFFFF' },
        images: {
          logo: `https://${INTERNET_HOSTS.cdn.name}/brand/logo.png`,
          icon: `https://${INTERNET_HOSTS.cdn.name}/brand/icon.png`,
          banner: `https://${INTERNET_HOSTS.cdn.name}/brand/banner.png`,
        },
        fields: {
          header: { one: { id: 'points', label: 'ポイント', defaultValue: '0', changeMessage: 'ポイント: %@' } },
          central: { one: { id: 'member', label: '会員', defaultValue: 'ゲスト' } },
          back: { one: { id: 'terms', label: 'ご利用条件', defaultValue: '一杯ごとにスタンプ一つ。' } },
        },
        barcode: { enabled: true, type: 'qr', source: 'uuid' },
      } as never,
    },
  });
  expect(created.response.status).toBe(202);
  const template = await day.client.waitForTemplate(created.data!.id, { timeoutMs: 60_000 });
  expect('processingStatus' in template.attributes ? template.attributes.processingStatus : 'processed').toBe('processed');
  day.templateId = template.id;
  expect(cdnRequests.filter((r) => r.path.startsWith('/brand/')).map((r) => r.from)).toContain(INTERNET_HOSTS.service.address);
});

it('issues passes to holders with non-Latin names, serves the holder page and the signed .pkpass through the proxy, and the iPhone registers', async () => {
  for (const [i, holder] of HOLDERS.entries()) {
    const issued = await day.client.POST('/api/v1/passes', {
      params: { query: { passTemplate: day.templateId, extId: `member-${i + 1}` } },
      body: { pass: { member: holder, points: String(10 * (i + 1)) } } as never,
    });
    expect(issued.response.status).toBe(200);
    day.passes.push({ id: issued.data!.data.id, holder, downloadUrl: issued.data!.data.attributes.downloadUrl });
  }
  const [hanako] = day.passes;
  expect(hanako!.downloadUrl).toBe(`${BASE_URL}/passes/${hanako!.id}`);
  const page = await fetch(hanako!.downloadUrl, { headers: { 'User-Agent': IPHONE_UA, 'Accept-Language': 'ja' } });
  const html = await page.text();
  expect({ status: page.status, type: page.headers.get('content-type'), holder: html.includes('山田 花子') }).toEqual({
    status: 200,
    type: 'text/html; charset=utf-8',
    holder: true,
  });
  expect(html).toContain(`/passes/${hanako!.id}/apple`);
  const android = await (await fetch(day.passes[1]!.downloadUrl, { headers: { 'User-Agent': ANDROID_UA } })).text();
  expect(android).toContain('https://pay.google.com/gp/v/save/');

  const file = await fetch(`${BASE_URL}/passes/${hanako!.id}/apple`, { headers: { 'User-Agent': IPHONE_UA } });
  expect({ status: file.status, type: file.headers.get('content-type'), disposition: file.headers.get('content-disposition') }).toEqual({
    status: 200,
    type: 'application/vnd.apple.pkpass',
    disposition: `attachment; filename=pass.pkpass; filename*=UTF-8''${encodeURIComponent('星珈琲 メンバーズカード.pkpass')}`,
  });
  const pkpass = new Uint8Array(await file.arrayBuffer());
  const checked = await checkPkpass(pkpass, apple.rootCertificatePem);
  expect({
    verified: checked.signatureVerified,
    mismatches: checked.manifestMismatches,
    signer: checked.signerUid,
    webServiceURL: checked.passJson.webServiceURL,
    member: passFieldValue(checked.passJson, 'member'),
    images: Object.keys(checked.files).filter((f) => f.endsWith('.png')).length,
  }).toEqual({
    verified: true,
    mismatches: [],
    signer: PASS_TYPE_ID,
    webServiceURL: `${BASE_URL}/wallet/apple`,
    member: '山田 花子',
    images: 9,
  });
  const added = await day.iphone.add(pkpass);
  expect(added.status).toBe(201);
});

it('pushes a points change through APNs at api.push.apple.com, and the iPhone fetches the new pass', async () => {
  const [hanako] = day.passes;
  const changed = await api('PATCH', `/api/v1/loyalty/${hanako!.id}`, { balance: 25 });
  expect(changed.status).toBe(200);
  const pushes = await pollUntil(
    async () => apns.requests.filter((push) => push.pushToken === day.iphone.pushToken),
    (list) => list.length > 0,
    { timeoutMs: 30_000, intervalMs: 100 },
  );
  expect(pushes[0]).toMatchObject({ topic: PASS_TYPE_ID, clientCertificateUid: PASS_TYPE_ID, body: '{}' });
  expect(apnsSandbox.requests).toEqual([]);
  const pass = day.iphone.passes.get(hanako!.id)!;
  const listed = await day.iphone.listUpdated(pass.passTypeIdentifier, pass.webServicePath);
  expect(listed.serialNumbers).toEqual([hanako!.id]);
  await day.iphone.fetchLatest(hanako!.id);
  const latest = await day.iphone.fetchLatest(hanako!.id);
  expect(latest.status).toBe(304);
  expect(passFieldValue(day.iphone.passes.get(hanako!.id)!.passJson, 'points')).toBe('35');
});

it('writes the Google Wallet class and objects at walletobjects.googleapis.com with a token from oauth2.googleapis.com', async () => {
  const objectIds = day.passes.map((p) => `${ISSUER_ID}.${p.id}`);
  const calls = await pollUntil(
    async () => google.calls.filter((c) => c.method === 'POST'),
    (list) => list.some((c) => c.path === '/loyaltyClass') && objectIds.every((id) => list.some((c) => c.path === '/loyaltyObject' && c.body.id === id)),
    { timeoutMs: 30_000, intervalMs: 200 },
  );
  const inserted = calls.find((c) => c.path === '/loyaltyClass')!;
  expect(inserted.body).toMatchObject({ id: `${ISSUER_ID}.${day.templateId}`, callbackOptions: { url: `${BASE_URL}/wallet/google/v1/callbacks` } });
  expect(google.tokenRequests.length).toBeGreaterThanOrEqual(1);
  // Google fetches the class's logos from the service, through the proxy: the brand logo is
  // 480 × 150 (3.2:1), Google's wide logo; the square icon is the circle logo.
  for (const member of ['wideProgramLogo', 'programLogo']) {
    const logo = inserted.body[member].sourceUri.uri as string;
    expect(logo.startsWith(`${BASE_URL}/media/`)).toBe(true);
    const fetched = await fetch(logo);
    expect({ member, status: fetched.status, type: fetched.headers.get('content-type') }).toEqual({ member, status: 200, type: 'image/png' });
  }
});

it("takes Google's save callback, signed with keys from pay.google.com, and tells the merchant's receiver", async () => {
  // Hanako saves the pass to her Android phone's Google Wallet too.
  const [hanako] = day.passes;
  const installedOf = () =>
    hooks.received.filter((r) => r.body?.data?.attributes?.webhookType === 'passInstalled' && r.body.data.relationships?.pass?.data?.id === hanako!.id);
  const before = installedOf().length;
  const callback = googleKeys.callback({
    issuerId: ISSUER_ID,
    classId: `${ISSUER_ID}.${day.templateId}`,
    objectId: `${ISSUER_ID}.${hanako!.id}`,
    eventType: 'save',
  });
  const res = await request('/wallet/google/v1/callbacks', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(callback) });
  expect(res.status).toBe(200);
  expect(googleKeys.keyRequests).toBeGreaterThanOrEqual(1);
  const pass = await api('GET', `/api/v1/passes/${hanako!.id}`);
  expect(pass.body.data.attributes).toMatchObject({ deviceType: 'android', status: 'active' });
  const installed = await pollUntil(
    async () => installedOf(),
    (list) => list.length > before,
    { timeoutMs: 30_000, intervalMs: 100 },
  );
  expect(installed.length).toBe(before + 1);
  expect(verifyWebhookSignature(day.hookSecret, installed.at(-1)!)).toBe(true);
});

it("delivers the day's webhooks to the merchant's receiver, signed, and refuses at delivery a name that moved to a private address", async () => {
  await hooks.waitFor(HOLDERS.length + 3, { filter: (r) => r.path === '/wallet-events', timeoutMs: 30_000 });
  const types = hooks.received.filter((r) => r.path === '/wallet-events').map((r) => r.body.data.attributes.webhookType as string);
  expect(new Set(types)).toEqual(new Set(['passTemplateProcessed', 'passCreated', 'passUpdated', 'passInstalled']));
  expect(types.filter((type) => type === 'passCreated')).toHaveLength(HOLDERS.length);
  for (const received of hooks.received.filter((r) => r.path === '/wallet-events')) expect(verifyWebhookSignature(day.hookSecret, received)).toBe(true);
  // Delivered to the moved names while they were public (the template's processing).
  expect(hooks.received.filter((r) => r.path === '/events').length).toBe(2);
  // DNS changes under the service: the names now point into the merchant's private network.
  writeFileSync(
    plan.internet.svcHostsFile,
    serviceHostsFile({ [`hooks-moved.${MERCHANT_DOMAIN}`]: '192.168.1.20', [`hooks-relocated.${MERCHANT_DOMAIN}`]: '::ffff:127.0.0.1' }),
  );
  for (const id of day.movedSubscriptions) expect((await api('POST', `/api/v1/webhook-subscriptions/${id}/test-event`)).status).toBe(202);
  const attempts = await pollUntil(
    () => Promise.all(day.movedSubscriptions.map(async (id) => (await api('GET', `/api/v1/webhook-subscriptions/${id}/delivery-attempts`)).body.data)),
    (lists) => lists.every((list: { attributes: { outcome: string } }[]) => list.some((a) => a.attributes.outcome === 'refused')),
    { timeoutMs: 30_000, intervalMs: 500 },
  );
  expect(attempts.map((list: { attributes: Record<string, unknown> }[]) => list[0]!.attributes)).toEqual([
    expect.objectContaining({ outcome: 'refused', error: `hooks-moved.${MERCHANT_DOMAIN} resolves to 192.168.1.20, a private or reserved address (private).` }),
    expect.objectContaining({
      outcome: 'refused',
      error: `hooks-relocated.${MERCHANT_DOMAIN} resolves to ::ffff:127.0.0.1, a private or reserved address (loopback).`,
    }),
  ]);
  expect(hooks.received.filter((r) => r.path === '/events').length).toBe(2);
});

it('sends a message batch: a push to the iPhone and a Google message for every recipient', async () => {
  const pushesBefore = apns.requests.length;
  const created = await api('POST', `/api/v1/entities/${day.entityId}/messaging/wallet`, {
    batch: {
      message: '%{member} 様、今週末は季節のブレンドが二倍ポイントです。',
      recipients: day.passes.map((p) => ({ passId: p.id })),
      scheduledAt: new Date(Date.now() + 24 * 3600 * 1000).toISOString(),
    },
  });
  expect(created.status).toBe(202);
  const id = created.body.data.id as string;
  await pollUntil(
    async () => (await api('GET', `/api/v1/batches/${id}`)).body.data.attributes.status,
    (status) => status !== 'validating',
    { timeoutMs: 30_000, intervalMs: 300 },
  );
  expect((await api('POST', `/api/v1/batches/${id}/send-now`)).status).toBe(200);
  const batch = await day.client.waitForBatch(id, { timeoutMs: 60_000 });
  expect(batch.attributes).toMatchObject({ status: 'successful', recipientCount: HOLDERS.length });
  await pollUntil(
    async () => apns.requests.length,
    (count) => count > pushesBefore,
    { timeoutMs: 30_000, intervalMs: 100 },
  );
  const messages = await pollUntil(
    async () => google.calls.filter((c) => c.path.endsWith('/addMessage')),
    (list) => list.length >= HOLDERS.length,
    { timeoutMs: 30_000, intervalMs: 200 },
  );
  expect(messages.map((c) => c.body.message.body)).toContain('山田 花子 様、今週末は季節のブレンドが二倍ポイントです。');
  const [hanako] = day.passes;
  const pass = day.iphone.passes.get(hanako!.id)!;
  expect((await day.iphone.listUpdated(pass.passTypeIdentifier, pass.webServicePath)).serialNumbers).toEqual([hanako!.id]);
});

it('ends with the delivery timeline of one pass, every hop of the day in it', async () => {
  const [hanako] = day.passes;
  const read = async () => {
    const [wallets, webhooks, registrations] = await Promise.all([
      api('GET', `/api/v1/passes/${hanako!.id}/delivery-attempts?perPage=100`),
      api('GET', `/api/v1/passes/${hanako!.id}/webhook-delivery-attempts?perPage=100`),
      api('GET', `/api/v1/passes/${hanako!.id}/registrations`),
    ]);
    return { wallets: wallets.body.data as any[], webhooks: webhooks.body.data as any[], registrations: registrations.body.data as any[] };
  };
  const { wallets, webhooks, registrations } = await pollUntil(read, (t) => t.webhooks.filter((a) => a.attributes.outcome === 'delivered').length >= 2, {
    timeoutMs: 30_000,
    intervalMs: 500,
  });
  const hops = [
    ...registrations.map((r) => ({
      at: r.attributes.registeredAt,
      hop: `apple         register            iPhone ${r.id.slice(0, 8)}…, push token …${r.attributes.pushTokenEnd}`,
    })),
    ...wallets.map((a) => ({
      at: a.attributes.createdAt,
      hop: `${a.attributes.channel.padEnd(14)}${a.attributes.operation.padEnd(20)}${a.attributes.outcome} ${a.attributes.status}${a.attributes.reason ? ` ${a.attributes.reason}` : ''}`,
    })),
    ...webhooks.map((a) => ({
      at: a.attributes.createdAt,
      hop: `webhook       ${String(a.attributes.webhookType).padEnd(20)}${a.attributes.outcome} ${a.attributes.status}`,
    })),
  ].sort((a, b) => String(a.at).localeCompare(String(b.at)));
  console.log(`The day of pass ${hanako!.id} (${hanako!.holder}):\n${hops.map((h) => `  ${h.at}  ${h.hop}`).join('\n')}`);
  const wallet = wallets.map((a) => `${a.attributes.channel}/${a.attributes.operation}/${a.attributes.outcome}`);
  expect(wallet.filter((w) => w === 'apns/push/delivered').length).toBeGreaterThanOrEqual(2);
  expect(wallet).toEqual(expect.arrayContaining(['googleWallet/insertObject/delivered', 'googleWallet/addNotifyingMessage/delivered']));
  expect(registrations).toHaveLength(1);
  expect(webhooks.filter((a) => a.attributes.outcome === 'delivered').length).toBeGreaterThanOrEqual(2);
});
