/**
 * Scopes and audit events, generated from the contract (generated/openapi.json): every `/api/v1`
 * operation × a key lacking one of its scopes → 403 `insufficient_scope`; × a key with exactly
 * its scopes → not 403; every state-changing operation leaves exactly one audit event, whose
 * changes are its target's members before → after; no secret appears in any event. One in-process
 * service for the file.
 */
import supertest from 'supertest';
import { randomUUID } from 'node:crypto';
import type { Response } from 'supertest';
import { contractOperations, validRequest, type ContractOperation } from './support/contractOperations.ts';
import { createTemplate, issuePass, plainTemplate } from './support/passes.ts';
import { startTestService, type TestService } from './support/testService.ts';
import { SCOPES } from '../src/security/principal.ts';
import { sessionSource } from './support/people.ts';

let service: TestService;
let accountId: string;
let secretKey: string;
/** A fresh session of a signed-in person per call (the operations that take only the cookie). */
let freshSession: () => Promise<Record<string, string>>;
const operations = contractOperations();
// sendMcpMessage (POST /mcp) needs a key but no scope: any key may connect, and the tools it lists
// and calls are those its scopes allow (src/mcp/scopes.ts; test/mcp.test.ts).
const scoped = operations.filter((op) => op.auth === 'bearerAuth' && op.scopes.length > 0);
const keysByScopes = new Map<string, string>();

beforeAll(async () => {
  // Job workers process the templates the before → after tests issue passes from.
  service = await startTestService({ jobs: 'work' });
  ({ accountId, token: secretKey } = await service.createAccount('Scopes'));
  freshSession = await sessionSource(service, accountId);
});
afterAll(() => service.close());

/** A restricted key holding exactly `scopes` (made once per set). */
async function keyWith(scopes: string[]): Promise<string> {
  const id = [...scopes].sort().join(' ');
  const known = keysByScopes.get(id);
  if (known) return known;
  const res = await service.api
    .post(`/admin/v1/accounts/${accountId}/tokens`)
    .set(service.adminAuth())
    .send({ apiToken: { name: `only ${id}`.slice(0, 200), kind: 'restricted', scopes } })
    .expect(201);
  keysByScopes.set(id, res.body.data.attributes.token);
  return res.body.data.attributes.token;
}

/** Sends `op`'s request built from the contract with `key`, the administration token, or a person's session. */
async function send(op: ContractOperation, key: string | 'admin' | 'person') {
  const built = validRequest(op);
  // Not the agent for a person's session: an agent's cookie jar would replace the Cookie header.
  const req = (key === 'person' ? supertest(service.app) : service.api)
    [built.method as 'get'](built.url)
    .set(built.headers)
    .set(key === 'admin' ? service.adminAuth() : key === 'person' ? await freshSession() : service.auth(key));
  return built.body === undefined ? req : req.send(built.body as object);
}

/** The audit events of one request, by its `X-Request-Id`. */
async function eventsOf(res: Response): Promise<Record<string, unknown>[]> {
  return service.runtime.db.sql.$queryRaw<Record<string, unknown>[]>`SELECT * FROM audit_events WHERE request_id = ${res.headers['x-request-id']}`;
}

