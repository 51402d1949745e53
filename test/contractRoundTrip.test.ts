/**
 * GET → write round trip, as a property of the contract: for every path of generated/openapi.json
 * with a `GET` and a `PATCH` or `PUT`, what the `GET` answers — the members of
 * `data.attributes` that the write schema knows — is accepted back unchanged by the write (200),
 * and a second `GET` shows the same members. This is what an editor does (the operator console:
 * load a resource, change a member, save the form).
 *
 * The paths come from the contract, not a list here. Their path parameters are filled from the
 * resources the set-up makes (every combination whose `GET` answers 200 is walked, so each kind
 * of template, pass and configuration is round-tripped). Members the write schema marks
 * `writeOnly` (secrets: a private key, a service account key) are never answered by a `GET`, so
 * the client sends the ones it holds, as an operator re-uploading credentials does; members the
 * read schema marks `readOnly` are not sent back. A write schema wrapped in one required member
 * (`{ passTemplate: {…} }`) gets the members inside it.
 *
 * The service runs with the production defaults of the switches that matter here (no
 * `WEBHOOK_ALLOW_PRIVATE`, no `IMAGE_FETCH_ALLOW_PRIVATE`); only the set-up of the webhook
 * subscription goes through an app that allows a loopback receiver, as no public host is
 * reachable from a test. Apple credentials are a development chain
 * (`APPLE_ALLOW_DEVELOPMENT_CERTIFICATES`): Apple's own WWDR certificate signs no test key.
 */
import { joinAs, session } from './support/people.ts';
import { type OpenIdProvider, startOpenIdProvider } from './support/openIdProvider.ts';
import supertest from 'supertest';
import { createApp, loadApiDocument } from '../src/app.ts';
import { contractOperations, resolveRef, type ContractOperation } from './support/contractOperations.ts';
import type { Schema } from './support/schemaArbitrary.ts';
import { PASS_TYPE_ID, TEAM_ID, testCertificates } from './support/appleCredentials.ts';
import { ISSUER_ID, serviceAccountKeyFile } from './support/googleCredentials.ts';
import { createTemplate, issuePass, loyaltyTemplate, plainTemplate } from './support/passes.ts';
import { fullTemplate } from './support/passTemplates.ts';
import { ICON_PNG, LOGO_PNG } from './support/images.ts';
import { startTestService, type TestService } from './support/testService.ts';

const document = loadApiDocument();
const operations = contractOperations(document);

/** A path with a `GET` and a write (`PATCH` or `PUT`), as the contract has it. */
interface RoundTripPath {
  path: string;
  read: ContractOperation;
  write: ContractOperation;
}

const roundTripPaths: RoundTripPath[] = [...new Set(operations.map((op) => op.path))].flatMap((path) => {
  const read = operations.find((op) => op.path === path && op.method === 'get');
  const write = operations.find((op) => op.path === path && (op.method === 'patch' || op.method === 'put'));
  return read && write ? [{ path, read, write }] : [];
});

/** Whether a member schema is marked `readOnly`/`writeOnly`, beside its `$ref` (OpenAPI 3.1) or in what it names. */
function marked(member: unknown, keyword: 'readOnly' | 'writeOnly'): boolean {
  return (member as Record<string, unknown>)[keyword] === true || resolveRef<Record<string, unknown>>(document, member)[keyword] === true;
}

/** The write's body schema: the members it knows, which are `writeOnly`, and the wrapper member, if any. */
function writeShape(write: ContractOperation): { wrapper?: string; members: string[]; writeOnly: string[] } {
  const operation = (document.paths[write.path] as Record<string, { requestBody?: unknown }>)[write.method]!;
  const body = resolveRef<{ content: Record<string, { schema: Schema }> }>(document, operation.requestBody);
  const schema = resolveRef<Schema>(document, body.content['application/json']!.schema);
  const only = Object.keys(schema.properties ?? {});
  const wrapped = only.length === 1 && schema.required?.[0] === only[0] ? resolveRef<Schema>(document, schema.properties![only[0]!]) : undefined;
  const inner = wrapped?.type === 'object' ? wrapped : schema;
  const writeOnly = Object.entries(inner.properties ?? {})
    .filter(([, member]) => marked(member, 'writeOnly'))
    .map(([name]) => name);
  return { ...(inner === schema ? {} : { wrapper: only[0] }), members: Object.keys(inner.properties ?? {}), writeOnly };
}

