/**
 * Passes (spec §2.3, §4.16; PassEntry pass create, list, update, nullify): createPass,
 * listPasses, getPass, updatePass and nullifyPass through HTTP on a real database, with the job
 * workers processing templates as in the server and every response validated against the
 * contract. Also the Idempotency-Key mechanism on createPass and nullifyPass.
 */
import type { Clock } from '../src/clock.ts';
import { startTestService, type TestService } from './support/testService.ts';
import {
  createTemplate,
  expectError,
  issuePass,
  loyaltyTemplate,
  plainTemplate,
  postPass,
  setUpPassTenants,
  setWalletState,
  type PassTenants,
} from './support/passes.ts';

const BASE = 'http://wallet.test';
const UNKNOWN_ID = '0194f3a2-7c1e-7a51-9d7e-0b6a2f1c9e10';
const DAY_MS = 24 * 60 * 60 * 1000;

/** The system clock, movable forward (for the 24-hour life of idempotency keys). */
const clock: Clock & { offsetMs: number } = { offsetMs: 0, now: () => new Date(Date.now() + clock.offsetMs) };

let service: TestService;
let tenant: PassTenants['tenant'];
let other: PassTenants['other'];
let loyaltyId: string;
let plainId: string;
let otherTemplateId: string;

beforeAll(async () => {
  service = await startTestService({ jobs: 'work', clock });
  ({ tenant, other, loyaltyId, plainId, otherTemplateId } = await setUpPassTenants(service));
});
afterAll(() => service.close());

const auth = (token = tenant.token) => service.auth(token);
const prisma = () => service.database.db.prisma;

function get(idOrExtId: string, query = '', token = tenant.token) {
  return service.api.get(`/api/v1/passes/${encodeURIComponent(idOrExtId)}${query}`).set(auth(token));
}
function patch(idOrExtId: string, body: unknown, token = tenant.token) {
  return service.api
    .patch(`/api/v1/passes/${encodeURIComponent(idOrExtId)}`)
    .set(auth(token))
    .send(body as object);
}
function nullify(idOrExtId: string, token = tenant.token) {
  return service.api.post(`/api/v1/passes/${encodeURIComponent(idOrExtId)}/nullify`).set(auth(token));
}
type Pass = Awaited<ReturnType<typeof issuePass>>;
const issue = (body: unknown = { pass: {} }, query: Record<string, string> = {}, templateId = loyaltyId) =>
  issuePass(service, tenant.token, templateId, body, query);

/** Every attribute a fresh pass of the loyalty template shows with an empty `pass`. */
function defaultAttributes(id: string, overrides: Record<string, unknown> = {}) {
  return {
    downloadUrl: `${BASE}/passes/${id}`,
    passType: 'storeCard',
    createdAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/),
    status: 'issued',
    extId: null,
    passTemplateUuid: loyaltyId,
    passTemplateName: 'Coffee Club Card',
    nfc: null,
    barcode: { type: 'qr', source: 'custom', value: 'COFFEE-CLUB' },
    passContent: { points: '0', member: 'Guest', tier: 'Bronze', since: '', terms: 'One stamp per drink.' },
    addedAt: null,
    removedAt: null,
    deactivatedAt: null,
    nullifiedAt: null,
    expiresAt: null,
    latestMessage: null,
    groupTags: [],
    ...overrides,
  };
}

/** The resource object of a pass of the loyalty template: {@link defaultAttributes} with `overrides`. */
function passResource(id: string, overrides: Record<string, unknown> = {}) {
  return { id, type: 'pass', attributes: defaultAttributes(id, overrides) };
}

