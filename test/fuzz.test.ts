/**
 * Contract-driven fuzzing: for every operation of the bundled contract, fast-check generates
 * requests from the operation's own schemas — path parameters among real ids, random ids and
 * hostile strings (now and then sent unencoded: traversals, a `/` inside a value); documented
 * query parameters (and now and then an unknown one); bodies that mostly follow the request
 * schema and sometimes break it (test/support/schemaArbitrary.ts), now and then labelled with
 * another Content-Type (a form, text) —
 * and sends them with valid credentials (now and then none). Whatever is sent, the service must
 * never answer 5xx, and every 4xx must be a JSON:API error document whose objects carry the
 * status, a code, a title and a detail. Responses are also validated against the contract by the
 * app itself (an off-contract answer would be a 500).
 *
 * Bounded: FUZZ_RUNS requests per operation (default 25), so that the file runs in well under a
 * minute per database; FUZZ_SEED replays a failing run (fast-check prints the seed);
 * FUZZ_STATS=1 prints how many answers of each status every operation gave.
 */
import supertest from 'supertest';
import fc from 'fast-check';
import { loadApiDocument } from '../src/app.ts';
import { processTemplateVersion } from '../src/domain/passTemplates/processPassTemplate.ts';
import { contractOperations, type ContractOperation, UNKNOWN_APPLE_PASS_AUTHORIZATION } from './support/contractOperations.ts';
import { hostileStrings, schemaArbitraries, type Schema } from './support/schemaArbitrary.ts';
import { loyaltyTemplate } from './support/passes.ts';
import { sessionSource } from './support/people.ts';
import { startTestService, type TestService } from './support/testService.ts';

const RUNS = Number(process.env.FUZZ_RUNS ?? 25);
const SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);
const document = loadApiDocument();
const { arbitrary, resolve } = schemaArbitraries(document);
const operations = contractOperations(document);

let service: TestService;
let token: string;
/** A fresh session of a signed-in person per call (the operations that take only the cookie). */
let freshSession: () => Promise<Record<string, string>>;
/** Ids of real resources, so that generated requests also reach rows that exist. */
let ids: string[];

beforeAll(async () => {
  service = await startTestService({ jobs: 'enqueue' });
  const account = await service.createAccount();
  freshSession = await sessionSource(service, account.accountId);
  token = account.token;
  const entityId = await service.createEntity(account.accountId);
  const spareKey = await service.api.post(`/admin/v1/accounts/${account.accountId}/tokens`).set(service.adminAuth()).send({}).expect(201);
  const template = await service.api.post('/api/v1/pass-templates').set(service.auth(token)).send({ passTemplate: loyaltyTemplate() }).expect(202);
  await processTemplateVersion(service.runtime, template.body.id, 1, new Date());
  const pass = await service.api
    .post(`/api/v1/passes?passTemplate=${template.body.id}&extId=fuzz-1`)
    .set(service.auth(token))
    .send({ pass: { member: 'Ada' } })
    .expect(200);
  const reader = await service.api
    .post(`/api/v1/entities/${entityId}/readers`)
    .set(service.auth(token))
    .send({ reader: { name: 'Door', password: 'correct horse battery' } });
  const batch = await service.api
    .post(`/api/v1/entities/${entityId}/messaging/wallet`)
    .set(service.auth(token))
    .send({ batch: { message: 'Hi', scheduledAt: new Date(Date.now() + 86_400_000).toISOString(), recipients: [{ passId: pass.body.data.id }] } });
  ids = [account.accountId, entityId, spareKey.body.data.id, template.body.id, pass.body.data.id, 'fuzz-1', reader.body.data?.id, batch.body.data?.id].filter(
    Boolean,
  );
  // Two minutes: the first requests compile every schema of the contract, and the set-up processes a template.
}, 120_000);
afterAll(() => service.close());

/** Statuses answered per operation (printed with FUZZ_STATS=1). */
const answered = new Map<string, Map<number, number>>();
afterAll(() => {
  if (!process.env.FUZZ_STATS) return;
  const lines = [...answered].map(
    ([id, counts]) =>
      `${id.padEnd(28)} ${[...counts]
        .sort(([a], [b]) => a - b)
        .map(([status, n]) => `${status}×${n}`)
        .join(' ')}`,
  );
  process.stdout.write(`Fuzz answers per operation\n${lines.join('\n')}\n`);
});