test('every /api/v1 operation names its scopes, each a scope of the bearer scheme', () => {
  expect(operations.filter((op) => op.auth === 'bearerAuth' && op.scopes.length === 0).map((op) => op.operationId)).toEqual(['sendMcpMessage']);
  // Except a CORS preflight (`options`), which a browser sends without a key (Fetch Standard,
  // https://fetch.spec.whatwg.org/#cors-preflight-fetch): `security: []`, no scope, no 403 insufficient_scope.
  const preflights = operations.filter((op) => op.method === 'options');
  expect(preflights.map((op) => [op.operationId, op.auth])).toEqual([['preflightCreatePass', 'none']]);
  const api = operations.filter((op) => op.path.startsWith('/api/v1/') && op.method !== 'options');
  // But signing in (no credentials yet) and what a person does with their own session, passkeys,
  // password and second factor: the cookie only, no scope.
  const signIn = ['signInWithPassword', 'createPasskeySignInOptions', 'signInWithPasskey', 'startSingleSignOn', 'finishSingleSignOn'];
  const invitations = ['createInvitationAcceptanceOptions', 'acceptInvitation'];
  expect(
    api
      .filter((op) => op.auth === 'none')
      .map((op) => op.operationId)
      .sort(),
  ).toEqual([...signIn, ...invitations].sort());
  const own = api.filter((op) => op.auth === 'sessionCookie');
  expect(own.filter((op) => !op.path.startsWith('/api/v1/me/') && op.path !== '/api/v1/session').map((op) => op.operationId)).toEqual([]);
  expect(own.filter((op) => op.scopes.length > 0).map((op) => op.operationId)).toEqual([]);
  const scopedApi = api.filter((op) => op.auth !== 'none' && op.auth !== 'sessionCookie');
  expect(scopedApi.filter((op) => op.auth !== 'bearerAuth' || op.scopes.length === 0).map((op) => op.operationId)).toEqual([]);
  // A person signed in to the console calls every scoped operation with the cookie, their role's scopes checked.
  expect(scopedApi.filter((op) => !op.sessionCookie).map((op) => op.operationId)).toEqual([]);
  expect(api.flatMap((op) => op.scopes).filter((scope) => !(SCOPES as readonly string[]).includes(scope))).toEqual([]);
  expect(scopedApi.filter((op) => !op.statuses.includes(403)).map((op) => op.operationId)).toEqual([]);
});

describe.each(scoped.map((op) => [op.operationId, op] as const))('%s', (_id, op) => {
  test.each(op.scopes)('a key lacking %s gets 403 insufficient_scope naming the scopes', async (lacking) => {
    const key = await keyWith(SCOPES.filter((scope) => scope !== lacking));
    const res = await send(op, key);
    expect(res.status).toBe(403);
    expect(res.body.errors[0]).toMatchObject({ status: '403', code: 'insufficient_scope' });
    expect(res.body.errors[0].detail).toContain(lacking);
    expect(res.headers['www-authenticate']).toBe(`Bearer realm="wallet-pass-service", error="insufficient_scope", scope="${op.scopes.join(' ')}"`);
  });

  test('a key with exactly its scopes is not refused for scope', async () => {
    // createApiKey: the key also needs the scopes the new key asks for (no key wider than its maker).
    const asked = ((op.bodyExample as { apiToken?: { scopes?: string[] } } | undefined)?.apiToken?.scopes ?? []).filter((scope) => !op.scopes.includes(scope));
    const res = await send(op, await keyWith(op.operationId === 'createApiKey' ? [...op.scopes, ...asked] : op.scopes));
    expect(res.status).not.toBe(403);
  });
});

