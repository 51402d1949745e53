/**
 * Webhook subscriptions through HTTP on a real database, responses validated against the
 * contract: create (secret shown once, scopes, at most 10 per scope, a URL once per scope, URLs
 * checked for HTTPS and public addresses), read, list, update, rotate the secret, delete, and
 * another account's subscriptions answering 404. The secret is stored sealed, never in clear.
 */
import type { Response } from 'supertest';
import { startTestService, type TestService } from './support/testService.ts';
import { webhookSecretContext } from '../src/security/secretContexts.ts';
import type { Resolver } from '../src/net/outboundRequest.ts';

let service: TestService;
let strict: TestService;
/** `strict`'s DNS: the names its subscriptions use and the addresses they resolve to. */
const dns: Record<string, string[]> = {
  'hooks.public-v4.example': ['93.184.215.14'],
  'hooks.public-v6.example': ['2606:2800:21f:cb07:6820:80da:af6b:8b2c'],
  'hooks.private.example': ['10.1.2.3'],
  'hooks.loopback.example': ['127.0.0.1'],
  'hooks.link-local.example': ['169.254.169.254'],
  'hooks.mapped-private.example': ['::ffff:192.168.1.10'],
  'hooks.mapped-loopback.example': ['::ffff:7f00:1'],
  'hooks.partly-private.example': ['93.184.215.14', 'fd12:3456::1'],
};
const resolveHost: Resolver = async (hostname) => {
  const addresses = dns[hostname];
  if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
  return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
};
let tenant: { accountId: string; token: string };
let other: { accountId: string; token: string };
let entityId: string;
let otherEntityId: string;
const secrets: string[] = [];
const texts: string[] = [];

const URL_BASE = 'http://127.0.0.1:9';
const UNKNOWN = '0194f3a2-7c1e-7a51-9d7e-0b6a2f1c9e10';

function remember(res: Response): Response {
  texts.push(res.text);
  return res;
}

function body(overrides: Record<string, unknown> = {}) {
  return {
    webhookSubscription: {
      url: `${URL_BASE}/hooks/${Math.random().toString(36).slice(2)}`,
      scopeType: 'organisation',
      subscribedEvents: ['passCreated'],
      ...overrides,
    },
  };
}

async function create(overrides: Record<string, unknown> = {}, token = tenant.token, on = service) {
  return remember(await on.api.post('/api/v1/webhook-subscriptions').set(on.auth(token)).send(body(overrides)));
}

beforeAll(async () => {
  service = await startTestService({ jobs: 'enqueue', config: { webhookAllowPrivate: true } });
  strict = await startTestService({ jobs: 'enqueue', resolveHost });
  tenant = await service.createAccount();
  other = await service.createAccount();
  entityId = await service.createEntity(tenant.accountId);
  otherEntityId = await service.createEntity(other.accountId);
});
afterAll(async () => {
  await service?.close();
  await strict?.close();
});

