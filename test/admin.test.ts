/**
 * Administration API (/admin/v1): accounts, API keys, entities.
 */
import { sha256Hex } from '../src/security/apiTokens.ts';
import { testDatabaseKind } from './support/testDatabase.ts';
import { startTestService, TestClock, type TestService } from './support/testService.ts';

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(() => service.close());

const UNKNOWN = '0194f3a2-7c1e-7a51-9d7e-0b6a2f1c9e10';

describe('admin authentication', () => {
  it.each([
    ['no header', undefined],
    ['a wrong token', 'Bearer wpa_wrong'],
  ])('answers 401 with %s', async (_case, header) => {
    const req = service.api.get('/admin/v1/accounts');
    if (header) req.set('Authorization', header);
    const res = await req.expect(401);
    expect(res.headers['www-authenticate']).toMatch(/^Bearer /);
    expect(res.body.errors[0].code).toBe('unauthorized');
  });

  it('does not accept an account API key', async () => {
    const { token } = await service.createAccount();
    await service.api.get('/admin/v1/accounts').set(service.auth(token)).expect(401);
  });

  it.each(['/admin/v1/accounts', '/metrics'])('tells a caller of %s to send the administration token, never an API key', async (path) => {
    const { token } = await service.createAccount();
    const detail = async (header?: string) => {
      const req = service.api.get(path);
      if (header) req.set('Authorization', header);
      const res = await req.expect(401);
      return res.body.errors[0].detail as string;
    };
    expect(await detail()).toBe('The Authorization header is missing; send "Authorization: Bearer <administration token>".');
    expect(await detail('Basic dXNlcjpwYXNz')).toBe('The Authorization header must be "Bearer <administration token>".');
    expect(await detail(`Bearer ${token}`)).toBe(
      'An account\'s API key is not accepted here; send "Authorization: Bearer <administration token>" (ADMIN_TOKEN, or the file <DATA_DIR>/admin-token).',
    );
    // The account API still asks for an API key.
    expect((await service.api.get('/api/v1/entities').expect(401)).body.errors[0].detail).toBe(
      'The Authorization header is missing; send "Authorization: Bearer <API key>".',
    );
  });
});

describe('createAccount', () => {
  it('creates an account and returns its first API key once', async () => {
    const res = await service.api
      .post('/admin/v1/accounts')
      .set(service.adminAuth())
      .send({ account: { name: 'Acme' } })
      .expect(201);
    expect(res.body.data).toMatchObject({ type: 'account', attributes: { name: 'Acme' } });
    expect(res.headers.location).toBe(`http://wallet.test/admin/v1/accounts/${res.body.data.id}/tokens`);
    const [key] = res.body.included;
    expect(key.attributes.token).toMatch(/^wps_[A-Za-z0-9_-]{43}$/);
    expect(key.attributes.prefix).toBe(key.attributes.token.slice(0, 12));
    expect(key.relationships.account.data).toEqual({ id: res.body.data.id, type: 'account' });
    // The key works, and listing keys never shows it again.
    await service.api.get('/api/v1/entities').set(service.auth(key.attributes.token)).expect(200);
    const keys = await service.api.get(`/admin/v1/accounts/${res.body.data.id}/tokens`).set(service.adminAuth()).expect(200);
    expect(JSON.stringify(keys.body)).not.toContain(key.attributes.token);
    expect(keys.body.data[0].attributes.lastUsedAt).not.toBeNull();
  });

  it('stores only a hash of the key', async () => {
    const { token } = await service.createAccount();
    const rows = await service.database.db.prisma.apiToken.findMany();
    expect(JSON.stringify(rows)).not.toContain(token);
  });

  it.each([
    [{}, ''],
    [{ account: {} }, '/account/name'],
    [{ account: { name: '' } }, '/account/name'],
    [{ account: { name: 'x'.repeat(201) } }, '/account/name'],
    [{ account: { name: 'A', plan: 'gold' } }, '/account/plan'],
  ])('refuses %j with 400 pointing at the member', async (body, pointer) => {
    const res = await service.api.post('/admin/v1/accounts').set(service.adminAuth()).send(body).expect(400);
    expect(res.body.errors[0]).toMatchObject({ code: 'validation_failed' });
    expect(res.body.errors.map((e: { source?: { pointer?: string } }) => e.source?.pointer)).toContain(pointer || '/account');
  });
});

describe('listAccounts', () => {
  it('lists accounts oldest first with pagination', async () => {
    const before = (await service.api.get('/admin/v1/accounts').set(service.adminAuth()).expect(200)).body.meta.totalCount;
    await service.createAccount('Later one');
    const res = await service.api
      .get(`/admin/v1/accounts?perPage=1&page=${before + 1}`)
      .set(service.adminAuth())
      .expect(200);
    expect(res.body.data[0].attributes.name).toBe('Later one');
    expect(res.body.meta).toMatchObject({ totalCount: before + 1, resultsPerPage: 1, currentPage: before + 1 });
    expect(res.body.links.next).toBeNull();
  });
});

