/**
 * Readers (spec §2.5, §4.8, §4.10, §4.11): createReader, listReaders, getReader and updateReader through HTTP
 * on a real database, responses validated against the contract. Also the reader password hashing
 * (src/security/passwords.ts) and `markReaderSeen`, the store function the scan operations use.
 */
import type { Response } from 'supertest';
import { readFile } from 'node:fs/promises';
import { hashPassword, SCRYPT_COST, verifyPassword } from '../src/security/passwords.ts';
import { markReaderSeen } from '../src/domain/readers/readerStore.ts';
import { startTestService, type TestService } from './support/testService.ts';

let service: TestService;
let tenant: { accountId: string; token: string };
let other: { accountId: string; token: string };
let entityId: string;
let secondEntityId: string;
let otherEntityId: string;

const UNKNOWN_ENTITY = '0194f3a2-7c1e-7a51-9d7e-0b6a2f1c9e10';
/** Every password sent in this file: none may appear in a response or a log line. */
const passwords: string[] = [];
/** Every response body received, as text. */
const responseTexts: string[] = [];

function remember(res: Response): Response {
  responseTexts.push(res.text);
  return res;
}

function password(label: string): string {
  const value = `pw-${label}-${Math.random().toString(36).slice(2)}-Secret`;
  passwords.push(value);
  return value;
}

function readerBody(id: string, overrides: Record<string, unknown> = {}) {
  return { reader: { id, name: `Reader ${id}`, type: 'PartnerReader', password: password(id), ...overrides } };
}

async function createReader(id: string, overrides: Record<string, unknown> = {}, entity = entityId, token = tenant.token) {
  return remember(await service.api.post(`/api/v1/entities/${entity}/readers`).set(service.auth(token)).send(readerBody(id, overrides)));
}

async function getReader(id: string, token = tenant.token) {
  return remember(await service.api.get(`/api/v1/readers/${id}`).set(service.auth(token)));
}

async function updateReader(id: string, reader: Record<string, unknown>, token = tenant.token) {
  return remember(await service.api.patch(`/api/v1/readers/${id}`).set(service.auth(token)).send({ reader }));
}

function storedReader(publicId: string, accountId = tenant.accountId) {
  return service.database.db.prisma.reader.findUniqueOrThrow({ where: { accountId_publicId: { accountId, publicId } } });
}

beforeAll(async () => {
  service = await startTestService();
  tenant = await service.createAccount('Acme Coffee');
  other = await service.createAccount('Other Tenant');
  entityId = await service.createEntity(tenant.accountId, 'Soho');
  secondEntityId = await service.createEntity(tenant.accountId, 'Camden');
  otherEntityId = await service.createEntity(other.accountId, 'Not yours');
});
afterAll(() => service.close());