describe('createWebhookSubscription', () => {
  it('creates an organisation subscription and shows its secret once, stored sealed', async () => {
    const res = await create({ subscribedEvents: ['passCreated', 'passScanned'] });
    expect(res.status).toBe(201);
    const { data } = res.body;
    expect(data.type).toBe('webhookSubscription');
    expect(data.attributes).toMatchObject({
      enabled: true,
      scopeType: 'organisation',
      scopeName: tenant.accountId,
      subscribedEvents: ['passCreated', 'passScanned'],
      consecutiveFailures: 0,
      disabledReason: null,
    });
    expect(data.attributes.secretKey).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    expect(res.headers.location).toBe(`http://wallet.test/api/v1/webhook-subscriptions/${data.id}`);
    expect(res.headers['cache-control']).toBe('no-store');
    secrets.push(data.attributes.secretKey);
    const row = await service.database.db.prisma.webhookSubscription.findUniqueOrThrow({ where: { id: data.id } });
    expect(Buffer.from(row.secretEncrypted).toString('latin1')).not.toContain(data.attributes.secretKey);
    expect(service.runtime.secrets.decrypt(row.secretEncrypted, webhookSecretContext(data.id))).toBe(data.attributes.secretKey);
    const shown = remember(await service.api.get(`/api/v1/webhook-subscriptions/${data.id}`).set(service.auth(tenant.token)).expect(200));
    expect(shown.body.data.attributes.secretKey).toBeUndefined();
    expect(shown.body.data.attributes.url).toBe(data.attributes.url);
  });

  it("takes PassEntry's documented body without scopeType: an organisation subscription (the account)", async () => {
    // PassEntry's documented create body, with a loopback URL this test service allows.
    const documented = { webhookSubscription: { url: 'https://127.0.0.1:9/webhook', enabled: true, subscribedEvents: ['passInstalled', 'passRemoved'] } };
    const res = remember(await service.api.post('/api/v1/webhook-subscriptions').set(service.auth(tenant.token)).send(documented));
    expect(res.status).toBe(201);
    expect(res.body.data.attributes).toMatchObject({
      url: 'https://127.0.0.1:9/webhook',
      enabled: true,
      scopeType: 'organisation',
      scopeName: tenant.accountId,
      subscribedEvents: ['passInstalled', 'passRemoved'],
    });
    secrets.push(res.body.data.attributes.secretKey);
    const row = await service.database.db.prisma.webhookSubscription.findUniqueOrThrow({ where: { id: res.body.data.id } });
    expect(row).toMatchObject({ scopeType: 'organisation', scopeName: tenant.accountId, entityId: null });
    // Without scopeType, a scopeName is the account's id or nothing, as for `organisation`.
    const entityName = await create({ scopeType: undefined, scopeName: entityId });
    expect(entityName.status).toBe(400);
    expect(entityName.body.errors[0].source).toEqual({ pointer: '/webhookSubscription/scopeName' });
  });

  it("creates an entity subscription for one of the account's entities only", async () => {
    const res = await create({ scopeType: 'entity', scopeName: entityId, subscribedEvents: ['passScanned'] });
    expect(res.status).toBe(201);
    expect(res.body.data.attributes).toMatchObject({ scopeType: 'entity', scopeName: entityId });
    for (const scopeName of [otherEntityId, UNKNOWN, 'not-an-id', undefined]) {
      const refused = await create({ scopeType: 'entity', ...(scopeName ? { scopeName } : {}) });
      expect(refused.status).toBe(400);
      expect(refused.body.errors[0].source).toEqual({ pointer: '/webhookSubscription/scopeName' });
    }
    const wrongOrg = await create({ scopeType: 'organisation', scopeName: other.accountId });
    expect(wrongOrg.status).toBe(400);
    expect(wrongOrg.body.errors[0].source).toEqual({ pointer: '/webhookSubscription/scopeName' });
  });

  it('refuses the same URL twice in a scope, but not in another scope', async () => {
    const url = `${URL_BASE}/same`;
    expect((await create({ url })).status).toBe(201);
    const twice = await create({ url });
    expect(twice.status).toBe(409);
    expect(twice.body.errors[0]).toMatchObject({ code: 'conflict', source: { pointer: '/webhookSubscription/url' } });
    expect((await create({ url, scopeType: 'entity', scopeName: entityId })).status).toBe(201);
    expect((await create({ url }, other.token)).status).toBe(201);
  });

  it('allows at most 10 subscriptions per scope', async () => {
    const entity = await service.createEntity(tenant.accountId);
    for (let i = 0; i < 10; i++) expect((await create({ scopeType: 'entity', scopeName: entity })).status).toBe(201);
    const eleventh = await create({ scopeType: 'entity', scopeName: entity });
    expect(eleventh.status).toBe(409);
    expect(eleventh.body.errors[0].code).toBe('webhook_subscription_limit');
    expect(await service.database.db.prisma.webhookSubscription.count({ where: { entityId: entity } })).toBe(10);
  });

  it('refuses private, loopback and link-local destinations and plain http without WEBHOOK_ALLOW_PRIVATE', async () => {
    const account = await strict.createAccount();
    for (const url of [
      'https://127.0.0.1/hook',
      'https://10.1.2.3/hook',
      'https://169.254.169.254/latest',
      'https://[::1]/hook',
      'https://192.168.1.10/x',
      'http://127.0.0.1:8080/hook',
      'http://93.184.216.34/hook',
      'https://user:pw@93.184.216.34/hook',
    ]) {
      const res = await create({ url }, account.token, strict);
      expect({ url, status: res.status }).toEqual({ url, status: 400 });
      expect(res.body.errors[0].source).toEqual({ pointer: '/webhookSubscription/url' });
    }
    expect(await strict.database.db.prisma.webhookSubscription.count({ where: { accountId: account.accountId } })).toBe(0);
  });

  it('accepts a host on a public IPv4 or IPv6 address and refuses one on a private, loopback, link-local or IPv4-mapped private address, without WEBHOOK_ALLOW_PRIVATE', async () => {
    const account = await strict.createAccount();
    for (const host of ['hooks.public-v4.example', 'hooks.public-v6.example']) {
      const res = await create({ url: `https://${host}/wallet-events` }, account.token, strict);
      expect({ host, status: res.status }).toEqual({ host, status: 201 });
    }
    for (const [host, address, range] of [
      ['hooks.private.example', '10.1.2.3', 'private'],
      ['hooks.loopback.example', '127.0.0.1', 'loopback'],
      ['hooks.link-local.example', '169.254.169.254', 'linkLocal'],
      ['hooks.mapped-private.example', '::ffff:192.168.1.10', 'private'],
      ['hooks.mapped-loopback.example', '::ffff:7f00:1', 'loopback'],
      ['hooks.partly-private.example', 'fd12:3456::1', 'uniqueLocal'],
    ]) {
      const res = await create({ url: `https://${host}/wallet-events` }, account.token, strict);
      expect({ host, status: res.status, error: res.body.errors?.[0] }).toEqual({
        host,
        status: 400,
        error: expect.objectContaining({
          detail: `${host} resolves to ${address}, a private or reserved address (${range}).`,
          source: { pointer: '/webhookSubscription/url' },
        }),
      });
    }
    const unknown = await create({ url: 'https://hooks.nowhere.example/x' }, account.token, strict);
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors[0].detail).toBe('The host hooks.nowhere.example cannot be resolved.');
    expect(await strict.database.db.prisma.webhookSubscription.count({ where: { accountId: account.accountId } })).toBe(2);
  });

  it('refuses a URL that is not one', async () => {
    const res = await create({ url: 'not a url' });
    expect(res.status).toBe(400);
    expect(res.body.errors[0].source.pointer).toMatch(/^\/webhookSubscription\/url/);
  });
});