/** The member schemas of the `GET` answer's attributes, by name, over every variant of a `oneOf`. */
function readMembers(read: ContractOperation): [string, Schema][] {
  const operation = (document.paths[read.path] as Record<string, { responses: Record<string, unknown> }>)[read.method]!;
  const response = resolveRef<{ content: Record<string, { schema: Schema }> }>(document, operation.responses['200']);
  const documentSchema = resolveRef<Schema>(document, response.content['application/json']!.schema);
  const resource = resolveRef<Schema>(document, documentSchema.properties!.data);
  const attributes = resolveRef<Schema>(document, resource.properties!.attributes);
  const variants = (attributes.oneOf ?? [attributes]).map((variant) => resolveRef<Schema>(document, variant));
  return variants.flatMap((variant) => Object.entries(variant.properties ?? {}));
}

/** Members of the `GET` answer's attributes schema marked `readOnly`. */
function readOnlyMembers(read: ContractOperation): Set<string> {
  return new Set(
    readMembers(read)
      .filter(([, member]) => marked(member, 'readOnly'))
      .map(([name]) => name),
  );
}

/** The scalar values a schema admits: a finite set (`enum`, `const`, `null`), or `open`; and whether `null` is one. */
function scalarValues(member: Schema): { open: boolean; values: Set<unknown> } {
  const schema = resolveRef<Schema>(document, member);
  const branches = schema.oneOf ?? schema.anyOf;
  if (branches) {
    const parts = branches.map(scalarValues);
    return { open: parts.some((part) => part.open), values: new Set(parts.flatMap((part) => [...part.values])) };
  }
  if (schema.enum) return { open: false, values: new Set(schema.enum) };
  if (schema.const !== undefined) return { open: false, values: new Set([schema.const]) };
  if (schema.type === 'null') return { open: false, values: new Set([null]) };
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  return { open: true, values: new Set(types.includes('null') ? [null] : []) };
}

let service: TestService;
let token: string;
/** Every id the set-up made, tried for every path parameter. */
const ids = new Set<string>();
/** Bodies of the writes the set-up sent, by URL: the `writeOnly` members a client holds. */
const sentBodies = new Map<string, Record<string, Record<string, unknown>>>();

/** The headers of a signed-in person, for the operations that take only the session cookie (getSession, updateSession). */
let personSession: Record<string, string>;
let openIdProvider: OpenIdProvider | undefined;

/** Sends `method` to `url` with the credentials of `op`'s scheme. */
function request(op: ContractOperation, method: 'get' | 'patch' | 'put', url: string) {
  // Not the agent for a person's session: an agent's cookie jar would replace the Cookie header.
  if (op.auth === 'sessionCookie') return supertest(service.app)[method](url).set(personSession);
  const req = service.api[method](url);
  return op.auth === 'adminAuth' ? req.set(service.adminAuth()) : req.set(service.auth(token));
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether `value` passes the parameter's schema as far as format `uuid` and `pattern` go. */
function fits(parameter: ContractOperation['parameters'][number], value: string): boolean {
  const schema = parameter.schema ?? {};
  return (schema.format !== 'uuid' || UUID.test(value)) && (schema.pattern === undefined || new RegExp(schema.pattern, 'u').test(value));
}

/** Every URL of `path` (its parameters filled from the set-up's ids that fit them) whose `GET` answers 200. */
async function instances({ path, read }: RoundTripPath): Promise<string[]> {
  let urls = [path];
  for (const parameter of read.parameters.filter((p) => p.in === 'path')) {
    const values = [...ids].filter((id) => fits(parameter, id));
    urls = urls.flatMap((url) => values.map((id) => url.replace(`{${parameter.name}}`, encodeURIComponent(id))));
  }
  const answers = await Promise.all(urls.map(async (url) => ((await request(read, 'get', url)).status === 200 ? url : undefined)));
  return answers.filter((url) => url !== undefined);
}

/** The fullest answer of a GET: every optional boolean query parameter (`include…`) set. */
function fullestQuery(read: ContractOperation): string {
  const flags = read.parameters.filter((p) => p.in === 'query' && (p.schema as { type?: string } | undefined)?.type === 'boolean');
  return flags.length ? `?${flags.map((p) => `${p.name}=true`).join('&')}` : '';
}

/** The members of `attributes` the write knows (not `writeOnly`, not `readOnly` on the read side). */
function projection(attributes: Record<string, unknown>, shape: ReturnType<typeof writeShape>, readOnly: Set<string>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(attributes).filter(([name]) => shape.members.includes(name) && !shape.writeOnly.includes(name) && !readOnly.has(name)),
  );
}