describe('audit events', () => {
  const audited = operations.filter((op) => op.audited);

  test.each(audited.map((op) => [op.operationId, op] as const))('%s leaves exactly one audit event', async (_id, op) => {
    const res = await send(op, op.auth === 'adminAuth' ? 'admin' : op.auth === 'sessionCookie' ? 'person' : await keyWith(op.scopes));
    const events = await eventsOf(res);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      operation_id: op.operationId,
      outcome: res.status < 400 ? 'success' : 'failure',
      status: res.status < 400 ? null : res.status,
      actor_type: op.auth === 'adminAuth' ? 'administrator' : op.auth === 'sessionCookie' ? 'person' : 'api_key',
    });
  });

  test('reads leave no event; a refused scope leaves a failure event', async () => {
    const read = await service.api.get('/api/v1/passes').set(service.auth(secretKey)).expect(200);
    expect(await eventsOf(read)).toHaveLength(0);
    const refused = await service.api
      .post('/api/v1/webhook-subscriptions')
      .set(service.auth(await keyWith(['passes:read'])))
      .send({})
      .expect(403);
    expect(await eventsOf(refused)).toMatchObject([{ outcome: 'failure', status: 403, operation_id: 'createWebhookSubscription' }]);
  });

  test('a change commits with its event: the target, the members set, the actor', async () => {
    const entityId = await service.createEntity(accountId, 'Audited entity');
    const key = await keyWith(['readers:write']);
    const res = await service.api
      .post(`/api/v1/entities/${entityId}/readers`)
      .set(service.auth(key))
      .set('User-Agent', 'audit-test/1.0')
      .send({ reader: { id: 'front-door', name: 'Front door', type: 'PartnerReader', password: 'correct-horse-battery' } });
    expect(res.status).toBe(201);
    const [event] = await eventsOf(res);
    expect(event).toMatchObject({
      operation_id: 'createReader',
      resource_type: 'readers',
      resource_id: res.body.data.id,
      actor_kind: 'restricted',
      actor_name: 'only readers:write',
      channel: 'api',
      user_agent: 'audit-test/1.0',
      outcome: 'success',
      changes: { id: { after: 'front-door' }, name: { after: 'Front door' }, type: { after: 'PartnerReader' }, password: { after: '[secret]' } },
    });
    expect(JSON.stringify(event)).not.toContain('correct-horse-battery');
  });

  test('pass update, loyalty, template update and nullify record exactly the members they changed, before → after', async () => {
    const templateId = await createTemplate(service, secretKey, plainTemplate());
    const pass = await issuePass(service, secretKey, templateId, { pass: { guest: 'Ada' } }, { extId: 'audited-pass' });
    const changesOf = async (res: Response) => {
      const events = await eventsOf(res);
      expect(events).toHaveLength(1);
      return events[0]!.changes;
    };

    const updated = await service.api
      .patch('/api/v1/passes/audited-pass')
      .set(service.auth(secretKey))
      .send({ groupTags: ['vip'], pass: { guest: 'Grace' } })
      .expect(200);
    expect(await changesOf(updated)).toEqual({ 'content.guest': { before: 'Ada', after: 'Grace' }, groupTags: { before: [], after: ['vip'] } });

    const loyalty = await service.api.patch(`/api/v1/loyalty/${pass.id}`).set(service.auth(secretKey)).send({ balance: 5, message: 'Welcome' }).expect(200);
    expect(await changesOf(loyalty)).toEqual({ balance: { before: 0, after: 5 }, latestMessage: { before: null, after: 'Welcome' } });

    const renamed = await service.api
      .patch(`/api/v1/pass-templates/${templateId}`)
      .set(service.auth(secretKey))
      .send({ passTemplate: { name: 'Event pass 2027' } })
      .expect(200);
    expect(await changesOf(renamed)).toEqual({ name: { before: 'Event pass', after: 'Event pass 2027' } });

    const nullified = await service.api.post(`/api/v1/passes/${pass.id}/nullify`).set(service.auth(secretKey)).expect(200);
    expect(await changesOf(nullified)).toMatchObject({
      status: { before: 'issued', after: 'nullified' },
      nullifiedAt: { before: null, after: expect.any(String) },
      'content.guest': { before: 'Grace' },
    });

    // A reader's new password: its stored hash is named, not shown.
    const entityId = await service.createEntity(accountId, 'Audited passwords');
    await service.api
      .post(`/api/v1/entities/${entityId}/readers`)
      .set(service.auth(secretKey))
      .send({ reader: { id: 'back-door', name: 'Back door', type: 'PartnerReader', password: 'correct-horse-battery' } })
      .expect(201);
    const password = await service.api
      .patch('/api/v1/readers/back-door')
      .set(service.auth(secretKey))
      .send({ reader: { name: 'Back gate', password: 'staple-battery-horse' } })
      .expect(200);
    expect(await changesOf(password)).toEqual({ name: { before: 'Back door', after: 'Back gate' }, passwordHash: { before: '[secret]', after: '[secret]' } });
  });

  test('a request the browser sends from the console is marked console; one from elsewhere api', async () => {
    const entityId = await service.createEntity(accountId, 'Channels');
    const create = (id: string, headers: Record<string, string>) =>
      service.api
        .post(`/api/v1/entities/${entityId}/readers`)
        .set(service.auth(secretKey))
        .set(headers)
        .send({ reader: { id, name: id, type: 'PartnerReader', password: 'correct-horse-battery' } })
        .expect(201);
    const fromConsole = await create('console-till', { 'Sec-Fetch-Site': 'same-origin', Referer: 'http://wallet.test/console/' });
    const fromSite = await create('site-till', { 'Sec-Fetch-Site': 'cross-site', Referer: 'https://shop.example/console/' });
    expect((await eventsOf(fromConsole))[0]).toMatchObject({ channel: 'console' });
    expect((await eventsOf(fromSite))[0]).toMatchObject({ channel: 'api' });
  });

  test('no secret appears in any event: keys, tokens, webhook secrets, private keys are named, not shown', async () => {
    const created = await service.api
      .post(`/admin/v1/accounts/${accountId}/tokens`)
      .set(service.adminAuth())
      .send({ apiToken: { name: 'secret test' } })
      .expect(201);
    // A public address literal: no name to resolve on a closed network.
    const hook = await service.api
      .post('/api/v1/webhook-subscriptions')
      .set(service.auth(secretKey))
      .send({ webhookSubscription: { url: 'https://93.184.215.14/wallet', subscribedEvents: ['passCreated'] } })
      .expect(201);
    const rotated = await service.api.patch(`/api/v1/webhook-subscriptions/${hook.body.data.id}/rotate-secret`).set(service.auth(secretKey)).expect(200);
    expect(await eventsOf(rotated)).toMatchObject([{ changes: { secretEncrypted: { before: '[secret]', after: '[secret]' } } }]);
    const everything = JSON.stringify(await service.runtime.db.sql.$queryRaw`SELECT * FROM audit_events`);
    expect(everything).not.toContain(created.body.data.attributes.token);
    expect(everything).not.toContain(secretKey);
    expect(everything).not.toContain(service.adminToken);
    expect(everything).not.toMatch(/wp[sa]_[A-Za-z0-9_-]{20,}/);
    expect(everything).not.toMatch(/BEGIN [A-Z ]*PRIVATE KEY/);
    for (const answer of [hook, rotated]) expect(everything).not.toContain(answer.body.data.attributes.secretKey);
    // A secret member is named: the Apple configuration's private key.
    const apple = await service.runtime.db.sql.$queryRaw<{ changes: Record<string, unknown> }[]>`
      SELECT changes FROM audit_events WHERE operation_id = 'setAppleConfiguration' LIMIT 1`;
    if (apple[0] && 'privateKey' in apple[0].changes) expect(apple[0].changes.privateKey).toEqual({ after: '[secret]' });
  });
});