describe('createPass', () => {
  it('issues a pass with the template defaults: 200 with the whole pass', async () => {
    const res = await postPass(service, tenant.token, { passTemplate: loyaltyId }).expect(200);
    const { id } = res.body.data;
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(res.body).toEqual({ data: passResource(id) });
    expect(res.headers['idempotent-replayed']).toBeUndefined();
  });

  it('stores values given in both forms the same way, with extId, NFC, barcode, message, tags and expiry', async () => {
    const body = {
      pass: {
        member: 'Ada Lovelace',
        tier: { value: 'Gold' },
        points: '120',
        nfc: { enabled: true, source: 'extId' },
        barcode: { enabled: true, source: 'uuid', displayText: 'Member 1042' },
      },
      message: 'Welcome to the Coffee Club!',
      groupTags: ['gold-members', 'soho'],
      groupTag: 'gold-members',
      expiresAt: '2027-12-31T23:59:59Z',
    };
    const pass = await issue(body, { extId: 'member-1042' });
    expect(pass.attributes).toEqual(
      defaultAttributes(pass.id, {
        extId: 'member-1042',
        nfc: 'member-1042',
        barcode: { type: 'qr', source: 'uuid', value: pass.id, displayText: 'Member 1042' },
        passContent: { points: '120', member: 'Ada Lovelace', tier: 'Gold', since: '', terms: 'One stamp per drink.' },
        latestMessage: 'Welcome to the Coffee Club!',
        groupTags: ['gold-members', 'soho'],
        expiresAt: '2027-12-31T23:59:59Z',
      }),
    );
    const stringForm = await issue({ pass: { tier: 'Gold' } });
    const objectForm = await issue({ pass: { tier: { value: 'Gold' } } });
    expect(objectForm.attributes.passContent).toEqual(stringForm.attributes.passContent);
    const rows = await prisma().pass.findMany({ where: { id: { in: [stringForm.id, objectForm.id] } }, select: { content: true } });
    expect(rows[0]!.content).toEqual(rows[1]!.content);
  });

  it('derives passType from the template type and has no loyalty field without `points`', async () => {
    const pass = await issue({ pass: { guest: 'Grace' } }, {}, plainId);
    expect(pass.attributes).toMatchObject({ passType: 'generic', passTemplateName: 'Event pass', passContent: { guest: 'Grace' }, barcode: {} });
    const loyalty = await service.api.get(`/api/v1/loyalty/${pass.id}`).set(auth()).expect(200);
    expect(loyalty.body.meta).toEqual({ loyalty: { balance: 0 } });
  });

  it.each([
    ['legacy true', true, (p: { id: string }) => p.id],
    ['source uuid by default', { enabled: true }, (p: { id: string }) => p.id],
    ['custom', { enabled: true, source: 'custom', customValue: 'CC-1042-7781' }, () => 'CC-1042-7781'],
    ['legacy false', false, () => null],
    ['disabled', { enabled: false, source: 'custom' }, () => null],
  ])('derives the NFC message (%s)', async (_case, nfc, expected) => {
    const pass = await issue({ pass: { nfc } });
    expect(pass.attributes.nfc).toBe(expected(pass));
  });

  it.each([
    ['inherits the template barcode', undefined, () => ({ type: 'qr', source: 'custom', value: 'COFFEE-CLUB' })],
    ['replaces members given', { enabled: true, type: 'pdf417' }, () => ({ type: 'pdf417', source: 'custom', value: 'COFFEE-CLUB' })],
    [
      'drops the custom value for another source',
      { enabled: true, source: 'extId' },
      (p: Pass) => ({ type: 'qr', source: 'extId', value: p.attributes.extId }),
    ],
    ['encodes the pass UUID', { enabled: true, source: 'uuid', type: 'aztec' }, (p: Pass) => ({ type: 'aztec', source: 'uuid', value: p.id })],
    ['takes its own custom value', { enabled: true, value: 'OWN' }, () => ({ type: 'qr', source: 'custom', value: 'OWN' })],
    ['shows nothing when disabled', { enabled: false }, () => ({})],
  ])('derives the barcode: %s', async (_case, barcode, expected) => {
    const pass = await issue({ pass: barcode ? { barcode } : {} }, { extId: `barcode-${Math.random().toString(36).slice(2)}` });
    expect(pass.attributes.barcode).toEqual(expected(pass));
  });

  it.each([
    [
      'displayText true, as every PassEntry example sends it',
      { barcode: { enabled: true, source: 'uuid', displayText: true } },
      (p: Pass) => ({ type: 'qr', source: 'uuid', value: p.id, displayText: p.id }),
    ],
    ['displayText false', { barcode: { enabled: true, source: 'uuid', displayText: false } }, (p: Pass) => ({ type: 'qr', source: 'uuid', value: p.id })],
    [
      'the older qr form with a custom value',
      { qr: { value: 'ORDER-42', displayText: true } },
      () => ({ type: 'qr', source: 'custom', value: 'ORDER-42', displayText: 'ORDER-42' }),
    ],
  ])("accepts PassEntry's barcode forms: %s", async (_case, pass, expected) => {
    const issued = await issue({ pass: { member: 'Ada', nfc: { enabled: true, source: 'custom', customValue: 'NFC-42' }, ...pass } });
    expect(issued.attributes.barcode).toEqual(expected(issued));
    expect(issued.attributes).toMatchObject({ nfc: 'NFC-42', passContent: { member: 'Ada' } });
  });

  it('answers 400 naming /pass/qr when both qr and barcode are given', async () => {
    const res = await postPass(service, tenant.token, { passTemplate: loyaltyId }, { pass: { qr: { value: 'A' }, barcode: { enabled: true } } });
    expectError(res, 400, 'validation_failed', { pointer: '/pass/qr' });
  });

  it('answers 400 for a custom barcode without a value anywhere', async () => {
    const res = await postPass(service, tenant.token, { passTemplate: plainId }, { pass: { barcode: { enabled: true, source: 'custom' } } });
    expectError(res, 400, 'validation_failed', { pointer: '/pass/barcode/value' });
  });

  it('copies the template locations and beacons unless the pass gives its own', async () => {
    const inherited = await issue();
    const res = await get(inherited.id, '?includeLocations=true&includeBeacons=true').expect(200);
    expect(res.body.data.attributes.locations).toEqual(loyaltyTemplate().locations);
    expect(res.body.data.attributes.beacons).toEqual(loyaltyTemplate().beacons);
    const own = [{ latitude: 48.8566, longitude: 2.3522, radius: 50 }];
    const custom = await issuePass(
      service,
      tenant.token,
      loyaltyId,
      { pass: {}, locations: own, beacons: [] },
      { includeLocations: 'true', includeBeacons: 'true' },
    );
    expect(custom.attributes.locations).toEqual(own);
    expect(custom.attributes).not.toHaveProperty('beacons');
  });

  it('starts the balance at the loyalty field value, recorded in the ledger', async () => {
    const pass = await issue({ pass: { points: '-15' } });
    expect(pass.attributes.passContent).toMatchObject({ points: '-15' });
    expect(await prisma().loyaltyLedgerEntry.findMany({ where: { passId: pass.id }, select: { delta: true, balance: true, source: true } })).toEqual([
      { delta: -15, balance: -15, source: 'api' },
    ]);
    const zero = await issue();
    expect(await prisma().loyaltyLedgerEntry.count({ where: { passId: zero.id } })).toBe(0);
  });

  it('answers 400 naming every field id the template does not have', async () => {
    const res = await postPass(service, tenant.token, { passTemplate: loyaltyId }, { pass: { member: 'Ada', colour: 'red', size: { value: 'L' } } });
    expect(res.status).toBe(400);
    expect(res.body.errors.map((e: { source: unknown }) => e.source)).toEqual([{ pointer: '/pass/colour' }, { pointer: '/pass/size' }]);
    expect(res.body.errors[0].detail).toContain('colour is not a field of the pass template');
  });

  it.each([
    ['a loyalty value that is not an integer', { pass: { points: 'lots' } }, {}, { pointer: '/pass/points' }],
    ['a loyalty value out of range', { pass: { points: '1000000001' } }, {}, { pointer: '/pass/points' }],
    ['a barcode value with source uuid', { pass: { barcode: { enabled: true, source: 'uuid', value: 'X' } } }, {}, { pointer: '/pass/barcode/value' }],
    ['a barcode on the extId of a pass without one', { pass: { barcode: { enabled: true, source: 'extId' } } }, {}, { pointer: '/pass/barcode/source' }],
    ['custom NFC without customValue', { pass: { nfc: { enabled: true, source: 'custom' } } }, {}, { pointer: '/pass/nfc/customValue' }],
    ['an NFC customValue with source uuid', { pass: { nfc: { enabled: true, source: 'uuid', customValue: 'X' } } }, {}, { pointer: '/pass/nfc/customValue' }],
    ['NFC on the extId of a pass without one', { pass: { nfc: { enabled: true, source: 'extId' } } }, {}, { pointer: '/pass/nfc/source' }],
    [
      'a custom NFC message beyond 64 characters',
      { pass: { nfc: { enabled: true, source: 'custom', customValue: 'x'.repeat(65) } } },
      {},
      { pointer: '/pass/nfc/customValue' },
    ],
    ['11 locations', { pass: {}, locations: Array.from({ length: 11 }, () => ({ latitude: 1, longitude: 1 })) }, {}, { pointer: '/locations' }],
    [
      '11 beacons',
      { pass: {}, beacons: Array.from({ length: 11 }, () => ({ proximityUuid: 'f7826da6-4fa2-4e98-8024-bc5b71e0893e' })) },
      {},
      { pointer: '/beacons' },
    ],
    ['21 group tags', { pass: {}, groupTags: Array.from({ length: 20 }, (_, i) => `t${i}`), groupTag: 'one-more' }, {}, { pointer: '/groupTag' }],
    ['a value longer than 500 characters', { pass: { member: 'x'.repeat(501) } }, {}, undefined],
    ['a field value in the shape of nfc', { pass: { member: true } }, {}, { pointer: '/pass/member' }],
    ['a field value in the shape of barcode', { pass: { member: { enabled: true } } }, {}, { pointer: '/pass/member' }],
    ['a field value in the shape of qr', { pass: { member: { value: 'Ada', displayText: 'Ada' } } }, {}, { pointer: '/pass/member' }],
    ['nfc in the shape of a field value', { pass: { nfc: 'on' } }, {}, undefined],
    ['barcode in the shape of a field value', { pass: { barcode: { value: 'X' } } }, {}, undefined],
    ['qr in the shape of nfc', { pass: { qr: true } }, {}, undefined],
    ['a message longer than 350 characters', { pass: {}, message: 'x'.repeat(351) }, {}, { pointer: '/message' }],
    ['no pass member', {}, {}, undefined],
    ['an unknown body member', { pass: {}, colour: 'red' }, {}, undefined],
    ['an extId with a space', { pass: {} }, { extId: 'a b' }, { parameter: 'extId' }],
    ['an unknown query parameter', { pass: {} }, { colour: 'red' }, { parameter: 'colour' }],
  ])('answers 400 for %s', async (_case, body, query, source) => {
    const res = await postPass(service, tenant.token, { passTemplate: loyaltyId, ...query }, body);
    expectError(res, 400, 'validation_failed', source);
  });

  it('answers 400 when the template barcode encodes the extId of a pass without one', async () => {
    const templateId = await createTemplate(service, tenant.token, plainTemplate({ barcode: { enabled: true, type: 'qr', source: 'extId' } }));
    expectError(await postPass(service, tenant.token, { passTemplate: templateId }), 400, 'validation_failed', { parameter: 'extId' });
    const pass = await issuePass(service, tenant.token, templateId, { pass: {} }, { extId: 'ticket-9' });
    expect(pass.attributes.barcode).toEqual({ type: 'qr', source: 'extId', value: 'ticket-9' });
  });

  it('answers 400 without passTemplate or with one that is not a UUID', async () => {
    expectError(await service.api.post('/api/v1/passes').set(auth()).send({ pass: {} }), 400, 'validation_failed', { parameter: 'passTemplate' });
    expectError(await postPass(service, tenant.token, { passTemplate: 'coffee' }), 400, 'validation_failed', { parameter: 'passTemplate' });
  });

  it('answers 404 for an unknown template and for another account’s template', async () => {
    for (const passTemplate of [UNKNOWN_ID, otherTemplateId]) {
      const res = await postPass(service, tenant.token, { passTemplate });
      expectError(res, 404, 'not_found', { parameter: 'passTemplate' });
      expect(JSON.stringify(res.body)).not.toContain('Not yours');
    }
  });

  it('answers 409 for a template that is processing or failed', async () => {
    const failedId = await createTemplate(service, tenant.token, { name: 'No icon', templateType: 'generic' }, true);
    const failed = await postPass(service, tenant.token, { passTemplate: failedId });
    expectError(failed, 409, 'conflict', { parameter: 'passTemplate' });
    expect(failed.body.errors[0].detail).toContain('is failed');
    const processingId = await createTemplate(service, tenant.token, plainTemplate({ name: 'Soon' }));
    // A design update makes a template processing again; hold it there without racing the worker.
    await prisma().passTemplate.update({ where: { id: processingId }, data: { processingStatus: 'processing' } });
    const processing = await postPass(service, tenant.token, { passTemplate: processingId });
    expectError(processing, 409, 'conflict', { parameter: 'passTemplate' });
    expect(processing.body.errors[0].detail).toContain('is processing');
  });

  it('answers 409 for an extId a live pass has, and accepts it again after that pass is nullified', async () => {
    const first = await issue({ pass: {} }, { extId: 'reused-1' });
    expectError(await postPass(service, tenant.token, { passTemplate: loyaltyId, extId: 'reused-1' }), 409, 'conflict', { parameter: 'extId' });
    // Another account may use the same extId.
    await issuePass(service, other.token, otherTemplateId, { pass: {} }, { extId: 'reused-1' });
    await nullify(first.id).expect(200);
    const second = await issue({ pass: {} }, { extId: 'reused-1' });
    expect(second.id).not.toBe(first.id);
    expect((await get('reused-1').expect(200)).body.data.id).toBe(second.id);
  });

  it('issues exactly one of two concurrent creates with the same extId', async () => {
    const results = await Promise.all([1, 2, 3].map(() => postPass(service, tenant.token, { passTemplate: loyaltyId, extId: 'race-1' })));
    expect(results.map((r) => r.status).sort()).toEqual([200, 409, 409]);
    expect(await prisma().pass.count({ where: { extId: 'race-1' } })).toBe(1);
  });

  it('adds the extras the include parameters ask for', async () => {
    const res = await postPass(service, tenant.token, { passTemplate: loyaltyId, includePassDesign: 'true', includePassSource: 'apple' }).expect(200);
    expect(res.body.data.attributes.passDesign).toMatchObject({ templateType: 'loyalty', centralTitle: 'Coffee Club' });
    expect(res.body.data.attributes.passSource).toEqual({ platform: 'apple', url: `${BASE}/passes/${res.body.data.id}/apple` });
  });

  it('answers 401 without a key, 415 for another media type, 413 beyond the size limit', async () => {
    const noKey = await service.api.post(`/api/v1/passes?passTemplate=${loyaltyId}`).send({ pass: {} });
    expectError(noKey, 401, 'unauthorized');
    const text = await service.api.post(`/api/v1/passes?passTemplate=${loyaltyId}`).set(auth()).set('Content-Type', 'text/plain').send('pass');
    expectError(text, 415, 'unsupported_media_type');
    const big = await postPass(service, tenant.token, { passTemplate: loyaltyId }, { pass: { member: 'x'.repeat(1024 * 1024 + 1) } });
    expectError(big, 413, 'payload_too_large');
  });

  it('answers 405 for a method the path does not have', async () => {
    const res = await service.api.delete('/api/v1/passes').set(auth());
    expectError(res, 405, 'method_not_allowed');
    expect(res.headers.allow).toBe('GET, POST');
  });
});