it('walks every path of the contract with a GET and a PATCH or PUT', () => {
  const fromContract = Object.values(document.paths).filter((item) => 'get' in item && ('patch' in item || 'put' in item)).length;
  expect(roundTripPaths.length).toBe(fromContract);
  expect(roundTripPaths.length).toBeGreaterThan(0);
});

it('lets every write take each value its GET can answer for the members they share (enums, null)', () => {
  const refused = new Set<string>();
  for (const { read, write } of roundTripPaths) {
    const shape = writeShape(write);
    const readOnly = readOnlyMembers(read);
    const writeSchema = (name: string) => {
      const operation = (document.paths[write.path] as Record<string, { requestBody?: unknown }>)[write.method]!;
      const body = resolveRef<Schema>(
        document,
        resolveRef<{ content: Record<string, { schema: Schema }> }>(document, operation.requestBody).content['application/json']!.schema,
      );
      const inner = shape.wrapper ? resolveRef<Schema>(document, body.properties![shape.wrapper]) : body;
      return inner.properties![name]!;
    };
    for (const [name, member] of readMembers(read)) {
      if (!shape.members.includes(name) || shape.writeOnly.includes(name) || readOnly.has(name)) continue;
      const answered = scalarValues(member);
      const accepted = scalarValues(writeSchema(name));
      const missing = [...answered.values].filter((value) => !accepted.values.has(value) && !(accepted.open && value !== null));
      if ((answered.open && !accepted.open) || missing.length > 0)
        refused.add(`${read.operationId} → ${write.operationId}: ${name} ${JSON.stringify(missing)}`);
    }
  }
  expect([...refused]).toEqual([]);
});

