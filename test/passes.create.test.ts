/**
 * Passes, createPass (spec §2.3, §4.16; PassEntry pass create) through HTTP on a real database,
 * with the job workers processing templates as in the server and every response validated against
 * the contract: the pass issued from the template's defaults and the values given, extId, NFC,
 * barcode, places and beacons, the loyalty balance, the 400s, 404s, 409s and the rest; and the
 * Idempotency-Key mechanism on createPass (and on nullifyPass, which shares it).
 */
import type { Clock } from '../src/clock.ts';
import { startTestService, type TestService } from './support/testService.ts';
import {
  createTemplate,
  expectError,
  issuePass,
  loyaltyTemplate,
  passApi,
  plainTemplate,
  postPass,
  setUpPassTenants,
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

const { auth, prisma, get, patch, nullify, issue, defaultAttributes, passResource } = passApi(
  () => service,
  () => tenant,
  () => loyaltyId,
);
type Pass = Awaited<ReturnType<typeof issuePass>>;

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
    expect(res.headers.allow).toBe('GET, POST, OPTIONS');
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