describe('Idempotency-Key on createPass', () => {
  const keyed = (key: string, body: unknown = { pass: { member: 'Ada' } }, query: Record<string, string> = {}, token = tenant.token) =>
    service.api
      .post(`/api/v1/passes?${new URLSearchParams({ passTemplate: token === tenant.token ? loyaltyId : otherTemplateId, ...query })}`)
      .set(auth(token))
      .set('Idempotency-Key', key)
      .send(body as object);

  it('replays the first response for a retry with the same key and body, issuing one pass', async () => {
    const first = await keyed('create-1').expect(200);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const passes = await prisma().pass.count({ where: { accountId: tenant.accountId } });
    // The pass changes after the first response; the replay is the stored response.
    await patch(first.body.data.id, { message: 'Changed since' }).expect(200);
    const retry = await keyed('create-1').expect(200);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.text).toBe(first.text);
    expect(await prisma().pass.count({ where: { accountId: tenant.accountId } })).toBe(passes);
  });

  it('treats a body that differs only in member order as the same request', async () => {
    const first = await keyed('create-order', { pass: { member: 'Ada', tier: 'Gold' }, message: 'Hi' }).expect(200);
    const retry = await keyed('create-order', { message: 'Hi', pass: { tier: 'Gold', member: 'Ada' } }).expect(200);
    expect(retry.body.data.id).toBe(first.body.data.id);
  });

  it('answers 422 for the same key with a different body or query', async () => {
    await keyed('create-2', { pass: { member: 'Ada' } }).expect(200);
    expectError(await keyed('create-2', { pass: { member: 'Grace' } }), 422, 'idempotency_key_reused', { header: 'Idempotency-Key' });
    expectError(await keyed('create-2', { pass: { member: 'Ada' } }, { extId: 'idem-2' }), 422, 'idempotency_key_reused');
    expectError(await service.api.post(`/api/v1/passes/${UNKNOWN_ID}/nullify`).set(auth()).set('Idempotency-Key', 'create-2'), 422, 'idempotency_key_reused');
  });

  it('keeps keys per account', async () => {
    const mine = await keyed('shared-key').expect(200);
    const theirs = await keyed('shared-key', { pass: {} }, {}, other.token).expect(200);
    expect(theirs.headers['idempotent-replayed']).toBeUndefined();
    expect(theirs.body.data.id).not.toBe(mine.body.data.id);
  });

  it('stores nothing for an error response, so the retry runs again', async () => {
    await keyed('create-error', { pass: {} }, { extId: 'held-1' });
    expectError(await keyed('create-error-2', { pass: {} }, { extId: 'held-1' }), 409, 'conflict');
    await nullify('held-1').expect(200);
    const retried = await keyed('create-error-2', { pass: {} }, { extId: 'held-1' }).expect(200);
    expect(retried.headers['idempotent-replayed']).toBeUndefined();
  });

  it('issues exactly one pass for concurrent creates with one key; the others replay it', async () => {
    const results = await Promise.all(
      Array.from({ length: 8 }, () => keyed('create-concurrent', { pass: { member: 'Concurrent' } }, { extId: 'concurrent-1' })),
    );
    expect(results.map((r) => r.status)).toEqual(Array(8).fill(200));
    expect(new Set(results.map((r) => r.body.data.id)).size).toBe(1);
    expect(results.filter((r) => r.headers['idempotent-replayed'] === 'true')).toHaveLength(7);
    expect(await prisma().pass.count({ where: { extId: 'concurrent-1' } })).toBe(1);
  });

  it('forgets a key after 24 hours', async () => {
    const first = await keyed('create-expiring').expect(200);
    clock.offsetMs += DAY_MS + 1000;
    try {
      const later = await keyed('create-expiring', { pass: { member: 'Someone else' } }).expect(200);
      expect(later.headers['idempotent-replayed']).toBeUndefined();
      expect(later.body.data.id).not.toBe(first.body.data.id);
    } finally {
      clock.offsetMs -= DAY_MS + 1000;
    }
  });

  it.each([
    ['an empty key', ''],
    ['a key with a space', 'a b'],
    ['a key of 256 characters', 'k'.repeat(256)],
  ])('answers 400 for %s', async (_case, key) => {
    const res = await keyed(key);
    expect(res.status).toBe(400);
    expect(res.body.errors[0].code).toBe('validation_failed');
  });
});

