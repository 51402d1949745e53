/**
 * Entities (spec §2.4, §4.6, §4.7): listEntities and getEntity through HTTP on a real database.
 */
import { startTestService, type TestService } from './support/testService.ts';

let service: TestService;
let tenant: { accountId: string; token: string; tokenId: string };
let other: { accountId: string; token: string; tokenId: string };
const entityIds: string[] = [];
let otherEntityId: string;

beforeAll(async () => {
  service = await startTestService();
  tenant = await service.createAccount('Acme Coffee');
  other = await service.createAccount('Other Tenant');
  for (let i = 0; i < 27; i++) entityIds.push(await service.createEntity(tenant.accountId, `Shop ${String(i).padStart(2, '0')}`));
  otherEntityId = await service.createEntity(other.accountId, 'Not yours');
});
afterAll(() => service.close());

describe('listEntities', () => {
  it('returns the first page of 25, oldest first, with the §2.9 envelope', async () => {
    const res = await service.api.get('/api/v1/entities').set(service.auth(tenant.token)).expect(200);
    expect(res.body.data).toHaveLength(25);
    expect(res.body.data.map((e: { id: string }) => e.id)).toEqual(entityIds.slice(0, 25));
    expect(res.body.data[0]).toEqual({
      id: entityIds[0],
      type: 'entity',
      attributes: {
        name: 'Shop 00',
        passDeeplinks: {
          apple: 'http://wallet.test/passes/{passId}/apple',
          google: 'http://wallet.test/passes/{passId}/google',
        },
      },
    });
    expect(res.body.meta).toEqual({ totalCount: 27, resultsPerPage: 25, currentPage: 1, totalPages: 2 });
    expect(res.body.links).toEqual({
      first: 'http://wallet.test/api/v1/entities?page=1&perPage=25',
      prev: null,
      next: 'http://wallet.test/api/v1/entities?page=2&perPage=25',
      last: 'http://wallet.test/api/v1/entities?page=2&perPage=25',
    });
  });

  it('pages with page and perPage', async () => {
    const res = await service.api.get('/api/v1/entities?page=3&perPage=10').set(service.auth(tenant.token)).expect(200);
    expect(res.body.data.map((e: { id: string }) => e.id)).toEqual(entityIds.slice(20, 27));
    expect(res.body.meta).toEqual({ totalCount: 27, resultsPerPage: 10, currentPage: 3, totalPages: 3 });
    expect(res.body.links.prev).toBe('http://wallet.test/api/v1/entities?page=2&perPage=10');
    expect(res.body.links.next).toBeNull();
  });

  it('answers a page past the end with no data and the true totals', async () => {
    const res = await service.api.get('/api/v1/entities?page=9&perPage=10').set(service.auth(tenant.token)).expect(200);
    expect(res.body.data).toEqual([]);
    expect(res.body.meta).toEqual({ totalCount: 27, resultsPerPage: 10, currentPage: 9, totalPages: 3 });
    expect(res.body.links.prev).toBe('http://wallet.test/api/v1/entities?page=3&perPage=10');
    expect(res.body.links.next).toBeNull();
  });

  it('shows only the entities of the caller’s account', async () => {
    const res = await service.api.get('/api/v1/entities').set(service.auth(other.token)).expect(200);
    expect(res.body.data.map((e: { id: string }) => e.id)).toEqual([otherEntityId]);
    expect(res.body.meta.totalCount).toBe(1);
  });

  it('answers an account without entities with an empty first page', async () => {
    const empty = await service.createAccount();
    const res = await service.api.get('/api/v1/entities').set(service.auth(empty.token)).expect(200);
    expect(res.body).toMatchObject({ data: [], meta: { totalCount: 0, totalPages: 0, currentPage: 1 } });
    expect(res.body.links.last).toBe('http://wallet.test/api/v1/entities?page=1&perPage=25');
  });

  it.each([
    ['perPage=0', 'perPage'],
    ['perPage=101', 'perPage'],
    ['perPage=abc', 'perPage'],
    ['page=0', 'page'],
    ['page=1.5', 'page'],
    ['colour=blue', 'colour'],
  ])('refuses %s with 400 naming the parameter', async (query, parameter) => {
    const res = await service.api.get(`/api/v1/entities?${query}`).set(service.auth(tenant.token)).expect(400);
    expect(res.body.errors[0]).toMatchObject({ status: '400', code: 'validation_failed', source: { parameter } });
    expect(res.body.errors[0].detail).toContain(parameter);
  });
});