/** A generated request: the path with its parameters, the query, the body and whether to authenticate. */
interface FuzzRequest {
  path: string;
  /** Whether a path value was sent as it is, unencoded (it may hold a `/`: another path, or none). */
  raw: boolean;
  query: [string, string][];
  body: unknown;
  /** The body's Content-Type: JSON mostly; when hostile now and then another (a form, text). */
  contentType: string;
  credentials: boolean;
  idempotencyKey: string | undefined;
}

/**
 * Path values sent unencoded, as a proxy that decodes `%2F` or a careless client passes them:
 * encoded and raw traversals, a `/` inside a value, dot segments.
 */
const RAW_SEGMENTS = ['..%2f..%2f', 'x/..%2f..%2f', '%2e%2e', '..', '.', 'a/b', 'x/../..', '..%5c', '%252e%252e'];

/** Content types a hostile request may label its JSON body with. */
const CONTENT_TYPES = [
  'multipart/form-data; boundary=x',
  'multipart/form-data',
  'text/plain',
  'application/x-www-form-urlencoded',
  'application/json; charset=latin1',
];

/** A path segment as sent: percent-encoded; a lone surrogate (no UTF-8 form) as the bytes of its WTF-8 form. */
const encodeSegment = (value: string) => {
  try {
    return encodeURIComponent(value);
  } catch {
    return '%ED%A0%80';
  }
};

const asText = (value: unknown) => (typeof value === 'string' ? value : (JSON.stringify(value) ?? ''));

/** Requests to `op`: half of them follow the contract throughout, half are hostile here and there. */
function requestArbitrary(op: ContractOperation): fc.Arbitrary<FuzzRequest> {
  return fc.boolean().chain((hostile) => shapedRequest(op, hostile));
}

function shapedRequest(op: ContractOperation, hostile: boolean): fc.Arbitrary<FuzzRequest> {
  const pathParameters = op.parameters.filter((p) => p.in === 'path');
  const queryParameters = op.parameters.filter((p) => p.in === 'query');
  const segment = hostile
    ? fc.oneof(
        { arbitrary: fc.constantFrom(...ids), weight: 4 },
        { arbitrary: fc.uuid(), weight: 2 },
        { arbitrary: fc.constantFrom(...hostileStrings.filter(Boolean)), weight: 1 },
      )
    : fc.oneof({ arbitrary: fc.constantFrom(...ids), weight: 4 }, { arbitrary: fc.uuid(), weight: 1 });
  // A value is encoded, or (hostile, now and then) one of RAW_SEGMENTS sent as it is.
  const value = hostile
    ? fc.oneof(
        { arbitrary: segment.map((v) => ({ text: encodeSegment(v), raw: false })), weight: 9 },
        { arbitrary: fc.constantFrom(...RAW_SEGMENTS).map((text) => ({ text, raw: true })), weight: 1 },
      )
    : segment.map((v) => ({ text: encodeSegment(v), raw: false }));
  const path = fc.tuple(...pathParameters.map(() => value)).map((values) => ({
    path: pathParameters.reduce((built, parameter, i) => built.replace(`{${parameter.name}}`, values[i]!.text), op.path),
    raw: values.some((v) => v.raw),
  }));
  const query = fc
    .tuple(
      ...queryParameters.map((parameter) =>
        fc.option(
          arbitrary((parameter.schema ?? {}) as Schema, hostile).map((value) => [parameter.name, asText(value)] as [string, string]),
          { freq: 2 },
        ),
      ),
      hostile ? fc.option(fc.tuple(fc.constantFrom('unknown', 'apiKey', 'a\u0000'), fc.string({ maxLength: 8 })), { freq: 4 }) : fc.constant(null),
    )
    .map((pairs) => pairs.filter((pair): pair is [string, string] => pair !== null));
  const bodySchema = (document.paths[op.path]![op.method] as { requestBody?: { content?: Record<string, { schema?: Schema }> } }).requestBody?.content?.[
    'application/json'
  ]?.schema;
  const body = bodySchema ? arbitrary(resolve(bodySchema), hostile) : fc.constant(undefined);
  const idempotencyKey = op.parameters.some((p) => p.in === 'header' && p.name === 'Idempotency-Key')
    ? fc.option(fc.uuid(), { freq: 3 }).map((v) => v ?? undefined)
    : fc.constant(undefined);
  const credentials = hostile ? fc.integer({ min: 0, max: 9 }).map((n) => n > 0) : fc.constant(true);
  const contentType = hostile
    ? fc.oneof({ arbitrary: fc.constant('application/json'), weight: 6 }, { arbitrary: fc.constantFrom(...CONTENT_TYPES), weight: 1 })
    : fc.constant('application/json');
  return fc.record({ path, query, body, contentType, credentials, idempotencyKey }).map(({ path: built, ...rest }) => ({ ...built, ...rest }));
}

