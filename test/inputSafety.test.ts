/**
 * Input the database could never store is refused at the HTTP edge, for every operation of the
 * contract (src/http/storableInput.ts): a NUL character or an unpaired UTF-16 surrogate in a JSON
 * body member, a query parameter or a path segment answers 400 naming where it is; so does a body
 * nested deeper than the contract's limit (src/http/jsonDepth.ts), before anything recurses into it. Also: bodies
 * whose Content-Encoding cannot be decoded (415, or 400 when it claims gzip and is not), dates
 * that do not exist, and health probes that ignore query strings.
 */
import supertest from 'supertest';
import { contractOperations, validRequest, type ContractOperation, UNKNOWN_APPLE_PASS_AUTHORIZATION } from './support/contractOperations.ts';
import { loadApiDocument } from '../src/app.ts';
import { sessionSource } from './support/people.ts';
import { startTestService, type TestService } from './support/testService.ts';

let service: TestService;
let token: string;
/** A fresh session of a signed-in person per call (the operations that take only the cookie). */
let freshSession: () => Promise<Record<string, string>>;
beforeAll(async () => {
  service = await startTestService();
  const account = await service.createAccount();
  token = account.token;
  freshSession = await sessionSource(service, account.accountId);
});
afterAll(() => service.close());

const operations = contractOperations();
const rows = (ops: ContractOperation[]) => ops.map((op) => [op.operationId, op] as const);

/** The JSON Pointer of the first string value in `value`, depth first; undefined when none. */
function firstString(value: unknown, pointer = ''): string | undefined {
  if (typeof value === 'string') return pointer;
  if (Array.isArray(value)) return value.map((v, i) => firstString(v, `${pointer}/${i}`)).find((p) => p !== undefined);
  if (value && typeof value === 'object')
    return Object.entries(value)
      .map(([k, v]) => firstString(v, `${pointer}/${k}`))
      .find((p) => p !== undefined);
  return undefined;
}

/** `value` with the string at `pointer` replaced by `replace(old)`. */
function withString(value: unknown, pointer: string, replace: (old: string) => string): unknown {
  const copy = structuredClone(value) as Record<string, unknown>;
  const keys = pointer.split('/').slice(1);
  const last = keys.pop()!;
  const parent = keys.reduce<Record<string, unknown>>((node, key) => node[key] as Record<string, unknown>, copy);
  parent[last] = replace(parent[last] as string);
  return copy;
}

/** Sends `op`'s valid request with credentials, its body replaced by `body` (raw JSON text) when given. */
async function send(op: ContractOperation, options: { url?: string; rawBody?: string; headers?: Record<string, string> } = {}) {
  const built = validRequest(op);
  // Not the agent for the cookie's operations: an agent's cookie jar would replace the Cookie header.
  let req = (op.auth === 'sessionCookie' ? supertest(service.app) : service.api)
    [op.method as 'get'](options.url ?? built.url)
    .set(built.headers)
    .set(options.headers ?? {});
  if (op.auth === 'bearerAuth') req = req.set(service.auth(token));
  if (op.auth === 'adminAuth') req = req.set(service.adminAuth());
  if (op.auth === 'applePass') req = req.set(UNKNOWN_APPLE_PASS_AUTHORIZATION);
  if (op.auth === 'sessionCookie') req = req.set(await freshSession());
  if (options.rawBody !== undefined) return req.set('Content-Type', 'application/json').send(options.rawBody);
  return built.body === undefined ? req : req.send(built.body as object);
}

function expectRefusal(res: { status: number; body: { errors?: { code: string; detail: string; source?: unknown }[] } }, detail: RegExp, source?: unknown) {
  expect({ status: res.status, error: res.body.errors?.[0] }).toEqual({
    status: 400,
    error: expect.objectContaining({ code: 'validation_failed', detail: expect.stringMatching(detail), ...(source ? { source } : {}) }),
  });
}

const withBody = operations.filter((op) => op.hasBody);