describe('listPasses', () => {
  let lister: { accountId: string; token: string };
  let templateA: string;
  let templateB: string;
  const ids: string[] = [];

  beforeAll(async () => {
    lister = await service.createAccount('Lister');
    templateA = await createTemplate(service, lister.token, loyaltyTemplate());
    templateB = await createTemplate(service, lister.token, plainTemplate());
    for (let i = 0; i < 27; i++) {
      const pass = await issuePass(
        service,
        lister.token,
        i % 3 === 0 ? templateB : templateA,
        { pass: {}, groupTags: i % 2 ? ['odd'] : ['even', 'all'] },
        { extId: `list-${i}` },
      );
      ids.push(pass.id);
    }
    await service.api.patch('/api/v1/passes/list-4').set(service.auth(lister.token)).send({ passAction: 'deactivate' }).expect(200);
    await service.api.post('/api/v1/passes/list-5/nullify').set(service.auth(lister.token)).expect(200);
  });

  const list = (query = '') => service.api.get(`/api/v1/passes${query}`).set(service.auth(lister.token));
  const newestFirst = () => [...ids].reverse();

  it('returns the first page of 25, newest first, with the §2.9 envelope', async () => {
    const res = await list().expect(200);
    expect(res.body.data.map((p: { id: string }) => p.id)).toEqual(newestFirst().slice(0, 25));
    expect(res.body.meta).toEqual({ totalCount: 27, resultsPerPage: 25, currentPage: 1, totalPages: 2 });
    expect(res.body.links).toEqual({
      first: `${BASE}/api/v1/passes?page=1&perPage=25`,
      prev: null,
      next: `${BASE}/api/v1/passes?page=2&perPage=25`,
      last: `${BASE}/api/v1/passes?page=2&perPage=25`,
    });
    expect(res.body.data[0].attributes).toMatchObject({ extId: 'list-26', passTemplateUuid: templateA });
  });

  it('pages with page and perPage', async () => {
    const res = await list('?page=3&perPage=10').expect(200);
    expect(res.body.data.map((p: { id: string }) => p.id)).toEqual(newestFirst().slice(20));
    expect(res.body.meta).toEqual({ totalCount: 27, resultsPerPage: 10, currentPage: 3, totalPages: 3 });
    expect((await list('?page=4&perPage=10').expect(200)).body.data).toEqual([]);
  });

  it.each([
    ['passTemplate', () => `passTemplate=${templateB}`, (i: number) => i % 3 === 0],
    ['status', () => 'status=deactivated', (i: number) => i === 4],
    ['status nullified', () => 'status=nullified', (i: number) => i === 5],
    ['extId', () => 'extId=list-7', (i: number) => i === 7],
    ['groupTag', () => 'groupTag=odd', (i: number) => i % 2 === 1],
    ['several filters', () => `groupTag=all&passTemplate=${templateA}&status=issued`, (i: number) => i % 2 === 0 && i % 3 !== 0 && i !== 4],
  ])('filters by %s', async (_case, query, matches) => {
    const res = await list(`?perPage=100&${query()}`).expect(200);
    const expected = newestFirst().filter((id) => matches(ids.indexOf(id)));
    expect(res.body.data.map((p: { id: string }) => p.id)).toEqual(expected);
    expect(res.body.meta.totalCount).toBe(expected.length);
    expect(res.body.links.first).toContain(query().split('&')[0]);
  });

  it('shows only the caller’s passes', async () => {
    const res = await service.api.get(`/api/v1/passes?passTemplate=${templateA}`).set(auth(other.token)).expect(200);
    expect(res.body).toMatchObject({ data: [], meta: { totalCount: 0 } });
  });

  it.each([
    ['perPage=101', 'perPage'],
    ['page=0', 'page'],
    ['status=lost', 'status'],
    ['passTemplate=coffee', 'passTemplate'],
    ['groupTag=', 'groupTag'],
    ['colour=blue', 'colour'],
  ])('answers 400 for %s', async (query, parameter) => {
    expectError(await list(`?${query}`), 400, 'validation_failed', { parameter });
  });

  it('answers 401 without a key', async () => {
    expectError(await service.api.get('/api/v1/passes'), 401, 'unauthorized');
  });
});

