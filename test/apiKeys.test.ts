/**
 * The account's API keys managed from inside the account (`/api/v1/api-keys`): an owner or admin
 * signed in to the console lists, creates (shown once) and revokes keys, every other role is
 * refused, and a key with `keys:manage` creates no key wider than itself — scopes, expiry,
 * client address ranges. Each change is an audit event naming who
 * made it, never the key. Through HTTP on a real database.
 */
import supertest from 'supertest';
import { joinAs, session, type SignedInPerson } from './support/people.ts';
import { startTestService, type TestService } from './support/testService.ts';

let service: TestService;
let accountId: string;
let secretKey: string;
let owner: SignedInPerson;
const api = () => supertest(service.app);

beforeAll(async () => {
  service = await startTestService();
  ({ accountId, token: secretKey } = await service.createAccount('Cukiernia Świętokrzyska'));
  owner = await joinAs(service, accountId, 'owner', 'Zofia Łukasiewicz');
});
afterAll(() => service.close());

/** Creates a key through `createApiKey` with the given caller headers; returns the answer. */
const create = (caller: Record<string, string>, apiToken: Record<string, unknown>) => api().post('/api/v1/api-keys').set(caller).send({ apiToken });

describe('an owner signed in to the console', () => {
  test('creates a restricted key shown once, lists it without the secret, and revokes it on every request after', async () => {
    const created = await create(session(owner), { name: 'Kasa 2 (till)', kind: 'restricted', scopes: ['passes:read'] }).expect(201);
    expect(created.headers['cache-control']).toBe('no-store');
    const { id } = created.body.data;
    const { token } = created.body.data.attributes;
    expect(token).toMatch(/^wps_[A-Za-z0-9_-]{43}$/);
    expect(created.body.data).toMatchObject({ type: 'apiToken', relationships: { account: { data: { id: accountId } } } });
    await api().get('/api/v1/passes').set(service.auth(token)).expect(200);
    await api().get('/api/v1/pass-templates').set(service.auth(token)).expect(403);

    const listed = await api().get('/api/v1/api-keys').set(session(owner)).expect(200);
    const row = listed.body.data.find((key: { id: string }) => key.id === id);
    expect(row.attributes).toMatchObject({ name: 'Kasa 2 (till)', kind: 'restricted', scopes: ['passes:read'], revokedAt: null });
    expect(row.attributes.token).toBeUndefined();
    expect(JSON.stringify(listed.body)).not.toContain(token);
    // The account's first key (made with the account) is listed too; oldest first.
    expect(listed.body.data[0].attributes.kind).toBe('secret');

    const revoked = await api().post(`/api/v1/api-keys/${id}/revoke`).set(session(owner)).expect(200);
    expect(revoked.body.data.attributes.revokedAt).toEqual(expect.any(String));
    await api().get('/api/v1/passes').set(service.auth(token)).expect(401);
    const again = await api().post(`/api/v1/api-keys/${id}/revoke`).set(session(owner)).expect(200);
    expect(again.body.data.attributes.revokedAt).toBe(revoked.body.data.attributes.revokedAt);

    // Each change is an audit event naming the person, with what the body set and never the key.
    const events = await api().get('/api/v1/audit-events').set(session(owner)).query({ resource: 'api-keys' }).expect(200);
    const mine = events.body.data.filter((event: { attributes: { resourceId: string } }) => event.attributes.resourceId === id);
    expect(mine.map((event: { attributes: { operationId: string } }) => event.attributes.operationId).sort()).toEqual([
      'createApiKey',
      'revokeApiKey',
      'revokeApiKey',
    ]);
    for (const event of mine) expect(event.attributes.actor).toMatchObject({ type: 'person', id: owner.personId });
    const createdEvent = mine.find((event: { attributes: { operationId: string } }) => event.attributes.operationId === 'createApiKey');
    expect(createdEvent.attributes.changes).toMatchObject({ kind: { after: 'restricted' }, scopes: { after: ['passes:read'] } });
    expect(JSON.stringify(events.body)).not.toContain(token);
    expect(JSON.stringify(events.body)).not.toContain(token.slice(4));
  });

  test('a change without the CSRF token is refused and creates nothing', async () => {
    const before = (await api().get('/api/v1/api-keys').set(session(owner)).expect(200)).body.meta;
    const refused = await api()
      .post('/api/v1/api-keys')
      .set('Cookie', owner.cookie)
      .send({ apiToken: { name: 'Forged' } })
      .expect(403);
    expect(refused.body.errors[0].code).toBe('csrf_refused');
    expect((await api().get('/api/v1/api-keys').set(session(owner)).expect(200)).body.meta).toEqual(before);
  });

  test('bad input is a 400 naming the member; another account’s key is a 404', async () => {
    const bad = await create(session(owner), { kind: 'restricted' }).expect(400);
    expect(bad.body.errors[0].source).toEqual({ pointer: '/apiToken/scopes' });
    const wrongKind = await create(session(owner), { kind: 'secret', scopes: ['passes:read'] }).expect(400);
    expect(wrongKind.body.errors[0].source).toEqual({ pointer: '/apiToken/scopes' });
    const other = await service.createAccount('Другая пекарня');
    const notFound = await api().post(`/api/v1/api-keys/${other.tokenId}/revoke`).set(session(owner)).expect(404);
    expect(notFound.body.errors[0].source).toEqual({ parameter: 'id' });
    // The other account's key still works.
    await api().get('/api/v1/passes').set(service.auth(other.token)).expect(200);
  });
});