describe('unstorable text in a JSON body', () => {
  test.each(rows(withBody))('%s refuses a NUL in a body member, naming it', async (_id, op) => {
    const pointer = firstString(op.bodyExample)!;
    expect(pointer).toBeDefined();
    const body = JSON.stringify(withString(op.bodyExample, pointer, (old) => `${old}\u0000`));
    expectRefusal(await send(op, { rawBody: body }), /NUL character U\+0000/, { pointer });
  });

  test.each(rows(withBody))('%s refuses an unpaired surrogate in a body member, naming it', async (_id, op) => {
    const pointer = firstString(op.bodyExample)!;
    // JSON.stringify writes a lone surrogate as the escape \ud800 (ES2019 well-formed stringify).
    const body = JSON.stringify(withString(op.bodyExample, pointer, (old) => `\ud800${old}`));
    expect(body).toContain('\\ud800');
    expectRefusal(await send(op, { rawBody: body }), /unpaired surrogate U\+D800/, { pointer });
  });

  it('refuses a NUL in a member name, naming the object that holds it', async () => {
    const op = operations.find((o) => o.operationId === 'createPass')!;
    const body = op.bodyExample as { pass: Record<string, unknown> };
    const res = await send(op, { rawBody: JSON.stringify({ ...body, pass: { ...body.pass, 'mem\u0000ber': 'x' } }) });
    expectRefusal(res, /A member name in \/pass contains the NUL character/, { pointer: '/pass' });
  });
});

describe('deeply nested JSON', () => {
  // The contract's limit (openapi/openapi.yaml, Limits): arrays and objects nested at most 64 deep.
  const LIMIT = 64;
  /** `depth` arrays nested in one another: `[[…]]`. */
  const nestedArrays = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);

  const document = loadApiDocument();
  /** An operation's own body limit in bytes (`x-body-limit-bytes`), when it has one. */
  const ownLimit = (op: ContractOperation) => (document.paths[op.path]?.[op.method] as { 'x-body-limit-bytes'?: number } | undefined)?.['x-body-limit-bytes'];

  test.each(rows(withBody))(
    '%s refuses JSON nested 100,000 deep (or as deep as its own body limit allows) with 400, naming where the limit is passed',
    async (_id, op) => {
      const res = await send(op, { rawBody: nestedArrays(Math.min(100_000, Math.floor((ownLimit(op) ?? Infinity) / 2))) });
      expectRefusal(res, new RegExp(`nested more than ${LIMIT} levels deep`), { pointer: '/0'.repeat(LIMIT) });
    },
  );

  it('names the member that nests too deep inside an otherwise valid body (an administration operation)', async () => {
    const op = operations.find((o) => o.operationId === 'createAccount')!;
    expect(op.auth).toBe('adminAuth');
    const body = op.bodyExample as { account: Record<string, unknown> };
    // {account: {…, extra: [[…]]}}: the body is level 1, account 2, extra's arrays 3 and deeper.
    const withExtra = (arrays: number) => `{"account":${JSON.stringify(body.account).replace(/}$/, `,"extra":${nestedArrays(arrays)}}`)}}`;
    const tooDeep = await send(op, { rawBody: withExtra(LIMIT - 1) });
    expectRefusal(tooDeep, new RegExp(`nested more than ${LIMIT} levels deep`), { pointer: `/account/extra${'/0'.repeat(LIMIT - 2)}` });
    // One level less is read as before: the contract's own refusal of the unknown member.
    const atLimit = await send(op, { rawBody: withExtra(LIMIT - 2) });
    expectRefusal(atLimit, /extra is not an allowed member/, { pointer: '/account/extra' });
  });

  it('accepts a valid body as before, and refuses a body at the limit only for what the contract says', async () => {
    const op = operations.find((o) => o.operationId === 'createPass')!;
    const res = await send(op, { rawBody: nestedArrays(LIMIT) });
    expect(res.status).toBe(400);
    expect(res.body.errors[0].detail).not.toMatch(/levels deep/);
    const account = await service.api
      .post('/admin/v1/accounts')
      .set(service.adminAuth())
      .send({ account: { name: 'Deep enough' } });
    expect(account.status).toBe(201);
  });
});

describe('unstorable text in the query and the path', () => {
  const refusingQuery = operations.filter((op) => op.statuses.includes(400) && op.unstorablePathStatus === undefined && !op.ignoresQuery);
  test.each(rows(refusingQuery))('%s refuses a NUL in a query parameter, naming it', async (_id, op) => {
    const built = validRequest(op);
    const name = op.parameters.find((p) => p.in === 'query' && !p.required)?.name ?? 'probe';
    const url = `${built.url}${built.url.includes('?') ? '&' : '?'}${name}=a%00b`;
    expectRefusal(await send(op, { url }), /query parameter .* contains the NUL character/, { parameter: name });
  });

  const withPathParameters = operations.filter((op) => op.parameters.some((p) => p.in === 'path') && op.unstorablePathStatus === undefined);
  test.each(rows(withPathParameters))('%s refuses a NUL or undecodable UTF-8 in a path parameter', async (_id, op) => {
    const built = validRequest(op);
    const [first] = built.url
      .split('?')[0]!
      .split('/')
      .filter((segment) => /^[0-9a-f-]{36}$/.test(segment));
    expect(first).toBeDefined();
    expectRefusal(await send(op, { url: built.url.replace(first!, 'a%00b') }), /path segment contains the NUL character/);
    expectRefusal(await send(op, { url: built.url.replace(first!, '%ED%A0%80') }), /not valid percent-encoded UTF-8/);
  });
});