describe('every operation, fuzzed from its schemas', () => {
  test.each(operations.map((op) => [op.operationId, op] as const))(
    '%s never answers 5xx, and answers every 4xx with a JSON:API error',
    async (_id, op) => {
      await fc.assert(
        fc.asyncProperty(requestArbitrary(op), async (request) => {
          const search = new URLSearchParams(request.query).toString();
          // Not the agent for the cookie's operations: an agent's cookie jar would replace the Cookie header.
          let req = (op.auth === 'sessionCookie' ? supertest(service.app) : service.api)[op.method as 'get'](`${request.path}${search ? `?${search}` : ''}`);
          if (request.credentials && op.auth === 'bearerAuth') req = req.set(service.auth(token));
          if (request.credentials && op.auth === 'adminAuth') req = req.set(service.adminAuth());
          if (request.credentials && op.auth === 'applePass') req = req.set(UNKNOWN_APPLE_PASS_AUTHORIZATION);
          if (request.credentials && op.auth === 'sessionCookie') req = req.set(await freshSession());
          if (request.idempotencyKey) req = req.set('Idempotency-Key', request.idempotencyKey);
          const res = request.body === undefined ? await req : await req.set('Content-Type', request.contentType).send(JSON.stringify(request.body));
          const counts = answered.get(op.operationId) ?? new Map<number, number>();
          answered.set(op.operationId, counts.set(res.status, (counts.get(res.status) ?? 0) + 1));
          const context = `${op.method.toUpperCase()} ${request.path}?${search} [${request.contentType}] → ${res.status} ${(res.text ?? '').slice(0, 300)}`;
          if (res.status >= 500) throw new Error(`5xx: ${context}`);
          // A raw value with a `/` may make another path, or none (404, 405): that is not this
          // operation — except where the contract keeps every value its own (x-unstorable-path-status).
          const elsewhere = request.raw && op.unstorablePathStatus === undefined && res.status >= 400;
          if (!elsewhere && !op.statuses.includes(res.status)) throw new Error(`a status the contract does not document for ${op.operationId}: ${context}`);
          // The MCP transport answers what it cannot take with a JSON-RPC error object, as the
          // protocol says (Streamable HTTP, https://modelcontextprotocol.io/specification/2025-11-25/basic/transports);
          // what the app refuses before it (auth, validation) is a JSON:API error document.
          const jsonRpcError = (res.body as { jsonrpc?: string; error?: { code?: unknown; message?: unknown } }).error;
          if (op.operationId === 'sendMcpMessage' && res.status >= 400 && res.status < 500 && (res.body as { jsonrpc?: string }).jsonrpc === '2.0') {
            if (!Number.isInteger(jsonRpcError?.code) || typeof jsonRpcError?.message !== 'string')
              throw new Error(`4xx with a malformed JSON-RPC error: ${context}`);
          } else if (res.status >= 400) {
            if (!/^application\/json/.test(res.headers['content-type'] ?? '')) throw new Error(`4xx without JSON: ${context}`);
            const errors = (res.body as { errors?: Record<string, unknown>[] }).errors;
            if (!Array.isArray(errors) || errors.length === 0) throw new Error(`4xx without errors: ${context}`);
            for (const error of errors) {
              const ok = error.status === String(res.status) && ['code', 'title', 'detail'].every((member) => typeof error[member] === 'string');
              if (!ok) throw new Error(`4xx with a malformed error object: ${context}`);
            }
          }
        }),
        { numRuns: op.operationId === 'getDatabaseBackup' ? Math.ceil(RUNS / 5) : RUNS, ...(SEED === undefined ? {} : { seed: SEED }), endOnFailure: true },
      );
      // A backup download (getDatabaseBackup) dumps the whole database: 0.7 s on a quiet machine, over
      // 2.4 s on a busy one, where 25 runs exceeded 60 s. Its only inputs are a few query parameters, so
      // it gets a fifth of the runs, and every operation a timeout that grows with FUZZ_RUNS.
    },
    Math.max(90_000, RUNS * 2_000),
  );
});