describe('GET → write, live, on the resources of every kind', () => {
  beforeAll(async () => {
    service = await startTestService({ jobs: 'work' });
    const tenant = await service.createAccount('Café Zürich & 咖啡');
    token = tenant.token;
    const owner = await joinAs(service, tenant.accountId, 'owner', 'Zoë Ångström');
    personSession = session(owner);
    // The account trusts an OpenID Provider (setSingleSignOn reads its discovery document).
    openIdProvider = await startOpenIdProvider('http://wallet.test/api/v1/sign-in/oidc/callback');
    const singleSignOn = {
      singleSignOn: {
        issuer: openIdProvider.issuer,
        clientId: openIdProvider.clientId,
        clientSecret: openIdProvider.clientSecret,
        roleClaim: 'groups',
        roleMapping: { Кассиры: 'support' },
        defaultRole: null,
      },
    };
    await service.api.put('/api/v1/single-sign-on').set(service.auth(token)).send(singleSignOn).expect(200);
    sentBodies.set('/api/v1/single-sign-on', singleSignOn);
    const entityId = await service.createEntity(tenant.accountId, 'Филиал Невский');
    ids.add(tenant.accountId).add(entityId);

    // Each kind of template, processed at once: loyalty, every member, transit, plain, and a
    // failed one (no icon), whose variant GET answers too.
    const templates = await Promise.all([
      createTemplate(service, token, loyaltyTemplate({ name: 'Карта гостя' })),
      createTemplate(service, token, fullTemplate({ name: 'قهوة' })),
      createTemplate(service, token, plainTemplate({ name: '乗車券', templateType: 'transit', images: { icon: ICON_PNG, logo: LOGO_PNG } })),
      createTemplate(service, token, plainTemplate({ name: 'Event' })),
      createTemplate(service, token, { name: 'Без значка', templateType: 'generic' }, true),
    ]);
    for (const id of templates) ids.add(id);
    const loyaltyId = templates[0]!;

    const passes = [
      await issuePass(
        service,
        token,
        loyaltyId,
        { pass: { member: 'Zoë' }, groupTags: ['vip', 'ß'], expiresAt: '2027-01-31T23:00:00Z' },
        { extId: 'member-42' },
      ),
      await issuePass(service, token, templates[3]!, { pass: {} }),
    ];
    for (const pass of passes) ids.add(pass.id);
    ids.add('member-42');

    const reader = await service.api
      .post(`/api/v1/entities/${entityId}/readers`)
      .set(service.auth(token))
      .send({ reader: { ...(operations.find((op) => op.operationId === 'createReader')!.bodyExample as { reader: object }).reader, name: 'Касса №1' } })
      .expect(201);
    ids.add(reader.body.data.id);

    // Set-up only: an app on the same runtime that lets a subscription point at a loopback receiver.
    const lenient = createApp({
      runtime: { ...service.runtime, config: { ...service.runtime.config, webhookAllowPrivate: true } },
      adminToken: service.adminToken,
    });
    const subscription = await supertest(lenient)
      .post('/api/v1/webhook-subscriptions')
      .set(service.auth(token))
      .send({ webhookSubscription: { url: 'http://127.0.0.1:9/hooks/round-trip', scopeType: 'organisation', subscribedEvents: ['passCreated'] } })
      .expect(201);
    ids.add(subscription.body.data.id);

    const certificates = testCertificates();
    const apple = {
      appleConfiguration: {
        teamIdentifier: TEAM_ID,
        organizationName: 'Café Zürich',
        certificate: certificates.certificatePem,
        privateKey: certificates.privateKeyPem,
        wwdrCertificate: certificates.wwdrCertificatePem,
      },
    };
    const appleUrl = `/admin/v1/accounts/${tenant.accountId}/apple-configurations/${PASS_TYPE_ID}`;
    await service.api.put(appleUrl).set(service.adminAuth()).send(apple).expect(201);
    sentBodies.set(appleUrl, apple);
    ids.add(PASS_TYPE_ID);

    const google = { googleConfiguration: { issuerId: ISSUER_ID, serviceAccountKey: serviceAccountKeyFile() } };
    const googleUrl = `/admin/v1/accounts/${tenant.accountId}/google-configuration`;
    await service.api.put(googleUrl).set(service.adminAuth()).send(google).expect(201);
    sentBodies.set(googleUrl, google);
    // Two minutes: the set-up processes five templates and configures Apple, Google and single sign-on.
  }, 120_000);
  afterAll(async () => {
    await openIdProvider?.close();
    await service.close();
  });

  describe.each(roundTripPaths.map((entry) => [`${entry.read.operationId} → ${entry.write.operationId}`, entry] as const))('%s', (_name, entry) => {
    it('accepts what GET answers back unchanged, and the state stays the same', async () => {
      const shape = writeShape(entry.write);
      const readOnly = readOnlyMembers(entry.read);
      const urls = await instances(entry);
      expect(urls.length).toBeGreaterThan(0);
      for (const url of urls) {
        const query = fullestQuery(entry.read);
        const before = await request(entry.read, 'get', `${url}${query}`).expect(200);
        const members = projection(before.body.data.attributes, shape, readOnly);
        if (Object.keys(members).length === 0) {
          // The write is a command that shares no member with the representation (updateLoyalty:
          // `balance` there is a change, not the balance): nothing to send back.
          expect(shape.members.filter((name) => name in before.body.data.attributes)).toEqual([]);
          continue;
        }
        const held = shape.wrapper ? sentBodies.get(url)?.[shape.wrapper] : undefined;
        const secrets = Object.fromEntries(shape.writeOnly.filter((name) => held?.[name] !== undefined).map((name) => [name, held![name]]));
        const inner = { ...members, ...secrets };
        const body = shape.wrapper ? { [shape.wrapper]: inner } : inner;
        const res = await request(entry.write, entry.write.method as 'patch' | 'put', url).send(body);
        expect({ url, status: res.status, errors: res.body.errors }).toEqual({ url, status: 200, errors: undefined });
        const after = await request(entry.read, 'get', `${url}${query}`).expect(200);
        expect(projection(after.body.data.attributes, shape, readOnly)).toEqual(members);
      }
    });
  });
});