describe('list, get, update, rotate, delete', () => {
  it("lists the account's subscriptions only, oldest first, paginated", async () => {
    const account = await service.createAccount();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await create({}, account.token)).body.data.id);
    const page1 = remember(await service.api.get('/api/v1/webhook-subscriptions?perPage=2').set(service.auth(account.token)).expect(200));
    expect(page1.body.data.map((s: { id: string }) => s.id)).toEqual(ids.slice(0, 2));
    expect(page1.body.meta).toEqual({ totalCount: 3, resultsPerPage: 2, currentPage: 1, totalPages: 2 });
    expect(page1.body.data[0].attributes.secretKey).toBeUndefined();
    const page2 = await service.api.get('/api/v1/webhook-subscriptions?perPage=2&page=2').set(service.auth(account.token)).expect(200);
    expect(page2.body.data.map((s: { id: string }) => s.id)).toEqual(ids.slice(2));
  });

  it('updates url, enabled and subscribedEvents; the scope stays', async () => {
    const { id } = (await create()).body.data;
    const url = `${URL_BASE}/moved`;
    const res = remember(
      await service.api
        .patch(`/api/v1/webhook-subscriptions/${id}`)
        .set(service.auth(tenant.token))
        .send({ webhookSubscription: { url, enabled: false, subscribedEvents: ['passUpdated', 'batchCompleted'] } })
        .expect(200),
    );
    expect(res.body.data.attributes).toMatchObject({ url, enabled: false, subscribedEvents: ['passUpdated', 'batchCompleted'], scopeType: 'organisation' });
    const scope = await service.api
      .patch(`/api/v1/webhook-subscriptions/${id}`)
      .set(service.auth(tenant.token))
      .send({ webhookSubscription: { scopeType: 'entity' } });
    expect(scope.status).toBe(400);
    const empty = await service.api.patch(`/api/v1/webhook-subscriptions/${id}`).set(service.auth(tenant.token)).send({ webhookSubscription: {} });
    expect(empty.status).toBe(400);
  });

  it('refuses an update to a URL the scope has, or a refused URL', async () => {
    const first = (await create()).body.data;
    const second = (await create()).body.data;
    const taken = await service.api
      .patch(`/api/v1/webhook-subscriptions/${second.id}`)
      .set(service.auth(tenant.token))
      .send({ webhookSubscription: { url: first.attributes.url } });
    expect(taken.status).toBe(409);
    expect(taken.body.errors[0].source).toEqual({ pointer: '/webhookSubscription/url' });
    const account = await strict.createAccount();
    const row = await strict.database.db.prisma.webhookSubscription.create({
      data: {
        accountId: account.accountId,
        scopeType: 'organisation',
        scopeName: account.accountId,
        url: 'https://hooks.example.com/x',
        secretEncrypted: new Uint8Array([1]),
        subscribedEvents: ['passCreated'],
      },
    });
    const refused = await strict.api
      .patch(`/api/v1/webhook-subscriptions/${row.id}`)
      .set(strict.auth(account.token))
      .send({ webhookSubscription: { url: 'https://10.0.0.1/x' } });
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0].source).toEqual({ pointer: '/webhookSubscription/url' });
    // The URL it has is not a change: sent back as GET answers it (here a host no resolver knows),
    // it is not checked again, so the subscription can still be disabled.
    const unchanged = await strict.api
      .patch(`/api/v1/webhook-subscriptions/${row.id}`)
      .set(strict.auth(account.token))
      .send({ webhookSubscription: { url: 'https://hooks.example.com/x', enabled: false } });
    expect({ status: unchanged.status, errors: unchanged.body.errors }).toEqual({ status: 200, errors: undefined });
    expect(unchanged.body.data.attributes).toMatchObject({ url: 'https://hooks.example.com/x', enabled: false });
  });

  it('rotates the secret: a new one, shown once, stored sealed', async () => {
    const created = (await create()).body.data;
    const res = remember(await service.api.patch(`/api/v1/webhook-subscriptions/${created.id}/rotate-secret`).set(service.auth(tenant.token)).expect(200));
    expect(res.headers['cache-control']).toBe('no-store');
    const secret = res.body.data.attributes.secretKey;
    expect(secret).toMatch(/^whsec_/);
    expect(secret).not.toBe(created.attributes.secretKey);
    secrets.push(created.attributes.secretKey, secret);
    const row = await service.database.db.prisma.webhookSubscription.findUniqueOrThrow({ where: { id: created.id } });
    expect(service.runtime.secrets.decrypt(row.secretEncrypted, webhookSecretContext(created.id))).toBe(secret);
  });

  it('deletes a subscription', async () => {
    const { id } = (await create()).body.data;
    await service.api.delete(`/api/v1/webhook-subscriptions/${id}`).set(service.auth(tenant.token)).expect(204);
    await service.api.get(`/api/v1/webhook-subscriptions/${id}`).set(service.auth(tenant.token)).expect(404);
    await service.api.delete(`/api/v1/webhook-subscriptions/${id}`).set(service.auth(tenant.token)).expect(404);
  });

  it("answers 404 for another account's subscription on every operation, and changes nothing", async () => {
    const theirs = (await create({}, other.token)).body.data;
    const auth = service.auth(tenant.token);
    const path = `/api/v1/webhook-subscriptions/${theirs.id}`;
    for (const res of [
      await service.api.get(path).set(auth),
      await service.api
        .patch(path)
        .set(auth)
        .send({ webhookSubscription: { enabled: false } }),
      await service.api.patch(`${path}/rotate-secret`).set(auth),
      await service.api.get(`${path}/delivery-attempts`).set(auth),
      await service.api.post(`${path}/test-event`).set(auth),
      await service.api.delete(path).set(auth),
      await service.api.get(`/api/v1/webhook-subscriptions/${UNKNOWN}`).set(auth),
    ]) {
      expect(res.status).toBe(404);
      expect(res.text).not.toContain(theirs.attributes.url);
    }
    const malformed = await service.api.get('/api/v1/webhook-subscriptions/not-a-uuid').set(auth);
    expect(malformed.status).toBe(400);
    expect(malformed.body.errors[0].source).toEqual({ parameter: 'id' });
    const listed = await service.api.get('/api/v1/webhook-subscriptions?perPage=100').set(auth).expect(200);
    expect(listed.body.data.map((s: { id: string }) => s.id)).not.toContain(theirs.id);
    const still = await service.api.get(path).set(service.auth(other.token)).expect(200);
    expect(still.body.data.attributes.enabled).toBe(true);
  });

  it('refuses a test event for a disabled subscription', async () => {
    const { id } = (await create({ enabled: false })).body.data;
    const res = await service.api.post(`/api/v1/webhook-subscriptions/${id}/test-event`).set(service.auth(tenant.token));
    expect(res.status).toBe(409);
    expect(res.body.errors[0].source).toEqual({ parameter: 'id' });
  });
});