test.each(['admin', 'designer', 'support', 'viewer'] as const)('a %s: an admin manages keys, every other role is refused (403)', async (role) => {
  const person = await joinAs(service, accountId, role);
  const allowed = role === 'admin';
  const list = await api().get('/api/v1/api-keys').set(session(person));
  expect(list.status).toBe(allowed ? 200 : 403);
  const everyScope = (await api().get('/api/v1/session').set(session(person)).expect(200)).body.data.attributes.scopes;
  const created = await create(session(person), { name: `${role}'s key`, kind: 'restricted', scopes: allowed ? everyScope : ['passes:read'] });
  expect(created.status).toBe(allowed ? 201 : 403);
  if (!allowed) expect(created.body.errors[0]).toMatchObject({ code: 'insufficient_scope', detail: expect.stringContaining('keys:manage') });
  // A secret key may make owners, which an admin may not: an admin makes restricted keys only.
  const secret = await create(session(person), { name: `${role}'s secret key`, kind: 'secret' }).expect(403);
  expect(secret.body.errors[0]).toMatchObject({ code: 'insufficient_scope', source: allowed ? { pointer: '/apiToken/kind' } : { header: 'Authorization' } });
  const target = (await create({ Authorization: `Bearer ${secretKey}` }, { name: 'target', kind: 'secret' }).expect(201)).body.data.id;
  expect((await api().post(`/api/v1/api-keys/${target}/revoke`).set(session(person))).status).toBe(allowed ? 200 : 403);
});