describe('GET /api/v1/audit-events', () => {
  test('filters by resource, actor and operation, pages by cursor, exports NDJSON and CSV', async () => {
    const entityId = await service.createEntity(accountId, 'History');
    const key = await keyWith(['readers:write', 'readers:read']);
    const ids: string[] = [];
    for (const name of ['One', 'Two', 'Three']) {
      const res = await service.api
        .post(`/api/v1/entities/${entityId}/readers`)
        .set(service.auth(key))
        .send({ reader: { id: `till-${name}`, name, type: 'PartnerReader', password: 'correct-horse-battery' } })
        .expect(201);
      ids.push(res.body.data.id);
    }
    await service.api
      .patch(`/api/v1/readers/${ids[0]}`)
      .set(service.auth(key))
      .send({ reader: { name: 'One bis' } })
      .expect(200);
    const auditor = await keyWith(['audit:read']);

    const history = await service.api.get(`/api/v1/audit-events?resource=readers&resourceId=${ids[0]}`).set(service.auth(auditor)).expect(200);
    expect(history.body.data.map((e: { attributes: { operationId: string } }) => e.attributes.operationId)).toEqual(['updateReader', 'createReader']);

    const first = await service.api.get('/api/v1/audit-events?operation=createReader&limit=2').set(service.auth(auditor)).expect(200);
    expect(first.body.data).toHaveLength(2);
    expect(first.body.links.next).toEqual(expect.stringContaining('cursor='));
    const next = new URL(first.body.links.next);
    const second = await service.api.get(`${next.pathname}${next.search}`).set(service.auth(auditor)).expect(200);
    const seen = [...first.body.data, ...second.body.data].map((e: { id: string }) => e.id);
    expect(new Set(seen).size).toBe(seen.length);

    const byActor = await service.api.get(`/api/v1/audit-events?operation=createReader&format=ndjson&limit=1000`).set(service.auth(auditor)).expect(200);
    expect(byActor.headers['content-type']).toMatch(/^application\/x-ndjson/);
    const lines = byActor.text
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines.length).toBeGreaterThanOrEqual(3);
    const actorId = lines[0].attributes.actor.id;
    const filtered = await service.api.get(`/api/v1/audit-events?actor=${actorId}`).set(service.auth(auditor)).expect(200);
    expect(filtered.body.data.every((e: { attributes: { actor: { id: string } } }) => e.attributes.actor.id === actorId)).toBe(true);

    const csv = await service.api.get('/api/v1/audit-events?operation=updateReader').set(service.auth(auditor)).set('Accept', 'text/csv').expect(200);
    expect(csv.headers['content-type']).toMatch(/^text\/csv/);
    expect(csv.text.split('\r\n')[0]).toMatch(/^id,occurredAt,sequence,actorType/);

    const future = await service.api
      .get(`/api/v1/audit-events?since=${encodeURIComponent(new Date(Date.now() + 86_400_000).toISOString())}`)
      .set(service.auth(auditor))
      .expect(200);
    expect(future.body.data).toEqual([]);
  });

  test('an account sees only its own events; the administration API sees every account', async () => {
    const other = await service.createAccount('Other');
    await service.api.post('/api/v1/webhook-subscriptions').set(service.auth(other.token)).send({});
    const mine = await service.api.get('/api/v1/audit-events?limit=100').set(service.auth(secretKey)).expect(200);
    expect(JSON.stringify(mine.body)).not.toContain(other.tokenId);
    const all = await service.api.get(`/admin/v1/audit-events?account=${other.accountId}`).set(service.adminAuth()).expect(200);
    expect(all.body.data.length).toBeGreaterThan(0);
    expect(all.body.data.every((e: { attributes: { accountId: string } }) => e.attributes.accountId === other.accountId)).toBe(true);
  });

  test('a bad cursor is a 400 naming it', async () => {
    const res = await service.api.get('/api/v1/audit-events?cursor=bm90LWEtY3Vyc29y').set(service.auth(secretKey)).expect(400);
    expect(res.body.errors[0].source).toEqual({ parameter: 'cursor' });
  });
});

