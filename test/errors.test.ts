/**
 * The error handler and cross-cutting middleware: every failure is a JSON:API error document,
 * no internals leak, request ids are echoed, responses are held to the contract, rate limits.
 * The last block walks every operation of the contract and provokes each generic error it
 * documents (400, 401, 404, 405, 408, 413, 415, 429, 500, 503) through HTTP.
 */
import { connect, type AddressInfo } from 'node:net';
import supertest, { type Response } from 'supertest';
import { createApp, loadApiDocument } from '../src/app.ts';
import type { Database } from '../src/db/database.ts';
import { createHttpServer, listen, serveApp } from '../src/http/listener.ts';
import type { OpenApiDocument } from '../src/http/routes.ts';
import { recordingContractHits } from './support/contractCoverage.ts';
import { UPLOAD_LIMIT_BYTES } from '../src/csv/csvFile.ts';
import { contractOperations, multipartForm, validRequest, type ContractOperation, UNKNOWN_APPLE_PASS_AUTHORIZATION } from './support/contractOperations.ts';
import { startTestService, testConfig, type TestService } from './support/testService.ts';
import { testDatabaseKind } from './support/testDatabase.ts';
import { sessionSource, UNKNOWN_SESSION_COOKIE } from './support/people.ts';

let service: TestService;
let token: string;
let entityId: string;
/** A fresh session of a signed-in person per call (the operations that take only the cookie). */
let freshSession: () => Promise<Record<string, string>>;
beforeAll(async () => {
  service = await startTestService();
  const account = await service.createAccount();
  token = account.token;
  entityId = await service.createEntity(account.accountId, 'Soho');
  freshSession = await sessionSource(service, account.accountId);
});
afterAll(() => service.close());

describe('request ids', () => {
  it('echoes a client request id and tags the log with it', async () => {
    const res = await service.api.get('/api/v1/entities').set(service.auth(token)).set('X-Request-Id', 'client-42').expect(200);
    expect(res.headers['x-request-id']).toBe('client-42');
    expect(service.logs.some((l) => (l.req as { id?: string } | undefined)?.id === 'client-42')).toBe(true);
  });

  it('logs one completion line per request with the request, the status and the time taken', async () => {
    await service.api.get('/api/v1/entities?page=1').set(service.auth(token)).set('X-Request-Id', 'client-43').expect(200);
    await service.api.get('/api/v1/entities?page=x').set(service.auth(token)).set('X-Request-Id', 'client-44').expect(400);
    const lines = (id: string) => service.logs.filter((l) => (l.req as { id?: string } | undefined)?.id === id);
    expect(lines('client-43')).toEqual([
      expect.objectContaining({
        level: 30,
        msg: 'request completed',
        req: { id: 'client-43', method: 'GET', url: '/api/v1/entities?page=1', remoteAddress: expect.any(String) },
        res: { statusCode: 200 },
        responseTime: expect.any(Number),
      }),
    ]);
    const refused = lines('client-44');
    expect(refused.map((l) => l.msg)).toEqual(['request refused', 'request completed']);
    expect(refused[1]).toMatchObject({ res: { statusCode: 400 } });
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
    const res = await service.api.post('/admin/v1/accounts').set(service.adminAuth()).set('Content-Type', 'text/plain').send('name=Acme').expect(415);
    expect(res.body.errors[0]).toMatchObject({ code: 'unsupported_media_type', source: { header: 'Content-Type' } });
  });

  it('answers 400 for malformed JSON', async () => {
    const res = await service.api.post('/admin/v1/accounts').set(service.adminAuth()).set('Content-Type', 'application/json').send('{"account":').expect(400);
    expect(res.body.errors[0]).toMatchObject({ code: 'invalid_json' });
  });

  it('answers 413 for a body over the limit, and writes nothing', async () => {
    const name = 'x'.repeat(1024 * 1024 + 10);
    const res = await service.api.post('/admin/v1/accounts').set(service.adminAuth()).send({ account: { name } }).expect(413);
    expect(res.body.errors[0]).toMatchObject({ status: '413', code: 'payload_too_large' });
    expect(await service.database.db.prisma.account.count({ where: { name } })).toBe(0);
  });

  it('does not read a body sent to an operation that takes none (no undocumented 413 or 400)', async () => {
    const big = { filler: 'x'.repeat(1024 * 1024 + 10) };
    await service.api.get('/api/v1/entities').set(service.auth(token)).send(big).expect(200);
    await service.api.get('/api/v1/entities').set(service.auth(token)).set('Content-Type', 'application/json').send('{"not json').expect(200);
  });
});

