/**
 * The HTTP edge against hostile or broken clients: authentication before the body is read,
 * failed authentications throttled per client address, time limits on slow clients (408, the
 * connection closed), JSON:API answers to what Node's parser refuses (431, 414, 400), short and
 * long Content-Length, `Cache-Control: no-store` on responses that carry secrets, credentials
 * in query strings kept out of the logs, links never shaped by an odd `Host` header, and no
 * conditional answer (ETag, 304) where the contract documents none.
 */
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import supertest from 'supertest';
import { createApp, warmUpApp } from '../src/app.ts';
import { createHttpServer, listen, serveApp } from '../src/http/listener.ts';
import { redactUrl } from '../src/http/redact.ts';
import { helmetHeaders } from '../src/http/securityHeaders.ts';
import { openDatabase } from '../src/db/database.ts';
import { contractOperations } from './support/contractOperations.ts';
import { testDatabaseKind } from './support/testDatabase.ts';
import { startTestService, type TestService } from './support/testService.ts';

let service: TestService;
let token: string;
let accountId: string;
let entityId: string;
beforeAll(async () => {
  service = await startTestService();
  ({ token, accountId } = await service.createAccount());
  entityId = await service.createEntity(accountId);
});
afterAll(() => service.close());

/** Sends raw bytes to a server built around the service's app with short time limits; resolves with everything it answered once it closes the connection. */
async function raw(send: (write: (text: string) => void) => void, limits = { headersTimeoutMs: 300, requestTimeoutMs: 600 }): Promise<string> {
  const server = createHttpServer(limits);
  serveApp(server, service.app);
  await listen(server, 0, '127.0.0.1');
  try {
    const socket = connect((server.address() as AddressInfo).port, '127.0.0.1');
    let answer = '';
    socket.on('data', (chunk) => (answer += chunk));
    socket.on('error', () => undefined);
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    send((text) => socket.write(text));
    await closed;
    return answer;
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}

/** Splits one HTTP/1.1 answer into status, headers (lower case) and parsed JSON body. */
function parse(answer: string) {
  const [head, ...rest] = answer.split('\r\n\r\n');
  const [statusLine, ...headerLines] = head!.split('\r\n');
  const headers = Object.fromEntries(headerLines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
  return { status: Number(statusLine!.split(' ')[1]), headers, body: JSON.parse(rest.join('\r\n\r\n')) as { errors: { status: string; code: string }[] } };
}

describe('authentication before the body', () => {
  it('answers 401 to an anonymous or wrongly authenticated request without parsing its body', async () => {
    for (const auth of [{}, { Authorization: `Bearer wps_${'A'.repeat(43)}` }]) {
      const malformed = await service.api.post(`/api/v1/entities/${entityId}/readers`).set(auth).set('Content-Type', 'application/json').send('{"reader":');
      expect({ status: malformed.status, code: malformed.body.errors[0].code }).toEqual({ status: 401, code: 'unauthorized' });
      const huge = await service.api
        .post('/admin/v1/accounts')
        .set(auth)
        .send({ account: { name: 'x'.repeat(2 * 1024 * 1024) } });
      expect({ status: huge.status, code: huge.body.errors[0].code }).toEqual({ status: 401, code: 'unauthorized' });
    }
  });
});

describe('security headers', () => {
  it("sets helmet's headers, with helmet's values, on every response, and no X-Powered-By", async () => {
    const expected = helmetHeaders();
    expect(expected.map(([name]) => name)).toEqual(
      expect.arrayContaining(['Content-Security-Policy', 'Strict-Transport-Security', 'X-Content-Type-Options', 'X-Frame-Options']),
    );
    const responses = [
      await service.api.get('/healthz').expect(200),
      await service.api.get('/api/v1/entities').set(service.auth(token)).expect(200),
      await service.api.get('/no/such/path').expect(404),
      await service.api.get('/api/v1/entities').expect(401),
    ];
    for (const res of responses) {
      for (const [name, value] of expected) expect([name, res.headers[name.toLowerCase()]]).toEqual([name, value]);
      expect(res.headers['x-powered-by']).toBeUndefined();
    }
  });
});

describe('request validator warm-up', () => {
  it('sends every operation through the validator past its security check, so that its schemas are compiled before the first client', async () => {
    const app = createApp({ runtime: service.runtime, adminToken: service.adminToken });
    const report = await warmUpApp(app);
    expect(report.refused).toBe(0);
    expect(report.requests).toBeGreaterThanOrEqual(contractOperations().length);
    // The warm-up's way past authentication is its own app: the served app still refuses.
    await supertest(app).get('/api/v1/entities').set('Authorization', 'Bearer warm-up').expect(401);
  });
});

describe('failed authentications per client address', () => {
  it('answers 429 with Retry-After and the limiter headers after the limit, per address, valid key or not', async () => {
    const config = { ...service.runtime.config, authFailuresPerMinute: 3, trustProxy: 'loopback' };
    const api = supertest(createApp({ runtime: { ...service.runtime, config }, adminToken: service.adminToken }));
    const from = (address: string) => ({ 'X-Forwarded-For': address });
    const wrong = { Authorization: `Bearer wps_${'B'.repeat(43)}` };
    for (let i = 0; i < 3; i++) await api.get('/api/v1/entities').set(from('203.0.113.7')).set(wrong).expect(401);
    const refused = await api.get('/api/v1/entities').set(from('203.0.113.7')).set(service.auth(token)).expect(429);
    expect(refused.body.errors[0]).toMatchObject({ status: '429', code: 'rate_limited' });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(60);
    expect(refused.headers).toMatchObject({ 'x-rate-limit-limit': '3', 'x-rate-limit-remaining': '0' });
    // Another address is not affected, and successes are not counted.
    for (let i = 0; i < 5; i++) await api.get('/api/v1/entities').set(from('203.0.113.8')).set(service.auth(token)).expect(200);
  });
});

describe('slow and broken clients', () => {
  const postHead = (length: number) =>
    `POST /admin/v1/accounts HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${service.adminToken}\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`;

  it('answers 408 in JSON and closes the connection when the headers never complete', async () => {
    const started = Date.now();
    const answer = parse(await raw((write) => write('GET /api/v1/entities HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ')));
    expect(answer.status).toBe(408);
    expect(answer.headers.connection).toBe('close');
    expect(answer.body.errors[0]).toMatchObject({ status: '408', code: 'request_timeout' });
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it('answers 408 to a body shorter than its Content-Length, and writes nothing', async () => {
    const body = JSON.stringify({ account: { name: 'Never complete' } });
    const answer = parse(await raw((write) => write(postHead(body.length + 20) + body)));
    expect(answer.status).toBe(408);
    expect(answer.body.errors[0]!.code).toBe('request_timeout');
    expect(await service.database.db.prisma.account.count({ where: { name: 'Never complete' } })).toBe(0);
  });

  it('reads no more than Content-Length: bytes beyond it are a next request, refused in JSON', async () => {
    const body = JSON.stringify({ account: { name: 'Cut short' } });
    const answer = await raw((write) => write(postHead(body.length - 5) + body));
    const [first, second] = answer.split(/(?=HTTP\/1\.1 )/) as [string, string];
    expect(parse(first!).status).toBe(400);
    expect(parse(first!).body.errors[0]!.code).toBe('invalid_json');
    expect(parse(second!).status).toBe(400);
    expect(parse(second!).body.errors[0]).toMatchObject({ status: '400', code: 'bad_request' });
  });

  it('answers 431 for headers that are too large and 414 for a request line that is too long, in JSON', async () => {
    const big = parse(await raw((write) => write(`GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`)));
    expect({ status: big.status, code: big.body.errors[0]!.code }).toEqual({ status: 431, code: 'headers_too_large' });
    const long = parse(await raw((write) => write(`GET /healthz?${'q'.repeat(20_000)} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`)));
    expect({ status: long.status, code: long.body.errors[0]!.code }).toEqual({ status: 414, code: 'uri_too_long' });
    const garbage = parse(await raw((write) => write('HELLO\r\n\r\n')));
    expect({ status: garbage.status, code: garbage.body.errors[0]!.code }).toEqual({ status: 400, code: 'bad_request' });
  });
});

describe('responses that carry secrets', () => {
  it('are sent with Cache-Control: no-store; others are not', async () => {
    const account = await service.api
      .post('/admin/v1/accounts')
      .set(service.adminAuth())
      .send({ account: { name: 'Secret keeper' } })
      .expect(201);
    expect(account.headers['cache-control']).toBe('no-store');
    const key = await service.api.post(`/admin/v1/accounts/${accountId}/tokens`).set(service.adminAuth()).send({}).expect(201);
    expect(key.headers['cache-control']).toBe('no-store');
    const configuration = await service.api.get(`/api/v1/entities/${entityId}/readerConfiguration`).set(service.auth(token)).expect(200);
    expect(configuration.headers['cache-control']).toBe('no-store');
    for (const rotation of ['rotate-api-key', 'rotate-nfc-key']) {
      const rotated = await service.api.post(`/admin/v1/entities/${entityId}/readerConfiguration/${rotation}`).set(service.adminAuth()).expect(200);
      expect(rotated.headers['cache-control']).toBe('no-store');
    }
    const list = await service.api.get('/api/v1/entities').set(service.auth(token)).expect(200);
    expect(list.headers['cache-control']).toBeUndefined();
  });
});

describe('logs', () => {
  it('never contain a credential sent in a query string', async () => {
    await service.api.get(`/api/v1/entities?apiKey=${token}&access_token=${token}&page=1`).set(service.auth(token)).expect(400);
    await service.api.get(`/healthz?token=${token}`).expect(200);
    expect(service.logText()).not.toContain(token.slice(4));
    expect(service.logText()).toContain('/api/v1/entities?apiKey=[redacted]&access_token=[redacted]&page=1');
  });

  it('redact secret-looking query parameters and keep the rest', () => {
    expect(redactUrl('/x?page=2&Signature=abc&password=p&perPage=3&x-api-key=k')).toBe(
      '/x?page=2&Signature=[redacted]&password=[redacted]&perPage=3&x-api-key=[redacted]',
    );
    expect(redactUrl('/x?%ZZ=1&a=b')).toBe('/x?%ZZ=[redacted]&a=b');
    expect(redactUrl('/x')).toBe('/x');
  });
});

describe('links', () => {
  it('use PUBLIC_BASE_URL whatever Host says; without it (embedded, local use) a Host that is no plain host name is ignored', async () => {
    const withBase = await service.api.get('/api/v1/entities').set(service.auth(token)).set('Host', 'evil.example').expect(200);
    expect(withBase.body.links.first).toMatch(/^http:\/\/wallet\.test\//);
    const config = { ...service.runtime.config, publicBaseUrl: undefined, port: 3000 };
    const api = supertest(createApp({ runtime: { ...service.runtime, config }, adminToken: service.adminToken }));
    const odd = await api.get('/api/v1/entities').set(service.auth(token)).set('Host', 'evil.example/phish?x=').expect(200);
    expect(odd.body.links.first).toMatch(/^http:\/\/127\.0\.0\.1:3000\/api\/v1\/entities\?/);
    const local = await api.get('/api/v1/entities').set(service.auth(token)).set('Host', 'localhost:3000').expect(200);
    expect(local.body.links.first).toMatch(/^http:\/\/localhost:3000\//);
  });
});

(testDatabaseKind() === 'postgresql' ? describe : describe.skip)('a lost database connection', () => {
  it('answers 503 with Retry-After while the database server cannot be reached, and 200 again once it can', async () => {
    // A TCP relay in front of PostgreSQL that the test can cut, as a network failure would.
    const target = new URL(service.database.url!);
    const sockets = new Set<Socket>();
    const relay = () =>
      createServer((client) => {
        const upstream = connect(Number(target.port || 5432), target.hostname);
        for (const socket of [client, upstream]) {
          sockets.add(socket);
          socket.on('error', () => undefined).on('close', () => sockets.delete(socket));
        }
        client.pipe(upstream).pipe(client);
      });
    let server = relay();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const url = new URL(target);
    url.host = `127.0.0.1:${port}`;
    const db = await openDatabase({ databaseUrl: url.toString(), poolSize: 2 });
    const api = supertest(createApp({ runtime: { ...service.runtime, db }, adminToken: service.adminToken }));
    try {
      await api.get('/api/v1/entities').set(service.auth(token)).expect(200);
      const closed = new Promise((resolve) => server.close(resolve));
      for (const socket of sockets) socket.destroy();
      await closed;
      for (const path of ['/api/v1/entities', `/api/v1/entities/${entityId}`]) {
        const res = await api.get(path).set(service.auth(token)).expect(503);
        expect(res.headers['retry-after']).toBe('5');
        expect(res.body.errors[0]).toMatchObject({ status: '503', code: 'service_unavailable' });
      }
      expect((await api.get('/readyz').expect(503)).headers['retry-after']).toBe('5');
      server = relay();
      await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
      await api.get('/api/v1/entities').set(service.auth(token)).expect(200);
    } finally {
      for (const socket of sockets) socket.destroy();
      server.close();
      await db.close();
    }
  });
});

test('a JSON answer carries no ETag, and a conditional request gets the whole answer, unless the contract documents them', async () => {
  const first = await service.api.get('/api/v1/entities').set(service.auth(token)).expect(200);
  expect(first.headers.etag).toBeUndefined();
  // `*` matches any current answer (RFC 9110 §13.1.2): Express alone would answer 304.
  for (const [name, value] of [
    ['If-None-Match', '*'],
    ['If-None-Match', 'W/"2a-0123456789"'],
    ['If-Modified-Since', new Date(Date.now() + 60_000).toUTCString()],
  ]) {
    const again = await service.api.get('/api/v1/entities').set(service.auth(token)).set(name!, value!).expect(200);
    expect(again.body).toEqual(first.body);
  }
  // Where the contract documents it, the handler answers conditionally itself (a template's preview).
  const operations = contractOperations().filter((op) => op.statuses.includes(304));
  expect(operations.map((op) => op.operationId).sort()).toEqual(['downloadApplePass', 'getLatestApplePass', 'getPassPreview', 'getPassTemplatePreview'].sort());
});