describe('the hash chain', () => {
  test('verifies, and events are append-only', async () => {
    const { verifyAuditChainsOf } = await import('./support/auditChains.ts');
    const verdicts = await verifyAuditChainsOf(service);
    expect(verdicts.filter((v) => v.broken)).toEqual([]);
    await expect(service.runtime.db.sql.$executeRaw`UPDATE audit_events SET outcome = 'success'`).rejects.toThrow(/append-only/);
    await expect(service.runtime.db.sql.$executeRaw`DELETE FROM audit_events`).rejects.toThrow(/append-only/);
  });

  test('an event commits with its change unsealed; the sealer gives it the next place, and sealing is the one update allowed', async () => {
    const templateId = await createTemplate(service, secretKey, plainTemplate());
    const pass = await issuePass(service, secretKey, templateId, { pass: { guest: 'Łucja' } });
    // Ten changes of one balance at once: each writes its event in its own statement, none waits for the chain.
    const changes = await Promise.all(
      Array.from({ length: 10 }, () => service.api.patch(`/api/v1/loyalty/${pass.id}`).set(service.auth(secretKey)).send({ balance: 1 })),
    );
    expect(changes.map((res) => res.status)).toEqual(Array(10).fill(200));
    const events = (await Promise.all(changes.map(eventsOf))).flat();
    expect(events).toHaveLength(10);
    const balances = events.map((event) => (event.changes as { balance: { before: number; after: number } }).balance);
    expect(balances.map((b) => b.after - b.before)).toEqual(Array(10).fill(1));
    expect(new Set(balances.map((b) => b.after))).toEqual(new Set(Array.from({ length: 10 }, (_, i) => i + 1)));

    // Reading the log seals whatever is not sealed yet: every event then has its place, one after another.
    const listed = await service.api
      .get('/api/v1/audit-events')
      .query({ resource: 'loyalty', resourceId: pass.id, limit: 100 })
      .set(service.auth(secretKey))
      .expect(200);
    expect(listed.body.data).toHaveLength(10);
    const unsealed = await service.runtime.db.sql.$queryRaw<{ n: number }[]>`
      SELECT count(*)::int AS n FROM audit_events WHERE account_id = ${accountId}::uuid AND hash IS NULL`;
    expect(unsealed[0]!.n).toBe(0);
    const sequences = listed.body.data.map((event: { attributes: { sequence: number } }) => event.attributes.sequence).sort((a: number, b: number) => a - b);
    expect(sequences[9] - sequences[0]).toBe(9);

    // An unsealed event may be sealed once, changing nothing else; a sealed one never again.
    const id = randomUUID();
    await service.runtime.db.sql.$executeRaw`INSERT INTO audit_events (id, account_id, occurred_at, actor_type, channel, operation_id,
      resource_type, changes, outcome) VALUES (${id}::uuid, ${accountId}::uuid, now(), 'administrator', 'admin', 'test', 'passes', '{}', 'success')`;
    await expect(
      service.runtime.db.sql
        .$executeRaw`UPDATE audit_events SET seq = 1000000, prev_hash = '\\x00', hash = '\\x00', outcome = 'failure' WHERE id = ${id}::uuid`,
    ).rejects.toThrow(/append-only/);
    await expect(service.runtime.db.sql.$executeRaw`UPDATE audit_events SET outcome = 'failure' WHERE id = ${id}::uuid`).rejects.toThrow(/append-only/);
    const { verifyAuditChainsOf } = await import('./support/auditChains.ts');
    expect((await verifyAuditChainsOf(service)).filter((v) => v.broken)).toEqual([]);
    await expect(service.runtime.db.sql.$executeRaw`UPDATE audit_events SET seq = seq + 1000000 WHERE id = ${id}::uuid`).rejects.toThrow(/append-only/);
  });

  test('a loyalty update with an Idempotency-Key writes its event in the key’s transaction, once however often it is replayed', async () => {
    const templateId = await createTemplate(service, secretKey, plainTemplate());
    const pass = await issuePass(service, secretKey, templateId, { pass: { guest: 'Ada' } });
    const send = () =>
      service.api.patch(`/api/v1/loyalty/${pass.id}`).set(service.auth(secretKey)).set('Idempotency-Key', `loyalty-${pass.id}`).send({ balance: 7 });
    await send().expect(200);
    await send().expect(200);
    const events = await service.runtime.db.sql.$queryRaw<{ changes: unknown }[]>`
      SELECT changes FROM audit_events WHERE operation_id = 'updateLoyalty' AND resource_id = ${pass.id}`;
    expect(events).toEqual([{ changes: { balance: { before: 0, after: 7 } } }]);
  });

  test('retention deletes the events past AUDIT_RETENTION_DAYS and the chains still verify from their anchor', async () => {
    const { pruneAuditEvents } = await import('../src/domain/audit/auditRetention.ts');
    const count = async () => Number((await service.runtime.db.sql.$queryRaw<{ n: number }[]>`SELECT count(*)::int AS n FROM audit_events`)[0]!.n);
    await service.createEntity(accountId, 'Old');
    await service.createEntity(accountId, 'Older');
    const before = await count();
    const [middle] = await service.runtime.db.sql.$queryRaw<{ occurred_at: Date }[]>`
      SELECT occurred_at FROM audit_events ORDER BY occurred_at OFFSET ${Math.floor(before / 2)} LIMIT 1`;
    const deleted = await pruneAuditEvents(service.runtime.db, new Date(middle!.occurred_at.getTime() + 1 + 400 * 86_400_000), 400);
    expect(deleted).toBeGreaterThan(0);
    expect(await count()).toBe(before - deleted);
    const { verifyAuditChainsOf } = await import('./support/auditChains.ts');
    const verdicts = await verifyAuditChainsOf(service);
    expect(verdicts.filter((v) => v.broken)).toEqual([]);
    const heads = await service.runtime.db.sql.$queryRaw<{ account_id: string; anchor_seq: number; anchor_hash: Buffer }[]>`
      SELECT account_id, anchor_seq::int AS anchor_seq, anchor_hash FROM audit_chain_heads WHERE anchor_seq > 0`;
    expect(heads.length).toBeGreaterThan(0);
    for (const head of heads) {
      const [first] = await service.runtime.db.sql.$queryRaw<{ seq: number; prev_hash: Buffer }[]>`
        SELECT seq::int AS seq, prev_hash FROM audit_events WHERE account_id = ${head.account_id}::uuid ORDER BY seq LIMIT 1`;
      if (first)
        expect({ seq: first.seq, prev: Buffer.from(first.prev_hash).toString('hex') }).toEqual({
          seq: head.anchor_seq + 1,
          prev: Buffer.from(head.anchor_hash).toString('hex'),
        });
    }
  });
});

