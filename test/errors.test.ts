/**
 * The error handler and cross-cutting middleware: every failure is a JSON:API error document,
 * no internals leak, request ids are echoed, responses are held to the contract, rate limits.
 */
import { loadApiDocument } from '../src/app.ts';
import type { OpenApiDocument } from '../src/http/routes.ts';
import { startTestService, type TestService } from './support/testService.ts';

let service: TestService;
let token: string;
let entityId: string;
beforeAll(async () => {
  service = await startTestService();
  const account = await service.createAccount();
  token = account.token;
  entityId = await service.createEntity(account.accountId, 'Soho');
});
afterAll(() => service.close());

describe('request ids', () => {
  it('echoes a client request id and tags the log with it', async () => {
    const res = await service.api.get('/api/v1/entities').set(service.auth(token)).set('X-Request-Id', 'client-42').expect(200);
    expect(res.headers['x-request-id']).toBe('client-42');
    expect(service.logs.some((l) => (l.req as { id?: string } | undefined)?.id === 'client-42')).toBe(true);
  });

  it('makes one when none or an unusable one is sent', async () => {
    const none = await service.api.get('/healthz').expect(200);
    expect(none.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    const bad = await service.api.get('/healthz').set('X-Request-Id', 'x'.repeat(500)).expect(200);
    expect(bad.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('request failures', () => {
  it('answers 404 for a path the contract does not have', async () => {
    const res = await service.api.get('/api/v1/nothing-here').set(service.auth(token)).expect(404);
    expect(res.body.errors[0]).toMatchObject({ status: '404', code: 'not_found' });
  });

  it('answers 405 with Allow for a method the path does not have', async () => {
    const res = await service.api.delete(`/api/v1/entities/${entityId}`).set(service.auth(token)).expect(405);
    expect(res.headers.allow).toBe('GET');
    expect(res.body.errors[0]).toMatchObject({ status: '405', code: 'method_not_allowed' });
  });

  it('answers 415 for a body that is not JSON', async () => {
    const res = await service.api
      .post('/admin/v1/accounts')
      .set(service.adminAuth())
      .set('Content-Type', 'text/plain')
      .send('name=Acme')
      .expect(415);
    expect(res.body.errors[0]).toMatchObject({ code: 'unsupported_media_type', source: { header: 'Content-Type' } });
  });

  it('answers 400 for malformed JSON', async () => {
    const res = await service.api
      .post('/admin/v1/accounts')
      .set(service.adminAuth())
      .set('Content-Type', 'application/json')
      .send('{"account":')
      .expect(400);
    expect(res.body.errors[0]).toMatchObject({ code: 'invalid_json' });
  });

  it('answers 413 for a body over the limit, and writes nothing', async () => {
    const name = 'x'.repeat(1024 * 1024 + 10);
    const res = await service.api.post('/admin/v1/accounts').set(service.adminAuth()).send({ account: { name } }).expect(413);
    expect(res.body.errors[0]).toMatchObject({ status: '413', code: 'payload_too_large' });
    expect(await service.database.db.prisma.account.count({ where: { name } })).toBe(0);
  });
});

describe('unexpected failures', () => {
  it('answers 500 without internals, quoting the request id, and logs the stack', async () => {
    const broken = await startTestService();
    await broken.database.db.close();
    const res = await broken.api.get('/admin/v1/accounts').set(broken.adminAuth()).set('X-Request-Id', 'boom-1').expect(500);
    expect(res.body).toEqual({
      errors: [
        {
          status: '500',
          code: 'internal_error',
          title: 'Internal server error',
          detail: 'An unexpected error occurred. Quote request id boom-1 when reporting it.',
        },
      ],
    });
    const logged = broken.logs.find((l) => l.msg === 'unexpected error') as { err?: { stack?: string }; req?: { id?: string } };
    expect(logged?.req?.id).toBe('boom-1');
    expect(logged?.err?.stack).toContain('    at ');
    await broken.close();
  });

  it('answers 500 when a handler answers off-contract (responses are validated)', async () => {
    const document = loadApiDocument() as OpenApiDocument & {
      components: { schemas: { EntityName: { maxLength: number } } };
    };
    document.components.schemas.EntityName.maxLength = 2;
    const strict = await startTestService({ apiDocument: document });
    const account = await strict.createAccount();
    await strict.database.db.prisma.entity.create({ data: { accountId: account.accountId, name: 'Too long' } });
    const res = await strict.api.get('/api/v1/entities').set(strict.auth(account.token)).expect(500);
    expect(res.body.errors[0].code).toBe('internal_error');
    expect(JSON.stringify(res.body)).not.toContain('maxLength');
    await strict.close();
  });
});

describe('rate limits', () => {
  it('allows N requests per second per key and operation, then 429 with retry headers', async () => {
    const limited = await startTestService({ config: { rateLimitPerSecond: 3 } });
    const a = await limited.createAccount();
    const b = await limited.createAccount();
    const statuses: number[] = [];
    let last;
    for (let i = 0; i < 4; i++) {
      last = await limited.api.get('/api/v1/entities').set(limited.auth(a.token));
      statuses.push(last.status);
    }
    expect(statuses).toEqual([200, 200, 200, 429]);
    expect(last!.body.errors[0]).toMatchObject({ status: '429', code: 'rate_limited' });
    expect(last!.headers).toMatchObject({
      'x-rate-limit-limit': '3',
      'x-rate-limit-remaining': '0',
      'x-rate-limit-url': 'GET /api/v1/entities',
    });
    expect(Number(last!.headers['x-rate-limit-retry-after'])).toBeGreaterThan(0);
    expect(Number(last!.headers['x-rate-limit-reset'])).toBeGreaterThan(Date.now() / 1000 - 1);
    // Another operation and another key have their own budgets.
    await limited.api.get('/api/v1/entities/0194f3a2-7c1e-7a51-9d7e-0b6a2f1c9e10').set(limited.auth(a.token)).expect(404);
    const other = await limited.api.get('/api/v1/entities').set(limited.auth(b.token)).expect(200);
    expect(other.headers['x-rate-limit-remaining']).toBe('2');
    await limited.close();
  });
});