describe('getPass', () => {
  it('finds a pass by UUID (any case) and by extId', async () => {
    const pass = await issue({ pass: {} }, { extId: 'lookup-1' });
    const byId = await get(pass.id).expect(200);
    expect(byId.body).toEqual({ data: pass });
    expect((await get(pass.id.toUpperCase()).expect(200)).body.data.id).toBe(pass.id);
    expect((await get('lookup-1').expect(200)).body.data.id).toBe(pass.id);
  });

  it('tries a UUID-shaped value as an id first, then as an extId', async () => {
    const target = await issue();
    const uuidShaped = '0194f3a2-0000-7000-8000-00000000abcd';
    const byExtId = await issue({ pass: {} }, { extId: uuidShaped });
    expect((await get(uuidShaped).expect(200)).body.data.id).toBe(byExtId.id);
    // A pass whose extId is another pass's id: the id wins.
    const shadow = await issue({ pass: {} }, { extId: target.id });
    expect((await get(target.id).expect(200)).body.data.id).toBe(target.id);
    expect(shadow.attributes.extId).toBe(target.id);
  });

  it('finds the live pass of an extId, else the newest nullified one', async () => {
    const old = await issue({ pass: {} }, { extId: 'recycled' });
    await nullify(old.id).expect(200);
    const newer = await issue({ pass: {} }, { extId: 'recycled' });
    await nullify(newer.id).expect(200);
    expect((await get('recycled').expect(200)).body.data.id).toBe(newer.id);
    const live = await issue({ pass: {} }, { extId: 'recycled' });
    expect((await get('recycled').expect(200)).body.data.id).toBe(live.id);
  });

  it('adds passDesign: the template’s current design', async () => {
    const pass = await issue();
    const res = await get(pass.id, '?includePassDesign=true').expect(200);
    const template = loyaltyTemplate();
    expect(res.body.data.attributes.passDesign).toEqual({
      templateType: 'loyalty',
      transitType: null,
      defaultLanguage: 'en',
      centralTitle: 'Coffee Club',
      notificationHeader: 'Coffee Club news',
      description: 'Loyalty card of the Coffee Club',
      colors: template.colors,
      images: template.images,
      fields: template.fields,
      appLinking: { apple: { appStoreUrl: [] }, google: {} },
    });
    expect(Object.keys((await get(pass.id).expect(200)).body.data.attributes)).not.toContain('passDesign');
  });

  it('adds locations and beacons only when asked and when there are any', async () => {
    const withPlaces = await issue();
    const none = await issue({ pass: {}, locations: [], beacons: [] });
    const asked = '?includeLocations=true&includeBeacons=true';
    expect((await get(withPlaces.id, asked).expect(200)).body.data.attributes).toMatchObject({
      locations: loyaltyTemplate().locations,
      beacons: loyaltyTemplate().beacons,
    });
    const attributes = Object.keys((await get(none.id, asked).expect(200)).body.data.attributes);
    expect(attributes).not.toContain('locations');
    expect(attributes).not.toContain('beacons');
    expect(Object.keys((await get(withPlaces.id, '?includeLocations=false').expect(200)).body.data.attributes)).not.toContain('locations');
  });

  it.each([
    ['issued', 'apple', true],
    ['issued', 'google', true],
    ['active', 'apple', false],
    ['removed', 'google', true],
    ['deactivated', 'apple', true],
    ['nullified', 'google', true],
  ] as const)('passSource of a pass in status %s for %s: present = %s', async (status, platform, present) => {
    const pass = await issue();
    if (status === 'active' || status === 'removed') await setWalletState(service, pass.id, status);
    if (status === 'deactivated') await patch(pass.id, { passAction: 'deactivate' }).expect(200);
    if (status === 'nullified') await nullify(pass.id).expect(200);
    const res = await get(pass.id, `?includePassSource=${platform}`).expect(200);
    expect(res.body.data.attributes.status).toBe(status);
    if (present) expect(res.body.data.attributes.passSource).toEqual({ platform, url: `${BASE}/passes/${pass.id}/${platform}` });
    else expect(res.body.data.attributes).not.toHaveProperty('passSource');
  });

  it('shows the wallet members once the pass is in a wallet', async () => {
    const pass = await issue();
    await setWalletState(service, pass.id, 'active', new Date('2026-11-21T10:00:00Z'));
    expect((await get(pass.id).expect(200)).body.data.attributes).toMatchObject({ status: 'active', deviceType: 'iphone', addedAt: '2026-11-21T10:00:00Z' });
  });

  it('answers 404 for an unknown id or extId, and for another account’s pass', async () => {
    const res = await get(UNKNOWN_ID).expect(404);
    expect(res.body.errors).toEqual([
      { status: '404', code: 'not_found', title: 'Resource not found', detail: `No pass with id or extId ${UNKNOWN_ID} exists.`, source: { parameter: 'id' } },
    ]);
    await get('no-such-ext-id').expect(404);
    const theirs = await issuePass(service, other.token, otherTemplateId, { pass: {} }, { extId: 'theirs-1' });
    await get(theirs.id).expect(404);
    await get('theirs-1').expect(404);
  });

  it.each([
    ['an id with a space', 'a b', '', 'id'],
    ['an id longer than 64 characters', 'x'.repeat(65), '', 'id'],
    ['a wallet that does not exist', 'abc', '?includePassSource=samsung', 'includePassSource'],
    ['a flag that is not a boolean', 'abc', '?includeBeacons=maybe', 'includeBeacons'],
  ])('answers 400 for %s', async (_case, id, query, parameter) => {
    expectError(await get(id, query), 400, 'validation_failed', { parameter });
  });

  it('answers 401 without a key', async () => {
    expectError(await service.api.get(`/api/v1/passes/${UNKNOWN_ID}`), 401, 'unauthorized');
  });
});