describe('createReader', () => {
  it('creates a reader: 201, Location, no lastSeenAt, not logged in', async () => {
    const res = await createReader('soho-till-1', {
      name: 'Soho front till',
      scanEnabled: true,
      redeemEnabled: false,
      addPointsEnabled: true,
      mifareClassicNfcEnabled: false,
      qrEnabled: true,
    });
    expect(res.status).toBe(201);
    expect(res.headers.location).toBe('http://wallet.test/api/v1/readers/soho-till-1');
    expect(res.body).toEqual({
      data: {
        id: 'soho-till-1',
        type: 'reader',
        attributes: {
          name: 'Soho front till',
          readerType: 'ServiceReader',
          loggedIn: false,
          qrEnabled: true,
          mifareClassicNfcEnabled: false,
          scanEnabled: true,
          redeemEnabled: false,
          addPointsEnabled: true,
          ndefTagScanningEnabled: false,
        },
      },
    });
    expect(res.body.data.attributes).not.toHaveProperty('lastSeenAt');
    await getReader('soho-till-1').then((r) => expect(r.status).toBe(200));
  });

  it.each([
    ['PartnerReader', 'ServiceReader'],
    ['ServiceReader', 'ServiceReader'],
    ['PassentryReader', 'PassentryReader'],
    ['VtapReader', 'VtapReader'],
  ])('maps type %s to readerType %s', async (type, readerType) => {
    const res = await createReader(`type-${type}`, { type });
    expect(res.status).toBe(201);
    expect(res.body.data.attributes.readerType).toBe(readerType);
    expect((await getReader(`type-${type}`)).body.data.attributes.readerType).toBe(readerType);
  });

  it('defaults scanEnabled to true and every other flag, ndefTagScanningEnabled included, to false', async () => {
    const res = await createReader('defaults');
    expect(res.status).toBe(201);
    expect(res.body.data.attributes).toMatchObject({
      scanEnabled: true,
      redeemEnabled: false,
      addPointsEnabled: false,
      mifareClassicNfcEnabled: false,
      qrEnabled: false,
      ndefTagScanningEnabled: false,
    });
  });

  it('sets ndefTagScanningEnabled when given', async () => {
    const res = await createReader('ndef-on', { ndefTagScanningEnabled: true });
    expect(res.status).toBe(201);
    expect(res.body.data.attributes.ndefTagScanningEnabled).toBe(true);
  });

  it('stores the password only as a salted scrypt hash', async () => {
    const res = await createReader('hashed');
    expect(res.status).toBe(201);
    const sent = passwords.at(-1)!;
    const row = await storedReader('hashed');
    expect(row.passwordHash).toMatch(/^scrypt\$32768\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    expect(JSON.stringify(row)).not.toContain(sent);
    expect(await verifyPassword(sent, row.passwordHash)).toBe(true);
    expect(await verifyPassword(`${sent}x`, row.passwordHash)).toBe(false);
  });

  it('refuses an id the account already uses, on any of its entities, with 409 pointing at /reader/id', async () => {
    expect((await createReader('dup-1')).status).toBe(201);
    for (const entity of [entityId, secondEntityId]) {
      const res = await createReader('dup-1', {}, entity);
      expect(res.status).toBe(409);
      expect(res.body.errors).toEqual([
        {
          status: '409',
          code: 'conflict',
          title: 'Conflict',
          detail: 'A reader with id dup-1 already exists in this account.',
          source: { pointer: '/reader/id' },
        },
      ]);
    }
    expect(await service.database.db.prisma.reader.count({ where: { publicId: 'dup-1' } })).toBe(1);
  });

  it('lets another account use the same id (ids are unique per account)', async () => {
    const res = await createReader('dup-1', {}, otherEntityId, other.token);
    expect(res.status).toBe(201);
    expect((await getReader('dup-1', other.token)).body.data.attributes.name).toBe('Reader dup-1');
  });

  it('treats ids case-sensitively', async () => {
    expect((await createReader('Case-Id')).status).toBe(201);
    expect((await createReader('case-id')).status).toBe(201);
  });

  it('accepts ids of 1 and 64 characters of letters, digits, - and _', async () => {
    expect((await createReader('x')).status).toBe(201);
    expect((await createReader(`A_b-9${'z'.repeat(59)}`)).status).toBe(201);
  });

  it.each([
    ['an empty id', { id: '' }, '/reader/id'],
    ['a 65-character id', { id: 'a'.repeat(65) }, '/reader/id'],
    ['an id with a space', { id: 'till 1' }, '/reader/id'],
    ['an id with a dot', { id: 'till.1' }, '/reader/id'],
    ['an unknown type', { type: 'KioskReader' }, '/reader/type'],
    ['a short password', { password: 'short' }, '/reader/password'],
    ['a non-boolean flag', { scanEnabled: 'yes' }, '/reader/scanEnabled'],
    ['an unknown member', { colour: 'red' }, '/reader/colour'],
    ['readerType on input', { readerType: 'ServiceReader' }, '/reader/readerType'],
    ['an empty name', { name: '' }, '/reader/name'],
  ])('refuses %s with 400 pointing at the member', async (_case, overrides, pointer) => {
    const body = readerBody('valid-id', overrides);
    const res = remember(await service.api.post(`/api/v1/entities/${entityId}/readers`).set(service.auth(tenant.token)).send(body));
    expect(res.status).toBe(400);
    expect(res.body.errors[0]).toMatchObject({ status: '400', code: 'validation_failed', source: { pointer } });
  });

  it.each(['id', 'name', 'type', 'password'])('requires %s', async (member) => {
    const body = readerBody('missing-member');
    delete (body.reader as Record<string, unknown>)[member];
    const res = remember(await service.api.post(`/api/v1/entities/${entityId}/readers`).set(service.auth(tenant.token)).send(body));
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body.errors)).toContain(member);
  });

  it('answers 404 for an unknown entity and for another account’s entity', async () => {
    for (const entity of [UNKNOWN_ENTITY, otherEntityId]) {
      const res = await createReader('nowhere', {}, entity);
      expect(res.status).toBe(404);
      expect(res.body.errors[0]).toMatchObject({ code: 'not_found', detail: `No entity with id ${entity} exists.`, source: { parameter: 'entity_id' } });
    }
    expect(await service.database.db.prisma.reader.count({ where: { publicId: 'nowhere' } })).toBe(0);
  });

  it('answers 400 for an entity id that is not a UUID', async () => {
    const res = await createReader('bad-entity', {}, 'soho');
    expect(res.status).toBe(400);
    expect(res.body.errors[0].source).toEqual({ parameter: 'entity_id' });
  });

  it('answers 401 without an API key and 415 for a non-JSON body', async () => {
    const unauthenticated = await service.api.post(`/api/v1/entities/${entityId}/readers`).send(readerBody('no-key'));
    expect(unauthenticated.status).toBe(401);
    const text = await service.api
      .post(`/api/v1/entities/${entityId}/readers`)
      .set(service.auth(tenant.token))
      .set('Content-Type', 'text/plain')
      .send('reader');
    expect(text.status).toBe(415);
  });
});