it('answers 405 with Allow for a method a webhook subscription path does not take', async () => {
  const { id } = (await create()).body.data;
  const auth = service.auth(tenant.token);
  for (const [method, path, allow] of [
    ['put', '/api/v1/webhook-subscriptions', 'GET, POST'],
    ['post', `/api/v1/webhook-subscriptions/${id}`, 'DELETE, GET, PATCH'],
    ['get', `/api/v1/webhook-subscriptions/${id}/rotate-secret`, 'PATCH'],
    ['post', `/api/v1/webhook-subscriptions/${id}/delivery-attempts`, 'GET'],
    ['get', `/api/v1/webhook-subscriptions/${id}/test-event`, 'POST'],
  ] as const) {
    const res = await service.api[method](path).set(auth);
    expect({ path, status: res.status }).toEqual({ path, status: 405 });
    expect(res.headers.allow?.split(', ').sort().join(', ')).toBe(allow);
  }
});

it('never shows a secret outside the create and rotate answers, nor logs one', () => {
  expect(secrets.length).toBeGreaterThan(2);
  const shownIn = texts.filter((text) => secrets.some((s) => text.includes(s)));
  // The create and rotate answers are the only ones with a secret.
  expect(shownIn.every((text) => text.includes('"secretKey"'))).toBe(true);
  for (const secret of secrets) expect(service.logText()).not.toContain(secret);
});