describe('unstorable text where the protocol has no 400 for names (x-unstorable-path-status)', () => {
  const answering = operations.filter((op) => op.unstorablePathStatus !== undefined);
  it('is the Apple Wallet web service but its log', () => {
    expect(answering.map((op) => op.operationId).sort()).toEqual(['getLatestApplePass', 'listUpdatedPasses', 'registerDevice', 'unregisterDevice']);
  });
  test.each(rows(answering))('%s answers a NUL or undecodable UTF-8 in a path parameter or query value as naming nothing', async (_id, op) => {
    const built = validRequest(op);
    const [first] = built.url
      .split('?')[0]!
      .split('/')
      .filter((segment) => /^[0-9a-f-]{36}$|^[0-9a-f]{32}$/.test(segment));
    expect(first).toBeDefined();
    const urls = [
      built.url.replace(first!, 'a%00b'),
      built.url.replace(first!, '%ED%A0%80'),
      `${built.url}${built.url.includes('?') ? '&' : '?'}passesUpdatedSince=a%00b`,
    ];
    for (const url of urls) {
      const res = await send(op, { url });
      expect({ url, status: res.status }).toEqual({ url, status: op.unstorablePathStatus });
      if (res.status === 401) expect(res.headers['www-authenticate']).toMatch(/^ApplePass /);
    }
  });
});

describe('content encodings', () => {
  test.each(rows(withBody))('%s answers 400 for a body that claims gzip and is not, 415 for an unknown encoding', async (_id, op) => {
    const body = JSON.stringify(op.bodyExample);
    const notGzip = await send(op, { rawBody: body, headers: { 'Content-Encoding': 'gzip' } });
    expect({ status: notGzip.status, error: notGzip.body.errors?.[0] }).toEqual({
      status: 400,
      error: expect.objectContaining({ code: 'invalid_body_encoding', source: { header: 'Content-Encoding' } }),
    });
    const unknown = await send(op, { rawBody: body, headers: { 'Content-Encoding': 'compress' } });
    expect({ status: unknown.status, error: unknown.body.errors?.[0] }).toEqual({
      status: 415,
      error: expect.objectContaining({ code: 'unsupported_media_type', source: { header: 'Content-Encoding' } }),
    });
  });
});

describe('numbers', () => {
  const paginated = operations.filter((op) => op.parameters.some((p) => p.name === 'page'));
  test.each(rows(paginated))('%s refuses page and perPage that are no whole number (1e400 is Infinity)', async (_id, op) => {
    for (const name of ['page', 'perPage']) {
      const built = validRequest(op);
      const url = `${built.url}${built.url.includes('?') ? '&' : '?'}${name}=1e400`;
      expectRefusal(await send(op, { url }), new RegExp(name), { parameter: name });
    }
  });
});

describe('dates', () => {
  it('refuses dates that do not exist, in the query and in a body', async () => {
    const list = await service.api.get('/api/v1/scans?scannedAfter=2026-02-30T00:00:00Z').set(service.auth(token));
    expectRefusal(list, /date-time/, { parameter: 'scannedAfter' });
    const op = operations.find((o) => o.operationId === 'createWalletMessagingBatch')!;
    for (const scheduledAt of ['2027-02-29T09:00:00Z', '2026-12-01T24:00:00Z', '2026-04-31T09:00:00+01:00']) {
      const example = op.bodyExample as { batch: Record<string, unknown> };
      const res = await send(op, { rawBody: JSON.stringify({ batch: { ...example.batch, scheduledAt } }) });
      expectRefusal(res, /date-time/, { pointer: '/batch/scheduledAt' });
    }
  });
});

describe('health probes', () => {
  it('ignore query strings', async () => {
    expect((await service.api.get('/healthz?foo=bar&probe=1').expect(200)).body).toEqual({ status: 'ok' });
    expect((await service.api.get('/readyz?foo=bar').expect(200)).body).toMatchObject({ status: 'ok' });
  });
});