describe('updatePass', () => {
  it('changes only the members given and reports that nothing reached a wallet', async () => {
    const pass = await issue({ pass: { member: 'Ada', tier: 'Gold' }, groupTags: ['a'] }, { extId: 'update-1' });
    const res = await patch('update-1', {
      pass: { tier: { value: 'Platinum' }, nfc: true, barcode: { enabled: true, source: 'extId', displayText: 'Ada' } },
      message: 'You have reached Platinum!',
      locations: [],
      groupTag: 'b',
      expiresAt: '2027-01-01T00:00:00Z',
    }).expect(200);
    expect(res.body).toEqual({
      data: passResource(pass.id, {
        extId: 'update-1',
        nfc: pass.id,
        barcode: { type: 'qr', source: 'extId', value: 'update-1', displayText: 'Ada' },
        passContent: { points: '0', member: 'Ada', tier: 'Platinum', since: '', terms: 'One stamp per drink.' },
        latestMessage: 'You have reached Platinum!',
        groupTags: ['a', 'b'],
        expiresAt: '2027-01-01T00:00:00Z',
      }),
      meta: { notifications: { status: 'notDelivered', message: 'Pass has not been added to the wallet' } },
    });
    const older = await patch(pass.id, { pass: { qr: { value: 'ORDER-7', displayText: true } } }).expect(200);
    expect(older.body.data.attributes.barcode).toEqual({ type: 'qr', source: 'custom', value: 'ORDER-7', displayText: 'ORDER-7' });
    const shown = await patch(pass.id, { pass: { barcode: { enabled: true, source: 'extId', displayText: true } } }).expect(200);
    expect(shown.body.data.attributes.barcode).toEqual({ type: 'qr', source: 'extId', value: 'update-1', displayText: 'update-1' });
    const places = await get(pass.id, '?includeLocations=true&includeBeacons=true').expect(200);
    expect(places.body.data.attributes).not.toHaveProperty('locations');
    expect(places.body.data.attributes.beacons).toEqual(loyaltyTemplate().beacons);
    const again = await patch(pass.id, { groupTags: ['c'], expiresAt: null, pass: { nfc: { enabled: false } } }).expect(200);
    expect(again.body.data.attributes).toMatchObject({ groupTags: ['c'], expiresAt: null, nfc: null, latestMessage: 'You have reached Platinum!' });
  });

  it.each([
    ['active', 'No device is registered for updates of this pass'],
    ['removed', 'Pass has been removed from the wallet'],
  ] as const)('reports delivery for a pass that is %s', async (state, message) => {
    const pass = await issue();
    await setWalletState(service, pass.id, state);
    const res = await patch(pass.id, { message: 'Hello' }).expect(200);
    expect(res.body.meta.notifications).toEqual({ status: 'notDelivered', message });
  });

  it('sets the balance through the loyalty field, recorded in the ledger', async () => {
    const pass = await issue({ pass: { points: '10' } });
    const res = await patch(pass.id, { pass: { points: '25' } }).expect(200);
    expect(res.body.data.attributes.passContent.points).toBe('25');
    expect((await service.api.get(`/api/v1/loyalty/${pass.id}`).set(auth()).expect(200)).body.meta.loyalty.balance).toBe(25);
    const ledger = await prisma().loyaltyLedgerEntry.findMany({ where: { passId: pass.id }, orderBy: { id: 'asc' }, select: { delta: true, balance: true } });
    expect(ledger).toEqual([
      { delta: 10, balance: 10 },
      { delta: 15, balance: 25 },
    ]);
  });

  describe('status transitions (the table of the contract’s PassStatus)', () => {
    /** A pass of the tenant in `status`, made the way that status comes about. */
    async function passIn(status: 'issued' | 'active' | 'removed' | 'deactivated' | 'deactivatedInWallet' | 'nullified') {
      const pass = await issue();
      if (status === 'active' || status === 'removed') await setWalletState(service, pass.id, status);
      if (status === 'deactivatedInWallet') await setWalletState(service, pass.id, 'active');
      if (status === 'deactivated' || status === 'deactivatedInWallet') await patch(pass.id, { passAction: 'deactivate' }).expect(200);
      if (status === 'nullified') await nullify(pass.id).expect(200);
      return pass.id;
    }

    it.each([
      ['issued', 'deactivate', 'deactivated'],
      ['active', 'deactivate', 'deactivated'],
      ['deactivated', 'reactivate', 'issued'],
      ['deactivatedInWallet', 'reactivate', 'active'],
    ] as const)('allows %s → %s → %s', async (from, passAction, to) => {
      const id = await passIn(from);
      const res = await patch(id, { passAction }).expect(200);
      expect(res.body.data.attributes.status).toBe(to);
      expect(res.body.data.attributes.deactivatedAt === null).toBe(to !== 'deactivated');
    });

    it.each([
      ['issued', 'reactivate'],
      ['active', 'reactivate'],
      ['removed', 'deactivate'],
      ['removed', 'reactivate'],
      ['deactivated', 'deactivate'],
    ] as const)('refuses %s → %s with 409', async (from, passAction) => {
      const id = await passIn(from);
      const res = await patch(id, { passAction, message: 'Not stored' });
      expectError(res, 409, 'conflict', { pointer: '/passAction' });
      expect((await get(id).expect(200)).body.data.attributes.latestMessage).toBeNull();
    });

    it.each(['deactivate', 'reactivate'] as const)('refuses every update of a nullified pass (%s) with 409', async (passAction) => {
      const id = await passIn('nullified');
      expectError(await patch(id, { passAction }), 409, 'conflict', { parameter: 'id' });
      expectError(await patch(id, { pass: { member: 'Back' } }), 409, 'conflict');
    });

    it.each(['issued', 'active', 'removed', 'deactivated'] as const)('allows %s → nullified', async (from) => {
      const id = await passIn(from);
      expect((await nullify(id).expect(200)).body.data.attributes.status).toBe('nullified');
    });
  });

  it('changes nothing when a member is refused (one transaction)', async () => {
    const pass = await issue({ pass: { member: 'Ada' } });
    expectError(await patch(pass.id, { pass: { member: 'Grace', colour: 'red' }, message: 'Hi' }), 400, 'validation_failed', { pointer: '/pass/colour' });
    expectError(await patch(pass.id, { pass: { member: 'Grace', points: '2000000000' } }), 400, 'validation_failed', { pointer: '/pass/points' });
    expect((await get(pass.id).expect(200)).body.data.attributes).toMatchObject({ passContent: { member: 'Ada', points: '0' }, latestMessage: null });
  });

  it.each([
    ['an empty body', {}, undefined],
    ['an unknown action', { passAction: 'delete' }, { pointer: '/passAction' }],
    ['a barcode value for source uuid', { pass: { barcode: { enabled: true, source: 'uuid', value: 'X' } } }, { pointer: '/pass/barcode/value' }],
    ['a field value in the shape of barcode', { pass: { member: { enabled: false } } }, { pointer: '/pass/member' }],
    ['barcode in the shape of a field value', { pass: { barcode: 'X' } }, undefined],
    ['a message longer than 350 characters', { message: 'x'.repeat(351) }, { pointer: '/message' }],
  ])('answers 400 for %s', async (_case, body, source) => {
    const pass = await issue();
    expectError(await patch(pass.id, body), 400, 'validation_failed', source);
  });

  it('answers 404 for an unknown pass and another account’s pass, 401 without a key, 415 for another media type', async () => {
    expectError(await patch(UNKNOWN_ID, { message: 'Hi' }), 404, 'not_found', { parameter: 'id' });
    const theirs = await issuePass(service, other.token, otherTemplateId);
    expectError(await patch(theirs.id, { message: 'Hi' }), 404, 'not_found');
    expectError(await service.api.patch(`/api/v1/passes/${theirs.id}`).send({ message: 'Hi' }), 401, 'unauthorized');
    const text = await service.api.patch(`/api/v1/passes/${theirs.id}`).set(auth()).set('Content-Type', 'text/plain').send('message');
    expectError(text, 415, 'unsupported_media_type');
  });
});