describe('listReaders', () => {
  const list = async (entity: string, query = '', token = tenant.token) =>
    remember(await service.api.get(`/api/v1/entities/${entity}/readers${query}`).set(service.auth(token)));

  it("lists an entity's readers by name, paginated, without another entity's", async () => {
    const fresh = await service.createEntity(tenant.accountId, 'Covent Garden');
    expect((await list(fresh)).body).toMatchObject({ data: [], meta: { totalCount: 0 } });
    for (const [id, name] of [
      ['cg-b', 'Bar till'],
      ['cg-a', 'Front till'],
      ['cg-c', 'Back office'],
    ] as const) {
      expect((await createReader(id, { name, addPointsEnabled: true }, fresh)).status).toBe(201);
    }
    expect((await createReader('cg-elsewhere', {}, secondEntityId)).status).toBe(201);
    const res = await list(fresh, '?perPage=2');
    expect(res.status).toBe(200);
    expect(res.body.data.map((r: { id: string }) => r.id)).toEqual(['cg-c', 'cg-b']);
    expect(res.body.data[0]).toEqual({
      id: 'cg-c',
      type: 'reader',
      attributes: expect.objectContaining({ name: 'Back office', addPointsEnabled: true, scanEnabled: true, lastSeenAt: null }),
    });
    expect(res.body.meta).toEqual({ totalCount: 3, resultsPerPage: 2, currentPage: 1, totalPages: 2 });
    expect((await list(fresh, '?page=2&perPage=2')).body.data.map((r: { id: string }) => r.id)).toEqual(['cg-a']);
  });

  it('answers 404 for an unknown entity and for another account’s entity, 401 without an API key', async () => {
    expect((await list(UNKNOWN_ENTITY)).status).toBe(404);
    const foreign = await list(otherEntityId);
    expect(foreign.status).toBe(404);
    expect(foreign.body.errors[0].source).toEqual({ parameter: 'entity_id' });
    expect((await service.api.get(`/api/v1/entities/${entityId}/readers`)).status).toBe(401);
  });
});

describe('getReader', () => {
  it('returns the reader with lastSeenAt null until it is seen', async () => {
    await createReader('get-1', { name: 'Get me', qrEnabled: true });
    const res = await getReader('get-1');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      data: {
        id: 'get-1',
        type: 'reader',
        attributes: {
          name: 'Get me',
          readerType: 'ServiceReader',
          loggedIn: false,
          qrEnabled: true,
          mifareClassicNfcEnabled: false,
          scanEnabled: true,
          redeemEnabled: false,
          addPointsEnabled: false,
          ndefTagScanningEnabled: false,
          lastSeenAt: null,
        },
      },
    });
  });

  it('shows lastSeenAt and loggedIn once markReaderSeen recorded the reader', async () => {
    await createReader('seen-1');
    const row = await storedReader('seen-1');
    expect(await markReaderSeen(service.database.db.prisma, row.id, new Date('2026-11-21T10:02:13.456Z'), { loggedIn: true })).toBe(true);
    const res = await getReader('seen-1');
    expect(res.body.data.attributes).toMatchObject({ lastSeenAt: '2026-11-21T10:02:13Z', loggedIn: true });
    // Without loggedIn only the time moves.
    await markReaderSeen(service.database.db.prisma, row.id, new Date('2026-11-21T10:05:00Z'));
    expect((await getReader('seen-1')).body.data.attributes).toMatchObject({ lastSeenAt: '2026-11-21T10:05:00Z', loggedIn: true });
    expect(await markReaderSeen(service.database.db.prisma, '0194f3a2-7c1e-7a51-9d7e-0b6a2f1c9e10', new Date())).toBe(false);
  });

  it('answers 404 for an unknown id and for another account’s reader', async () => {
    await createReader('theirs-only', {}, otherEntityId, other.token);
    for (const id of ['never-made', 'theirs-only']) {
      const res = await getReader(id);
      expect(res.status).toBe(404);
      expect(res.body.errors[0]).toMatchObject({ code: 'not_found', detail: `No reader with id ${id} exists.`, source: { parameter: 'id' } });
    }
  });

  it('answers 400 for an id outside the id pattern', async () => {
    for (const id of ['till.1', 'a'.repeat(65)]) {
      const res = await getReader(id);
      expect(res.status).toBe(400);
      expect(res.body.errors[0].source).toEqual({ parameter: 'id' });
    }
  });

  it('answers 401 without an API key', async () => {
    await service.api.get('/api/v1/readers/get-1').expect(401);
  });
});