describe('restricted keys', () => {
  test('an expired key is refused with 401; an address outside its ranges too', async () => {
    const now = Date.now();
    const soon = new Date(now + 60_000).toISOString();
    const res = await service.api
      .post(`/admin/v1/accounts/${accountId}/tokens`)
      .set(service.adminAuth())
      .send({ apiToken: { kind: 'restricted', scopes: ['passes:read'], allowedCidrs: ['203.0.113.0/24'], expiresAt: soon } })
      .expect(201);
    expect(res.body.data.attributes).toMatchObject({ kind: 'restricted', scopes: ['passes:read'], allowedCidrs: ['203.0.113.0/24'] });
    const refused = await service.api.get('/api/v1/passes').set(service.auth(res.body.data.attributes.token)).expect(401);
    expect(refused.body.errors[0].detail).toMatch(/address/);
    const local = await service.api
      .post(`/admin/v1/accounts/${accountId}/tokens`)
      .set(service.adminAuth())
      .send({ apiToken: { kind: 'restricted', scopes: ['passes:read'], allowedCidrs: ['127.0.0.0/8', '::1/128'] } })
      .expect(201);
    await service.api.get('/api/v1/passes').set(service.auth(local.body.data.attributes.token)).expect(200);
  });

  test('a key limited to an entity may not reach another, nor operations naming none', async () => {
    const allowed = await service.createEntity(accountId, 'Allowed');
    const other = await service.createEntity(accountId, 'Other');
    const res = await service.api
      .post(`/admin/v1/accounts/${accountId}/tokens`)
      .set(service.adminAuth())
      .send({ apiToken: { kind: 'restricted', scopes: ['readers:read', 'entities:read'], entities: [allowed] } })
      .expect(201);
    const key = res.body.data.attributes.token;
    await service.api.get(`/api/v1/entities/${allowed}/readers`).set(service.auth(key)).expect(200);
    await service.api.get(`/api/v1/entities/${other}/readers`).set(service.auth(key)).expect(403);
    await service.api.get('/api/v1/entities').set(service.auth(key)).expect(403);
  });

  test('members a kind does not take, unknown scopes and past expiries are 400s naming them', async () => {
    const bad = await service.api
      .post(`/admin/v1/accounts/${accountId}/tokens`)
      .set(service.adminAuth())
      .send({ apiToken: { kind: 'secret', scopes: ['passes:read'] } })
      .expect(400);
    expect(bad.body.errors[0].source).toEqual({ pointer: '/apiToken/scopes' });
    const past = await service.api
      .post(`/admin/v1/accounts/${accountId}/tokens`)
      .set(service.adminAuth())
      .send({ apiToken: { kind: 'restricted', scopes: ['passes:read'], expiresAt: '2020-01-01T00:00:00Z' } })
      .expect(400);
    expect(past.body.errors[0].source).toEqual({ pointer: '/apiToken/expiresAt' });
    const cidr = await service.api
      .post(`/admin/v1/accounts/${accountId}/tokens`)
      .set(service.adminAuth())
      .send({ apiToken: { kind: 'restricted', scopes: ['passes:read'], allowedCidrs: ['300.1.1.1/8'] } })
      .expect(400);
    expect(cidr.body.errors[0].source).toEqual({ pointer: '/apiToken/allowedCidrs' });
  });

  test('keys list their kind, scopes, creation and last use, never the secret', async () => {
    const list = await service.api.get(`/admin/v1/accounts/${accountId}/tokens?perPage=100`).set(service.adminAuth()).expect(200);
    const first = list.body.data[0].attributes;
    expect(first).toMatchObject({ kind: 'secret', scopes: [...SCOPES], createdAt: expect.any(String), lastUsedAt: expect.any(String) });
    expect(JSON.stringify(list.body)).not.toMatch(/"token"/);
  });
});