describe('getEntity', () => {
  it('returns one entity', async () => {
    const res = await service.api.get(`/api/v1/entities/${entityIds[3]}`).set(service.auth(tenant.token)).expect(200);
    expect(res.body).toEqual({
      data: {
        id: entityIds[3],
        type: 'entity',
        attributes: {
          name: 'Shop 03',
          passDeeplinks: {
            apple: 'http://wallet.test/passes/{passId}/apple',
            google: 'http://wallet.test/passes/{passId}/google',
          },
        },
      },
    });
  });

  it('shows deeplink templates set by the administrator', async () => {
    await service.api
      .patch(`/admin/v1/entities/${entityIds[4]}`)
      .set(service.adminAuth())
      .send({ entity: { passDeeplinks: { apple: 'https://w.example.com/a/{passId}' } } })
      .expect(200);
    const res = await service.api.get(`/api/v1/entities/${entityIds[4]}`).set(service.auth(tenant.token)).expect(200);
    expect(res.body.data.attributes.passDeeplinks).toEqual({
      apple: 'https://w.example.com/a/{passId}',
      google: 'http://wallet.test/passes/{passId}/google',
    });
  });

  it('answers 404 for an id that does not exist', async () => {
    const res = await service.api.get('/api/v1/entities/0194f3a2-7c1e-7a51-9d7e-0b6a2f1c9e10').set(service.auth(tenant.token)).expect(404);
    expect(res.body.errors).toEqual([
      {
        status: '404',
        code: 'not_found',
        title: 'Resource not found',
        detail: 'No entity with id 0194f3a2-7c1e-7a51-9d7e-0b6a2f1c9e10 exists.',
        source: { parameter: 'id' },
      },
    ]);
  });

  it('answers 404, not the data, for another account’s entity', async () => {
    const res = await service.api.get(`/api/v1/entities/${otherEntityId}`).set(service.auth(tenant.token)).expect(404);
    expect(JSON.stringify(res.body)).not.toContain('Not yours');
  });

  it('answers 400 for an id that is not a UUID', async () => {
    const res = await service.api.get('/api/v1/entities/shop-1').set(service.auth(tenant.token)).expect(400);
    expect(res.body.errors[0].source).toEqual({ parameter: 'id' });
  });
});

describe('authentication (both operations)', () => {
  const paths = () => ['/api/v1/entities', `/api/v1/entities/${entityIds[0]}`];

  it('answers 401 with WWW-Authenticate when the header is missing', async () => {
    for (const path of paths()) {
      const res = await service.api.get(path).expect(401);
      expect(res.headers['www-authenticate']).toMatch(/^Bearer /);
      expect(res.body.errors[0]).toMatchObject({ status: '401', code: 'unauthorized', source: { header: 'Authorization' } });
    }
  });

  it.each([
    ['a malformed key', 'Bearer not-a-key'],
    ['an unknown key', 'Bearer wps_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'],
    ['another scheme', 'Basic dXNlcjpwYXNz'],
  ])('answers 401 for %s', async (_case, header) => {
    for (const path of paths()) {
      const res = await service.api.get(path).set('Authorization', header).expect(401);
      expect(res.headers['www-authenticate']).toMatch(/^Bearer /);
      expect(res.body.errors[0].code).toBe('unauthorized');
    }
  });

  it('answers 401 with the administration token (it is not an API key)', async () => {
    await service.api.get('/api/v1/entities').set(service.adminAuth()).expect(401);
  });

  it('answers 401 once the key is revoked', async () => {
    const victim = await service.createAccount();
    await service.createEntity(victim.accountId);
    await service.api.get('/api/v1/entities').set(service.auth(victim.token)).expect(200);
    await service.api.post(`/admin/v1/tokens/${victim.tokenId}/revoke`).set(service.adminAuth()).expect(200);
    for (const path of paths()) {
      const res = await service.api.get(path).set(service.auth(victim.token)).expect(401);
      expect(res.body.errors[0].detail).toBe('The API key has been revoked.');
    }
  });

  it('checks the key before validating the input', async () => {
    await service.api.get('/api/v1/entities?perPage=abc').expect(401);
  });
});