describe('createApiToken, listApiTokens, revokeApiToken', () => {
  it('creates a named key, lists it, and revokes it idempotently', async () => {
    const { accountId, tokenId: first } = await service.createAccount();
    const created = await service.api
      .post(`/admin/v1/accounts/${accountId}/tokens`)
      .set(service.adminAuth())
      .send({ apiToken: { name: 'POS' } })
      .expect(201);
    const { id, attributes } = created.body.data;
    expect(attributes).toMatchObject({ name: 'POS', lastUsedAt: null, revokedAt: null });
    await service.api.get('/api/v1/entities').set(service.auth(attributes.token)).expect(200);

    const listed = await service.api.get(`/admin/v1/accounts/${accountId}/tokens`).set(service.adminAuth()).expect(200);
    expect(listed.body.data.map((t: { id: string }) => t.id)).toEqual([first, id]);
    expect(listed.body.data.every((t: { attributes: object }) => !('token' in t.attributes))).toBe(true);

    const revoked = await service.api.post(`/admin/v1/tokens/${id}/revoke`).set(service.adminAuth()).expect(200);
    expect(revoked.body.data.attributes.revokedAt).toMatch(/Z$/);
    const again = await service.api.post(`/admin/v1/tokens/${id}/revoke`).set(service.adminAuth()).expect(200);
    expect(again.body.data.attributes.revokedAt).toBe(revoked.body.data.attributes.revokedAt);
    await service.api.get('/api/v1/entities').set(service.auth(attributes.token)).expect(401);
  });

  (testDatabaseKind() === 'postgresql' ? it : it.skip)('stops a revoked key on every node within a second, though each had it cached', async () => {
    const other = await service.anotherNode();
    try {
      const { tokenId, token } = await service.createAccount();
      // Both nodes verify the key once and keep it.
      await service.api.get('/api/v1/entities').set(service.auth(token)).expect(200);
      await other.api.get('/api/v1/entities').set(other.auth(token)).expect(200);
      await other.api.get('/api/v1/entities').set(other.auth(token)).expect(200);
      expect(other.runtime.apiTokens.get(sha256Hex(token))).toMatchObject({ id: tokenId });

      await service.api.post(`/admin/v1/tokens/${tokenId}/revoke`).set(service.adminAuth()).expect(200);
      await service.api.get('/api/v1/entities').set(service.auth(token)).expect(401);
      const revokedAt = Date.now();
      while ((await other.api.get('/api/v1/entities').set(other.auth(token))).status === 200) {
        expect(Date.now() - revokedAt).toBeLessThan(1000);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      await other.api.get('/api/v1/entities').set(other.auth(token)).expect(401);
    } finally {
      await other.close();
    }
  });

  (testDatabaseKind() === 'postgresql' ? it : it.skip)(
    'reads the database while the revocation listener is down, and trusts the cache again once it is back',
    async () => {
      const { tokenId, token } = await service.createAccount();
      const listener = async () =>
        (
          await service.database.db.prisma.$queryRaw<
            { pid: number }[]
          >`SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND query = 'LISTEN api_tokens_changed'`
        )[0]?.pid;
      await service.api.get('/api/v1/entities').set(service.auth(token)).expect(200);
      expect(service.runtime.apiTokens.get(sha256Hex(token))).toBeDefined();
      const pid = await listener();
      expect(pid).toBeDefined();
      await service.database.db.prisma.$queryRaw`SELECT pg_terminate_backend(${pid}::int)`;
      // pg_terminate_backend only signals the backend: the listener learns of the loss a moment
      // later, and then drops every cached key (no notification can be trusted to have arrived).
      for (const lost = Date.now(); service.runtime.apiTokens.get(sha256Hex(token)) !== undefined; ) {
        expect(Date.now() - lost).toBeLessThan(15_000);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      // A revocation while nobody listens: its notification is lost, but the cache was dropped.
      await service.database.db.prisma.$executeRaw`UPDATE api_tokens SET revoked_at = now() WHERE id = ${tokenId}::uuid`;
      await service.api.get('/api/v1/entities').set(service.auth(token)).expect(401);
      const back = Date.now();
      while ((await listener()) === undefined || (await listener()) === pid) {
        expect(Date.now() - back).toBeLessThan(15_000);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const fresh = await service.createAccount();
      await service.api.get('/api/v1/entities').set(service.auth(fresh.token)).expect(200);
      expect(service.runtime.apiTokens.get(sha256Hex(fresh.token))).toMatchObject({ id: fresh.tokenId });
    },
  );

  it('keeps lastUsedAt within its minute while the key is served from the cache', async () => {
    const clock = new TestClock();
    const clocked = await startTestService({ clock });
    try {
      const { accountId, tokenId, token } = await clocked.createAccount();
      const lastUsedAt = async () =>
        (await clocked.api.get(`/admin/v1/accounts/${accountId}/tokens`).set(clocked.adminAuth()).expect(200)).body.data.find(
          (t: { id: string }) => t.id === tokenId,
        ).attributes.lastUsedAt as string;
      const iso = (date: Date) => date.toISOString().replace('.000Z', 'Z');
      const first = iso(clock.now());
      await clocked.api.get('/api/v1/entities').set(clocked.auth(token)).expect(200);
      expect(await lastUsedAt()).toBe(first);
      clock.advance(59_000);
      await clocked.api.get('/api/v1/entities').set(clocked.auth(token)).expect(200);
      expect(await lastUsedAt()).toBe(first);
      clock.advance(1_000);
      await clocked.api.get('/api/v1/entities').set(clocked.auth(token)).expect(200);
      expect(await lastUsedAt()).toBe(iso(clock.now()));
      expect(clocked.runtime.apiTokens.get(sha256Hex(token))).toMatchObject({ id: tokenId, lastUsedAt: clock.now().getTime() });
    } finally {
      await clocked.close();
    }
  });

  it('creates a key without a body', async () => {
    const { accountId } = await service.createAccount();
    const res = await service.api.post(`/admin/v1/accounts/${accountId}/tokens`).set(service.adminAuth()).expect(201);
    expect(res.body.data.attributes.name).toBeNull();
  });

  it('answers 404 for unknown accounts and keys', async () => {
    for (const [method, path] of [
      ['post', `/admin/v1/accounts/${UNKNOWN}/tokens`],
      ['get', `/admin/v1/accounts/${UNKNOWN}/tokens`],
      ['post', `/admin/v1/tokens/${UNKNOWN}/revoke`],
    ] as const) {
      const res = await service.api[method](path).set(service.adminAuth()).expect(404);
      expect(res.body.errors[0].code).toBe('not_found');
    }
  });
});

describe('createEntity, updateEntity, listAccountEntities', () => {
  it('creates, renames, sets and resets deeplinks, and lists', async () => {
    const { accountId } = await service.createAccount();
    const created = await service.api
      .post(`/admin/v1/accounts/${accountId}/entities`)
      .set(service.adminAuth())
      .send({ entity: { name: 'Soho', passDeeplinks: { google: 'https://g.example.com/{passId}' } } })
      .expect(201);
    const id = created.body.data.id;
    expect(created.headers.location).toBe(`http://wallet.test/admin/v1/entities/${id}`);
    expect(created.body.data.attributes.passDeeplinks.google).toBe('https://g.example.com/{passId}');

    const renamed = await service.api
      .patch(`/admin/v1/entities/${id}`)
      .set(service.adminAuth())
      .send({ entity: { name: 'Soho Square' } })
      .expect(200);
    expect(renamed.body.data.attributes).toEqual({
      name: 'Soho Square',
      passDeeplinks: { apple: 'http://wallet.test/passes/{passId}/apple', google: 'https://g.example.com/{passId}' },
    });
    const reset = await service.api
      .patch(`/admin/v1/entities/${id}`)
      .set(service.adminAuth())
      .send({ entity: { passDeeplinks: { google: null } } })
      .expect(200);
    expect(reset.body.data.attributes.passDeeplinks.google).toBe('http://wallet.test/passes/{passId}/google');

    const listed = await service.api.get(`/admin/v1/accounts/${accountId}/entities`).set(service.adminAuth()).expect(200);
    expect(listed.body.data.map((e: { id: string }) => e.id)).toEqual([id]);
  });

  it.each([
    [{ entity: { name: 'X', passDeeplinks: { apple: 'https://no-placeholder.example.com' } } }, '/entity/passDeeplinks/apple'],
    [{ entity: { name: 'X', passDeeplinks: { apple: 'ftp://x/{passId}' } } }, '/entity/passDeeplinks/apple'],
    [{ entity: {} }, '/entity'],
  ])('refuses %j', async (body, pointer) => {
    const { accountId } = await service.createAccount();
    const res = await service.api.post(`/admin/v1/accounts/${accountId}/entities`).set(service.adminAuth()).send(body).expect(400);
    expect(res.body.errors.some((e: { source?: { pointer?: string } }) => e.source?.pointer?.startsWith(pointer))).toBe(true);
  });

  it('refuses an empty update', async () => {
    const { accountId } = await service.createAccount();
    const id = await service.createEntity(accountId);
    await service.api.patch(`/admin/v1/entities/${id}`).set(service.adminAuth()).send({ entity: {} }).expect(400);
  });

  it('answers 404 for unknown accounts and entities', async () => {
    await service.api
      .post(`/admin/v1/accounts/${UNKNOWN}/entities`)
      .set(service.adminAuth())
      .send({ entity: { name: 'X' } })
      .expect(404);
    await service.api.get(`/admin/v1/accounts/${UNKNOWN}/entities`).set(service.adminAuth()).expect(404);
    await service.api
      .patch(`/admin/v1/entities/${UNKNOWN}`)
      .set(service.adminAuth())
      .send({ entity: { name: 'X' } })
      .expect(404);
  });
});