describe('publishable keys', () => {
  test('may only issue passes from their templates, with an Idempotency-Key', async () => {
    const template = randomUUID();
    const res = await service.api
      .post(`/admin/v1/accounts/${accountId}/tokens`)
      .set(service.adminAuth())
      .send({ apiToken: { kind: 'publishable', passTemplates: [template], allowedOrigins: ['https://shop.example'] } })
      .expect(201);
    const key = res.body.data.attributes.token as string;
    expect(key).toMatch(/^wps_pk_[A-Za-z0-9_-]{40}$/);
    expect(res.body.data.attributes.scopes).toEqual(['passes:write']);
    await service.api.get('/api/v1/passes').set(service.auth(key)).expect(403);
    await service.api.patch(`/api/v1/passes/${randomUUID()}`).set(service.auth(key)).send({}).expect(403);
    await service.api.post(`/api/v1/passes?passTemplate=${randomUUID()}`).set(service.auth(key)).set('Idempotency-Key', randomUUID()).send({}).expect(403);
    const noKey = await service.api.post(`/api/v1/passes?passTemplate=${template}`).set(service.auth(key)).send({}).expect(400);
    expect(noKey.body.errors[0].source).toEqual({ header: 'Idempotency-Key' });
    // Its own template: past authorization, the operation answers (here: the body is invalid).
    const own = await service.api.post(`/api/v1/passes?passTemplate=${template}`).set(service.auth(key)).set('Idempotency-Key', randomUUID()).send({});
    expect(own.status).not.toBe(403);
  });

  test('CORS: a preflight and a request from an origin the key names are answered, from another refused with no CORS header', async () => {
    const template = randomUUID();
    const res = await service.api
      .post(`/admin/v1/accounts/${accountId}/tokens`)
      .set(service.adminAuth())
      .send({ apiToken: { kind: 'publishable', passTemplates: [template], allowedOrigins: ['https://signup.example'] } })
      .expect(201);
    const key = res.body.data.attributes.token as string;
    const preflight = (origin: string) =>
      service.api
        .options('/api/v1/passes')
        .set('Origin', origin)
        .set('Access-Control-Request-Method', 'POST')
        .set('Access-Control-Request-Headers', 'authorization, content-type, idempotency-key');
    const allowed = await preflight('https://signup.example').expect(204);
    expect(allowed.headers).toMatchObject({
      'access-control-allow-origin': 'https://signup.example',
      'access-control-allow-methods': 'POST',
      'access-control-allow-headers': 'Authorization, Content-Type, Idempotency-Key',
    });
    const refused = await preflight('https://elsewhere.example').expect(403);
    expect(refused.headers['access-control-allow-origin']).toBeUndefined();
    expect(refused.body.errors[0]).toMatchObject({ code: 'origin_not_allowed', source: { header: 'Origin' } });
    // The page's query (the template to issue from) is the preflight's too, and not read.
    await preflight('https://signup.example').query({ passTemplate: template }).expect(204);
    // Not a preflight of createPass: no CORS answer, a 400 naming the header.
    const otherMethod = await preflight('https://signup.example').set('Access-Control-Request-Method', 'DELETE').expect(400);
    expect(otherMethod.headers['access-control-allow-origin']).toBeUndefined();
    expect(otherMethod.body.errors[0]).toMatchObject({ code: 'validation_failed', source: { header: 'Access-Control-Request-Method' } });
    const noOrigin = await service.api.options('/api/v1/passes').set('Access-Control-Request-Method', 'POST').expect(400);
    expect(noOrigin.body.errors[0]).toMatchObject({ code: 'validation_failed', source: { header: expect.stringMatching(/^origin$/i) } });

    const issue = (origin: string) =>
      service.api.post(`/api/v1/passes?passTemplate=${template}`).set(service.auth(key)).set('Origin', origin).set('Idempotency-Key', randomUUID()).send({});
    const elsewhere = await issue('https://elsewhere.example').expect(403);
    expect(elsewhere.headers['access-control-allow-origin']).toBeUndefined();
    expect(elsewhere.body.errors[0].code).toBe('origin_not_allowed');
    // From its origin, even an error answer (here: the body is invalid) can be read by the page.
    const own = await issue('https://signup.example');
    expect(own.status).not.toBe(403);
    expect(own.headers['access-control-allow-origin']).toBe('https://signup.example');
    // A secret key's answers carry no CORS header: it does not belong in a page.
    const secret = await service.api.get('/api/v1/passes').set(service.auth(secretKey)).set('Origin', 'https://signup.example').expect(200);
    expect(secret.headers['access-control-allow-origin']).toBeUndefined();
  });
});