describe('updateReader', () => {
  beforeAll(() => createReader('upd-400'));

  it('changes only the flags given and returns the reader with lastSeenAt', async () => {
    await createReader('upd-flags', { qrEnabled: true, addPointsEnabled: true });
    const res = await updateReader('upd-flags', { redeemEnabled: true, ndefTagScanningEnabled: true, qrEnabled: false });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      id: 'upd-flags',
      type: 'reader',
      attributes: {
        name: 'Reader upd-flags',
        readerType: 'ServiceReader',
        loggedIn: false,
        qrEnabled: false,
        mifareClassicNfcEnabled: false,
        scanEnabled: true,
        redeemEnabled: true,
        addPointsEnabled: true,
        ndefTagScanningEnabled: true,
        lastSeenAt: null,
      },
    });
    expect((await getReader('upd-flags')).body).toEqual(res.body);
  });

  it('renames a reader: the new id answers, the old one is gone, the internal identity and history stay', async () => {
    await createReader('old-name', { redeemEnabled: true });
    const before = await storedReader('old-name');
    await markReaderSeen(service.database.db.prisma, before.id, new Date('2026-11-21T09:45:00Z'), { loggedIn: true });
    const res = await updateReader('old-name', { id: 'new-name' });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ id: 'new-name', attributes: { redeemEnabled: true, loggedIn: true, lastSeenAt: '2026-11-21T09:45:00Z' } });
    expect((await getReader('old-name')).status).toBe(404);
    expect((await getReader('new-name')).status).toBe(200);
    const after = await storedReader('new-name');
    expect(after.id).toBe(before.id);
    expect(after.entityId).toBe(before.entityId);
    expect(after.createdAt).toEqual(before.createdAt);
    expect(after.passwordHash).toBe(before.passwordHash);
    // The old id is free again.
    expect((await createReader('old-name')).status).toBe(201);
  });

  it('accepts a rename to the reader’s own id', async () => {
    await createReader('same-name');
    const res = await updateReader('same-name', { id: 'same-name', name: 'Renamed display' });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ id: 'same-name', attributes: { name: 'Renamed display' } });
  });

  it('refuses a rename to an id the account already uses with 409 pointing at /reader/id', async () => {
    await createReader('taken-a');
    await createReader('taken-b');
    const res = await updateReader('taken-a', { id: 'taken-b', scanEnabled: false });
    expect(res.status).toBe(409);
    expect(res.body.errors[0]).toMatchObject({
      code: 'conflict',
      detail: 'A reader with id taken-b already exists in this account.',
      source: { pointer: '/reader/id' },
    });
    // Nothing changed.
    expect((await getReader('taken-a')).body.data.attributes.scanEnabled).toBe(true);
  });

  it('lets a reader take an id another account uses', async () => {
    await createReader('shared-later', {}, otherEntityId, other.token);
    await createReader('mine-first');
    expect((await updateReader('mine-first', { id: 'shared-later' })).status).toBe(200);
  });

  it('replaces the password (hash only) and signs the reader out', async () => {
    await createReader('pw-change');
    const row = await storedReader('pw-change');
    await markReaderSeen(service.database.db.prisma, row.id, new Date('2026-11-21T09:50:00Z'), { loggedIn: true });
    const newPassword = password('changed');
    const res = await updateReader('pw-change', { password: newPassword });
    expect(res.status).toBe(200);
    expect(res.body.data.attributes).toMatchObject({ loggedIn: false, lastSeenAt: '2026-11-21T09:50:00Z' });
    expect(res.body.data.attributes).not.toHaveProperty('password');
    const after = await storedReader('pw-change');
    expect(after.passwordHash).not.toBe(row.passwordHash);
    expect(await verifyPassword(newPassword, after.passwordHash)).toBe(true);
  });

  it.each([
    ['an empty reader', {}, '/reader'],
    ['the reader type', { type: 'VtapReader' }, '/reader/type'],
    ['a bad id', { id: 'no spaces' }, '/reader/id'],
    ['a short password', { password: '1234567' }, '/reader/password'],
    ['lastSeenAt', { lastSeenAt: '2026-11-21T09:50:00Z' }, '/reader/lastSeenAt'],
  ])('refuses %s with 400', async (_case, reader, pointer) => {
    const res = await updateReader('upd-400', reader);
    expect(res.status).toBe(400);
    expect(res.body.errors[0]).toMatchObject({ code: 'validation_failed', source: { pointer } });
  });

  it('answers 404 for an unknown id and for another account’s reader, changing nothing', async () => {
    await createReader('their-patch', {}, otherEntityId, other.token);
    for (const id of ['never-made', 'their-patch']) {
      const res = await updateReader(id, { scanEnabled: false });
      expect(res.status).toBe(404);
      expect(res.body.errors[0].source).toEqual({ parameter: 'id' });
    }
    expect((await getReader('their-patch', other.token)).body.data.attributes.scanEnabled).toBe(true);
  });

  it('answers 401 without an API key', async () => {
    await service.api
      .patch('/api/v1/readers/upd-flags')
      .send({ reader: { scanEnabled: false } })
      .expect(401);
  });
});