describe('a key with keys:manage creates no key wider than itself', () => {
  /** A restricted key made by the secret key. */
  const keyWith = async (apiToken: Record<string, unknown>) =>
    (await create(service.auth(secretKey), { kind: 'restricted', ...apiToken }).expect(201)).body.data.attributes.token as string;

  test('an owner or a secret key makes secret keys; a restricted key holding every scope does not', async () => {
    await create(session(owner), { name: 'Owner’s secret key', kind: 'secret' }).expect(201);
    await create(service.auth(secretKey), { name: 'Secret key’s secret key', kind: 'secret' }).expect(201);
    const everything = (await api().get('/api/v1/session').set(session(owner)).expect(200)).body.data.attributes.scopes;
    const wide = service.auth(await keyWith({ scopes: everything }));
    const refused = await create(wide, { kind: 'secret' }).expect(403);
    expect(refused.body.errors[0]).toMatchObject({ source: { pointer: '/apiToken/kind' }, detail: expect.stringContaining('owners included') });
    // Which is what keeps it from making an owner.
    await api()
      .post('/api/v1/invitations')
      .set(wide)
      .send({ invitation: { role: 'owner' } })
      .expect(403);
    await create(wide, { kind: 'restricted', scopes: everything }).expect(201);
  });

  test('scopes: only its own; a publishable key needs passes:write', async () => {
    const manager = service.auth(await keyWith({ scopes: ['keys:manage', 'passes:read', 'scans:write'] }));
    const narrower = await create(manager, { kind: 'restricted', scopes: ['passes:read', 'scans:write'] }).expect(201);
    await api().get('/api/v1/passes').set(service.auth(narrower.body.data.attributes.token)).expect(200);

    const wider = await create(manager, { kind: 'restricted', scopes: ['passes:read', 'passes:write'] }).expect(403);
    expect(wider.body.errors[0]).toMatchObject({
      code: 'insufficient_scope',
      source: { pointer: '/apiToken/scopes' },
      detail: expect.stringContaining('passes:write'),
    });
    expect(wider.headers['www-authenticate']).toContain('scope="passes:write"');
    const secret = await create(manager, { kind: 'secret' }).expect(403);
    expect(secret.body.errors[0].source).toEqual({ pointer: '/apiToken/kind' });
    const templateId = (await service.api.get('/api/v1/pass-templates').set(service.auth(secretKey)).expect(200)).body.data[0]?.id;
    const publishable = await create(manager, {
      kind: 'publishable',
      passTemplates: [templateId ?? '0194f3a2-7c1e-7a51-9d7e-0b6a2f1c9e10'],
      allowedOrigins: ['https://sklep.example.pl'],
    }).expect(403);
    expect(publishable.body.errors[0]).toMatchObject({ source: { pointer: '/apiToken/kind' }, detail: expect.stringContaining('passes:write') });
    // Nothing was written by the refusals.
    const names = (await api().get('/api/v1/api-keys').query({ perPage: 100 }).set(service.auth(secretKey)).expect(200)).body.data.map(
      (key: { attributes: { kind: string } }) => key.attributes.kind,
    );
    expect(names.filter((kind: string) => kind === 'publishable')).toEqual([]);
  });

  test('limits: an expiry no later, address ranges inside its own; a key limited to entities manages no key', async () => {
    const expiresAt = new Date(Date.now() + 30 * 86_400_000).toISOString();
    const manager = service.auth(await keyWith({ scopes: ['keys:manage', 'passes:read'], expiresAt, allowedCidrs: ['127.0.0.0/8', '::1/128'] }));
    const within = { kind: 'restricted', scopes: ['passes:read'], expiresAt, allowedCidrs: ['127.0.0.1/32'] };
    const ok = await create(manager, within).expect(201);
    await api().get('/api/v1/passes').set(service.auth(ok.body.data.attributes.token)).expect(200);

    const cases: [Record<string, unknown>, string][] = [
      [{ ...within, expiresAt: undefined }, 'expiresAt'],
      [{ ...within, expiresAt: new Date(Date.parse(expiresAt) + 1000).toISOString() }, 'expiresAt'],
      [{ ...within, allowedCidrs: undefined }, 'allowedCidrs'],
      [{ ...within, allowedCidrs: ['10.0.0.0/8'] }, 'allowedCidrs'],
      [{ ...within, allowedCidrs: ['0.0.0.0/0'] }, 'allowedCidrs'],
      [{ ...within, allowedCidrs: ['::/0'] }, 'allowedCidrs'],
      [{ ...within, allowedCidrs: ['127.0.0.1/32', '192.0.2.0/24'] }, 'allowedCidrs'],
    ];
    for (const [apiToken, member] of cases) {
      const res = await create(manager, apiToken);
      expect([member, res.status, res.body.errors?.[0]?.source]).toEqual([member, 403, { pointer: `/apiToken/${member}` }]);
    }

    const entityId = await service.createEntity(accountId, 'Kraków');
    const limited = service.auth(await keyWith({ scopes: ['keys:manage', 'entities:read'], entities: [entityId] }));
    await api().get(`/api/v1/entities/${entityId}`).set(limited).expect(200);
    const refused = await api().get('/api/v1/api-keys').set(limited).expect(403);
    expect(refused.body.errors[0]).toMatchObject({ code: 'insufficient_scope', detail: expect.stringContaining('limited to some entities') });
    await create(limited, { kind: 'restricted', scopes: ['entities:read'], entities: [entityId] }).expect(403);
  });

  test('a key may revoke itself, and is refused at its next request', async () => {
    const token = await keyWith({ scopes: ['keys:manage'] });
    const self = (await api().get('/api/v1/api-keys').query({ perPage: 100 }).set(service.auth(token)).expect(200)).body.data.find(
      (key: { attributes: { prefix: string } }) => token.startsWith(key.attributes.prefix),
    );
    await api().post(`/api/v1/api-keys/${self.id}/revoke`).set(service.auth(token)).expect(200);
    await api().get('/api/v1/api-keys').set(service.auth(token)).expect(401);
  });
});