describe('nullifyPass', () => {
  it('strips content, barcode, NFC, locations and beacons and frees the extId; the balance stays', async () => {
    const pass = await issue({ pass: { member: 'Ada', points: '40', nfc: true }, message: 'Hi', groupTags: ['gold'] }, { extId: 'void-1' });
    const res = await nullify('void-1').expect(200);
    expect(res.body).toEqual({
      data: passResource(pass.id, {
        extId: 'void-1',
        status: 'nullified',
        nullifiedAt: expect.stringMatching(/Z$/),
        barcode: {},
        passContent: {},
        latestMessage: 'Hi',
        groupTags: ['gold'],
      }),
    });
    const extras = await get(pass.id, '?includeLocations=true&includeBeacons=true').expect(200);
    expect(extras.body.data.attributes).not.toHaveProperty('locations');
    expect((await service.api.get(`/api/v1/loyalty/${pass.id}`).set(auth()).expect(200)).body.meta.loyalty.balance).toBe(40);
  });

  it('is idempotent: a second nullify answers 200 and changes nothing', async () => {
    const pass = await issue();
    const first = await nullify(pass.id).expect(200);
    clock.offsetMs += 5000;
    try {
      const second = await nullify(pass.id).expect(200);
      expect(second.body).toEqual(first.body);
    } finally {
      clock.offsetMs -= 5000;
    }
  });

  it('replays a keyed nullify', async () => {
    const pass = await issue();
    const first = await nullify(pass.id).set('Idempotency-Key', 'nullify-1').expect(200);
    const retry = await nullify(pass.id).set('Idempotency-Key', 'nullify-1').expect(200);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.text).toBe(first.text);
    const elsewhere = await issue();
    expectError(await nullify(elsewhere.id).set('Idempotency-Key', 'nullify-1'), 422, 'idempotency_key_reused');
    expect((await get(elsewhere.id).expect(200)).body.data.attributes.status).toBe('issued');
  });

  it('answers 404 for an unknown pass and another account’s pass, 401 without a key', async () => {
    expectError(await nullify('never-issued'), 404, 'not_found', { parameter: 'id' });
    const theirs = await issuePass(service, other.token, otherTemplateId);
    expectError(await nullify(theirs.id), 404, 'not_found');
    expect((await get(theirs.id, '', other.token).expect(200)).body.data.attributes.status).toBe('issued');
    expectError(await service.api.post(`/api/v1/passes/${theirs.id}/nullify`), 401, 'unauthorized');
  });

  it('answers 400 for an id that is not a pass id or extId', async () => {
    expectError(await nullify('a b'), 400, 'validation_failed', { parameter: 'id' });
  });

  it('does not read a request body, however large (it takes none, so no 413 or 400 for one)', async () => {
    const pass = await issue();
    expect(
      (
        await nullify(pass.id)
          .send({ member: 'x'.repeat(1024 * 1024 + 1) })
          .expect(200)
      ).body.data.attributes.status,
    ).toBe('nullified');
    const other = await issue();
    const malformed = await nullify(other.id).set('Content-Type', 'application/json').send('{"not json').expect(200);
    expect(malformed.body.data.attributes.status).toBe('nullified');
  });
});