describe('passwords', () => {
  it('salts every hash and rejects malformed stored values', async () => {
    const [a, b] = [await hashPassword('same password'), await hashPassword('same password')];
    expect(a).not.toBe(b);
    expect(await verifyPassword('same password', a)).toBe(true);
    expect(await verifyPassword('same password', 'plain text')).toBe(false);
    // Unicode-equivalent forms are the same password.
    expect(await verifyPassword('caf\u0065\u0301', await hashPassword('caf\u00e9'))).toBe(true);
  });

  /** Calls `setImmediate` in a loop while `work` runs: how often the event loop turned, and its longest stall (ms). */
  async function loopTurnsDuring(work: () => Promise<unknown>): Promise<{ turns: number; longestStallMs: number }> {
    let turns = 0;
    let longestStallMs = 0;
    let last = performance.now();
    let spinning = true;
    const spin = () => {
      if (!spinning) return;
      const now = performance.now();
      longestStallMs = Math.max(longestStallMs, now - last);
      last = now;
      turns++;
      setImmediate(spin);
    };
    setImmediate(spin);
    await work();
    spinning = false;
    longestStallMs = Math.max(longestStallMs, performance.now() - last);
    return { turns, longestStallMs };
  }

  it('hashes on a pool thread with the documented parameters: the event loop keeps turning meanwhile', async () => {
    // Hashed on the event loop (scryptSync), the hash would be done before the loop could turn once.
    const { turns } = await loopTurnsDuring(() => hashPassword('correct horse battery'));
    expect(turns).toBeGreaterThan(0);
    // The cost the contract states (openapi/components/schemas/ReaderPassword.yaml) is the cost used.
    expect(SCRYPT_COST).toEqual({ N: 2 ** 15, r: 8, p: 1 });
    expect(await hashPassword('x')).toMatch(/^scrypt\$32768\$8\$1\$/);
    const contract = JSON.parse(await readFile('generated/openapi.json', 'utf8'));
    expect(contract.components.schemas.ReaderPassword.description).toMatch(/scrypt\s+with\s+N = 2\^15, r = 8, p = 1/);
  });

  it('creates a reader without stalling the event loop for as long as a hash takes', async () => {
    // A hash's duration here, the least of three; a create that hashed on the event loop would
    // stall it at least that long. Best of three creates, so that a stall from elsewhere (garbage
    // collection, another process on the machine) does not decide the outcome.
    const hashMs: number[] = [];
    for (let i = 0; i < 3; i++) {
      const start = performance.now();
      await hashPassword('correct horse battery');
      hashMs.push(performance.now() - start);
    }
    const stalls: number[] = [];
    for (let i = 0; i < 3; i++) {
      const { longestStallMs } = await loopTurnsDuring(async () => expect((await createReader(`loop-${i}`)).status).toBe(201));
      stalls.push(longestStallMs);
    }
    expect(Math.min(...stalls)).toBeLessThan(Math.min(...hashMs) / 2);
  });

  it('never returns or logs a reader password', () => {
    expect(passwords.length).toBeGreaterThan(20);
    const logText = service.logText();
    expect(logText).toContain('reader created');
    for (const sent of passwords) {
      expect(logText).not.toContain(sent);
      for (const text of responseTexts) expect(text).not.toContain(sent);
    }
    expect(responseTexts.join('')).not.toContain('scrypt$');
    expect(logText).not.toContain('scrypt$');
  });
});