describe('unexpected failures', () => {
  it('answers 500 without internals, quoting the request id, and logs the stack', async () => {
    const broken = await startTestService();
    // A database client whose account table access fails in a way no rule foresees.
    const { db } = broken.runtime;
    const prisma = new Proxy(db.prisma, {
      get: (target, property) =>
        property === 'account' ? new Proxy({}, { get: () => async () => Promise.reject(new Error('boom in a store')) }) : Reflect.get(target, property),
    });
    const app = createApp({ runtime: { ...broken.runtime, db: { ...db, prisma } as Database }, adminToken: broken.adminToken });
    const res = await supertest(app).get('/admin/v1/accounts').set(broken.adminAuth()).set('X-Request-Id', 'boom-1').expect(500);
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

  it('answers 503 with Retry-After, not 500, when the database is gone, and readiness reports it', async () => {
    const gone = await startTestService();
    await gone.database.db.close();
    const res = await gone.api.get('/admin/v1/accounts').set(gone.adminAuth()).expect(503);
    expect(res.headers['retry-after']).toBe('5');
    expect(res.body.errors).toEqual([
      { status: '503', code: 'service_unavailable', title: 'Service unavailable', detail: 'The database is unavailable; retry later.' },
    ]);
    const ready = await gone.api.get('/readyz').expect(503);
    expect(ready.headers['retry-after']).toBe('5');
    expect(gone.logs.some((l) => l.msg === 'database unavailable')).toBe(true);
    await gone.close();
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
  it('allows N requests per second per account and operation, then 429 with retry headers', async () => {
    const limited = await startTestService({ config: { rateLimitPerSecond: 3 } });
    const a = await limited.createAccount();
    const b = await limited.createAccount();
    const secondKey = await limited.api.post(`/admin/v1/accounts/${a.accountId}/tokens`).set(limited.adminAuth()).send({}).expect(201);
    const aTokens = [a.token, a.token, secondKey.body.data.attributes.token as string, a.token];
    const statuses: number[] = [];
    let last: Awaited<ReturnType<typeof limited.api.get>> | undefined;
    // The account's keys share one budget: a second key does not add to it.
    for (const token of aTokens) {
      last = await limited.api.get('/api/v1/entities').set(limited.auth(token));
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
    expect(last!.headers['retry-after']).toBe('1');
    expect(Number(last!.headers['x-rate-limit-reset'])).toBeGreaterThan(Date.now() / 1000 - 1);
    // Another operation and another account have their own budgets.
    await limited.api.get('/api/v1/entities/0194f3a2-7c1e-7a51-9d7e-0b6a2f1c9e10').set(limited.auth(a.token)).expect(404);
    const other = await limited.api.get('/api/v1/entities').set(limited.auth(b.token)).expect(200);
    expect(other.headers['x-rate-limit-remaining']).toBe('2');
    await limited.close();
  });

  (testDatabaseKind() === 'postgresql' ? it : it.skip)('counts the requests to every node against one budget', async () => {
    const limited = await startTestService({ config: { rateLimitPerSecond: 3 } });
    const other = await limited.anotherNode({ config: { rateLimitPerSecond: 3 } });
    try {
      const { token } = await limited.createAccount();
      // Each node verifies the key once first (another operation, so another budget): the four
      // counted requests are then quick enough to fall in one one-second window on a busy machine.
      for (const node of [limited, other]) await node.api.get('/api/v1/entities/0194f3a2-7c1e-7a51-9d7e-0b6a2f1c9e10').set(node.auth(token)).expect(404);
      // A budget's window starts at its first request and lasts one second: four requests that
      // all leave and return within 900 ms fall in one window. On a machine too busy for that,
      // wait for the window to end and try again (three tries); the budget is shared when the
      // fourth, on the second node, is refused — with one budget per node all four pass.
      const nodes = [limited, other, limited, other];
      let statuses: number[] = [];
      for (let attempt = 0; attempt < 3; attempt++) {
        await new Promise((resolve) => setTimeout(resolve, 1_100));
        const started = performance.now();
        statuses = [];
        for (const node of nodes) statuses.push((await node.api.get('/api/v1/entities').set(node.auth(token))).status);
        if (performance.now() - started < 900) break;
      }
      expect(statuses).toEqual([200, 200, 200, 429]);
    } finally {
      await other.close();
      await limited.close();
    }
  });
});

describe('generic errors of every operation, walked from the contract', () => {
  const operations = contractOperations();
  /** `[operationId, operation]` rows of the operations documenting `status` (and passing `also`). */
  const documenting = (status: number, also: (op: ContractOperation) => boolean = () => true) =>
    operations.filter((op) => op.statuses.includes(status) && also(op)).map((op) => [op.operationId, op] as const);

  // A second service for the failures that need their own set-up: a limit of 1 request per
  // second (429), then its database closed (503).
  let spare: TestService;
  let spareToken: string;
  // Two more apps on the first service's runtime (same database, same keys): one whose contract
  // makes every answer but 500 off-contract, so that response validation turns any answer into
  // the generic 500; one that allows a single failed authentication per minute and address.
  let failing: TestService;
  let throttled: TestService;
  beforeAll(async () => {
    const onlyFailing = loadApiDocument();
    const nothing = { description: 'Nothing is on-contract', content: { 'application/json': { schema: { not: {} } } } };
    for (const op of operations) {
      const { responses } = onlyFailing.paths[op.path]![op.method] as { responses: Record<string, unknown> };
      for (const status of Object.keys(responses)) if (status !== '500') responses[status] = nothing;
    }
    const on = (app: ReturnType<typeof createApp>, document?: OpenApiDocument): TestService => {
      const recorded = recordingContractHits(app, document ?? loadApiDocument());
      return { ...service, app: recorded, api: supertest.agent(recorded) };
    };
    failing = on(createApp({ runtime: service.runtime, adminToken: service.adminToken, apiDocument: onlyFailing }));
    const config = { ...service.runtime.config, authFailuresPerMinute: 1 };
    throttled = on(createApp({ runtime: { ...service.runtime, config }, adminToken: service.adminToken }));
    spare = await startTestService({ config: { rateLimitPerSecond: 1 } });
    spareToken = (await spare.createAccount()).token;
  });
  afterAll(() => spare.close());

  interface Variation {
    method?: string;
    query?: Record<string, string>;
    /** Replaces the example body (a string is sent as it is). */
    body?: unknown;
    contentType?: string;
    /** Credentials: the operation's scheme with a valid token (default), a wrong one, or none. */
    credentials?: 'valid' | 'wrong' | 'none';
    headers?: Record<string, string>;
  }

  /** Sends `op`'s valid request (from the contract), varied, to `target` as the holder of `apiKey` (or a person's fresh session). */
  async function send(target: TestService, apiKey: string, op: ContractOperation, variation: Variation = {}) {
    const built = validRequest(op, variation.query);
    const method = (variation.method ?? built.method) as 'get';
    // Not the agent for the cookie's operations: an agent's cookie jar would replace the Cookie header.
    let req = (op.auth === 'sessionCookie' ? supertest(target.app) : target.api)
      [method](built.url)
      .set(built.headers)
      .set(variation.headers ?? {});
    const credentials = variation.credentials ?? 'valid';
    if (op.auth === 'bearerAuth' && credentials !== 'none') req = req.set(target.auth(credentials === 'valid' ? apiKey : `wps_${'A'.repeat(43)}`));
    if (op.auth === 'adminAuth' && credentials !== 'none') req = req.set(credentials === 'valid' ? target.adminAuth() : { Authorization: 'Bearer wpa_wrong' });
    if (op.auth === 'applePass' && credentials !== 'none')
      req = req.set(credentials === 'valid' ? UNKNOWN_APPLE_PASS_AUTHORIZATION : { Authorization: 'ApplePass short' });
    if (op.auth === 'sessionCookie' && credentials !== 'none') req = req.set(credentials === 'valid' ? await freshSession() : UNKNOWN_SESSION_COOKIE);
    if (variation.contentType) req = req.set('Content-Type', variation.contentType);
    const body = 'body' in variation ? variation.body : built.body;
    return body === undefined ? req : req.send(body as object);
  }

  /** Asserts a JSON:API error document of `status` and `code`, without stack traces or file paths. */
  function expectError(res: Response, status: number, code: string) {
    expect({ status: res.status, type: res.headers['content-type'] }).toEqual({ status, type: expect.stringMatching(/^application\/json/) });
    expect(res.body.errors.length).toBeGreaterThan(0);
    for (const error of res.body.errors) expect(error).toMatchObject({ status: String(status), code, title: expect.any(String), detail: expect.any(String) });
    expect(res.text).not.toMatch(/\bat .+:\d+:\d+|node_modules|\/src\/|Prisma|PGlite|ECONNREFUSED/);
  }

  // Statuses decided by the HTTP layer before any handler reads or writes the database (the
  // router, body parsing, the request validator, the server's timeouts) are walked in the PGlite
  // project only: the same code answers them on PostgreSQL, and a walk of every operation on both
  // databases cost ≈ 60 s of CI for nothing more. 401, 404, 429, 500 and 503, which depend on
  // the database (keys, resources, shared rate limits, its absence), are walked on both.
  const httpLayerEach = testDatabaseKind() === 'pglite' ? test.each : test.skip.each;

  // (A sign-in's 401 is a wrong password or passkey, not missing credentials: test/people.test.ts.)
  test.each(documenting(401, (op) => op.auth !== 'none'))('%s answers 401 without credentials and with wrong ones', async (_id, op) => {
    for (const credentials of ['none', 'wrong'] as const) {
      const res = await send(service, token, op, { credentials });
      expectError(res, 401, 'unauthorized');
      expect(res.headers['www-authenticate']).toMatch(op.auth === 'applePass' ? /^ApplePass / : /^Bearer /);
    }
  });

  httpLayerEach(documenting(400, (op) => !op.ignoresQuery))('%s answers 400 for an undocumented query parameter', async (_id, op) => {
    const res = await send(service, token, op, { query: { notAParameter: '1' } });
    expectError(res, 400, 'validation_failed');
    expect(res.body.errors).toContainEqual(expect.objectContaining({ source: { parameter: 'notAParameter' } }));
  });

  test.each(documenting(404, (op) => op.parameters.some((p) => p.in === 'path')))('%s answers 404 for ids that name nothing', async (_id, op) => {
    const res = await send(service, token, op);
    expectError(res, 404, 'not_found');
    // The resource is missing, not the route (the router's 404 has the same code).
    expect(res.body.errors[0].detail).not.toMatch(/no operation is documented/i);
  });

  httpLayerEach(documenting(405))('%s: its path answers 405 with Allow to a method it does not document', async (_id, op) => {
    const method = ['put', 'delete', 'patch', 'post', 'get'].find((m) => !op.pathMethods.includes(m.toUpperCase()))!;
    const res = await send(service, token, op, { method });
    expectError(res, 405, 'method_not_allowed');
    expect(res.headers.allow).toBe(op.pathMethods.join(', '));
  });

  httpLayerEach(documenting(413))('%s answers 413 for a body over the limit', async (_id, op) => {
    // An upload: a file over its limit (src/http/csvUpload.ts); JSON: a body over BODY_LIMIT.
    const form = op.multipartFile && multipartForm({}, { field: op.multipartFile, content: Buffer.alloc(UPLOAD_LIMIT_BYTES + 1, 'x') });
    const res = await send(
      service,
      token,
      op,
      form ? { body: form.body, contentType: form.contentType } : { body: { filler: 'x'.repeat(testConfig().bodyLimitBytes) } },
    );
    expectError(res, 413, 'payload_too_large');
  });

  httpLayerEach(documenting(415))('%s answers 415 for a body that is not JSON', async (_id, op) => {
    const res = await send(service, token, op, { contentType: 'text/plain', body: 'not json' });
    expectError(res, 415, 'unsupported_media_type');
    expect(res.body.errors[0].source).toEqual({ header: 'Content-Type' });
  });

  // A JSON body labelled as a form (a client's wrong header): a form operation cannot parse it
  // (400 invalid_multipart, was a 500), any other operation does not take forms (415).
  httpLayerEach(documenting(415))('%s answers a JSON body sent as multipart/form-data with a 4xx, never a 500', async (_id, op) => {
    const json = JSON.stringify(op.multipartFile ? { batch: { message: 'Hi' } } : (op.bodyExample ?? {}));
    for (const contentType of ['multipart/form-data; boundary=x', 'multipart/form-data']) {
      const res = await send(service, token, op, { contentType, body: json });
      if (op.bodyMediaTypes.includes('multipart/form-data')) expectError(res, 400, 'invalid_multipart');
      else expectError(res, 415, 'unsupported_media_type');
      expect(res.body.errors[0].source).toEqual({ header: 'Content-Type' });
    }
  });

  test.each(documenting(429, (op) => op.auth === 'bearerAuth'))('%s answers 429 to a second valid request within a second (limit 1)', async (_id, op) => {
    // Three at once, not two: on a loaded machine two requests may reach the limiter more than
    // a second apart (fixed one-second windows); all three pass only if they spread over two.
    const answers = await Promise.all([1, 2, 3].map(() => send(spare, spareToken, op)));
    const refused = answers.filter((res) => res.status === 429);
    expect(refused.length).toBeGreaterThanOrEqual(1);
    expect(answers.length - refused.length).toBeGreaterThanOrEqual(1);
    expectError(refused[0]!, 429, 'rate_limited');
    expect(refused[0]!.headers).toMatchObject({ 'x-rate-limit-limit': '1', 'x-rate-limit-url': `${op.method.toUpperCase()} ${op.path}` });
    expect(Number(refused[0]!.headers['x-rate-limit-retry-after'])).toBeGreaterThan(0);
    expect(Number(refused[0]!.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  });

  describe('after a failed authentication from this address (limit 1 per minute)', () => {
    beforeAll(async () => {
      const [first] = operations.filter((op) => op.auth !== 'none');
      expect((await send(throttled, token, first!, { credentials: 'wrong' })).status).toBe(401);
    });

    test.each(documenting(429, (op) => op.auth !== 'none'))('%s answers 429 with Retry-After, wrong credentials or right ones', async (_id, op) => {
      for (const credentials of ['wrong', 'valid'] as const) {
        const res = await send(throttled, token, op, { credentials });
        expectError(res, 429, 'rate_limited');
        expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
        expect(res.headers['x-rate-limit-limit']).toBe('1');
      }
    });
  });

  httpLayerEach(documenting(408))('%s answers 408 and closes the connection when the body never completes', async (_id, op) => {
    const server = createHttpServer({ headersTimeoutMs: 300, requestTimeoutMs: 600 });
    serveApp(server, service.app);
    await listen(server, 0, '127.0.0.1');
    try {
      const built = validRequest(op);
      const credentials =
        op.auth === 'adminAuth'
          ? service.adminAuth()
          : op.auth === 'applePass'
            ? UNKNOWN_APPLE_PASS_AUTHORIZATION
            : op.auth === 'sessionCookie'
              ? await freshSession()
              : service.auth(token);
      const socket = connect((server.address() as AddressInfo).port, '127.0.0.1');
      let answer = '';
      socket.on('data', (chunk) => (answer += chunk));
      const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
      const headers = { ...built.headers, ...credentials, 'Content-Type': 'application/json', 'Content-Length': '100' };
      socket.write(
        `${op.method.toUpperCase()} ${built.url} HTTP/1.1\r\nHost: 127.0.0.1\r\n${Object.entries(headers)
          .map(([k, v]) => `${k}: ${v}\r\n`)
          .join('')}\r\n{"a":`,
      );
      await closed;
      const [head, body] = answer.split('\r\n\r\n');
      expect(head).toMatch(/^HTTP\/1\.1 408 /);
      expect(head).toMatch(/\r\nconnection: close\r\n/i);
      expect(JSON.parse(body!).errors[0]).toMatchObject({ status: '408', code: 'request_timeout' });
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  /** Sends `op`'s valid request to the app whose answers are all off-contract and asserts the generic 500 document. */
  async function expectInternalError(op: ContractOperation) {
    const res = await send(failing, token, op, { headers: { 'X-Request-Id': `walk-${op.operationId}` } });
    expectError(res, 500, 'internal_error');
    expect(res.body.errors).toEqual([
      {
        status: '500',
        code: 'internal_error',
        title: 'Internal server error',
        detail: `An unexpected error occurred. Quote request id walk-${op.operationId} when reporting it.`,
      },
    ]);
  }

  // The validator checks answers below 500 only, so these run while the database is up. It reads
  // JSON answers only: operations whose example request is answered without a JSON body (Apple
  // Wallet's empty 200 and 204, the favicon's 204, signing out's 204, the embedded database's gzip backup) cannot
  // break the contract this way.
  const answeredWithoutJson = [
    'listUpdatedPasses',
    'logAppleDeviceMessages',
    'getFavicon',
    'signOut',
    'endAllSessions',
    ...(testDatabaseKind() === 'pglite' ? ['getDatabaseBackup'] : []),
  ];
  test.each(documenting(500, (op) => !answeredWithoutJson.includes(op.operationId)))(
    '%s answers 500 without internals when its answer breaks the contract',
    async (_id, op) => {
      await expectInternalError(op);
    },
  );

  describe('with the database gone', () => {
    beforeAll(() => spare.database.db.close());

    // On PostgreSQL the backup operation answers 409 (pg_dump's job) before it needs the database.
    const neverNeedsTheDatabase = testDatabaseKind() === 'postgresql' ? ['getDatabaseBackup'] : [];
    // Of the operations without credentials, the CORS preflight reads the database (which origins
    // publishable keys name), and so do the sign-ins and invitations (their example requests name
    // a person, a challenge or an invitation; finishSingleSignOn's names no state and is refused before).
    const readsWithoutCredentials = [
      'preflightCreatePass',
      'signInWithPassword',
      'createPasskeySignInOptions',
      'signInWithPasskey',
      'startSingleSignOn',
      'createInvitationAcceptanceOptions',
      'acceptInvitation',
    ];
    const readsTheDatabase = (op: ContractOperation) => op.auth !== 'none' || readsWithoutCredentials.includes(op.operationId);
    test.each(documenting(503, (op) => readsTheDatabase(op) && !neverNeedsTheDatabase.includes(op.operationId)))(
      '%s answers 503 with Retry-After',
      async (_id, op) => {
        const res = await send(spare, spareToken, op);
        expectError(res, 503, 'service_unavailable');
        expect(res.headers['retry-after']).toBe('5');
      },
    );
  });
});
