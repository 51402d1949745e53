/**
 * Scans (spec §2.7, §4.12, §4.13; PassEntry scan create and list): logScan, createScan, getScan
 * and listScans through HTTP on a real database, responses validated against the contract.
 * Covers the internal validation rules, the loyalty change applied in the scan's transaction
 * (and rolled back with it), the reader being marked seen, a renamed reader keeping its scans,
 * the filters and de-duplicated `included` of the list, and tenancy.
 */
import type { Response } from 'supertest';
import { startTestService, TestClock, type TestService } from './support/testService.ts';
import { createTemplate, issuePass, loyaltyTemplate } from './support/passes.ts';

const BASE = 'http://wallet.test';
const UNKNOWN_ID = '0194f3a2-7c1e-7a51-9d7e-0b6a2f1c9e10';
const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const LIMIT = 1_000_000_000;

const clock = new TestClock(new Date('2026-11-21T10:00:00Z'));
let service: TestService;
let tenant: { accountId: string; token: string };
let other: { accountId: string; token: string };
let templateId: string;
let otherPassId: string;
let passCounter = 0;

type Pass = { id: string; attributes: Record<string, unknown> };

beforeAll(async () => {
  service = await startTestService({ jobs: 'work', clock });
  tenant = await service.createAccount('Coffee Club Ltd');
  other = await service.createAccount('Other Tenant');
  const entityId = await service.createEntity(tenant.accountId, 'Soho');
  const otherEntityId = await service.createEntity(other.accountId, 'Elsewhere');
  templateId = await createTemplate(service, tenant.token, loyaltyTemplate());
  const otherTemplateId = await createTemplate(service, other.token, loyaltyTemplate());
  otherPassId = (await issuePass(service, other.token, otherTemplateId)).id;
  const readers: [string, Record<string, boolean>, string, string][] = [
    ['till-all', { addPointsEnabled: true, redeemEnabled: true }, entityId, tenant.token],
    ['till-view', {}, entityId, tenant.token],
    ['till-off', { scanEnabled: false, addPointsEnabled: true, redeemEnabled: true }, entityId, tenant.token],
    ['foreign-till', { addPointsEnabled: true }, otherEntityId, other.token],
  ];
  for (const [id, flags, entity, token] of readers) {
    await service.api
      .post(`/api/v1/entities/${entity}/readers`)
      .set(service.auth(token))
      .send({ reader: { id, name: `Reader ${id}`, type: 'PartnerReader', password: 'correct horse battery', ...flags } })
      .expect(201);
  }
});
afterAll(() => service.close());

const auth = (token = tenant.token) => service.auth(token);
const prisma = () => service.database.db.prisma;

/** Issues a pass of the loyalty template with a fresh extId and the given starting points. */
async function newPass(points = 100, extra: Record<string, unknown> = {}): Promise<Pass & { extId: string }> {
  const extId = `member-${++passCounter}`;
  const pass = await issuePass(service, tenant.token, templateId, { pass: { points: String(points) }, ...extra }, { extId });
  return { ...pass, extId };
}

function log(scan: Record<string, unknown>, token = tenant.token, headers: Record<string, string> = {}) {
  return service.api.post('/api/v1/scans/log').set(auth(token)).set(headers).send({ scan });
}
function validate(scan: Record<string, unknown>, token = tenant.token, headers: Record<string, string> = {}) {
  return service.api.post('/api/v1/scans').set(auth(token)).set(headers).send({ scan });
}
function list(query = '', token = tenant.token) {
  return service.api.get(`/api/v1/scans${query}`).set(auth(token));
}
async function balanceOf(passId: string): Promise<number> {
  const res = await service.api.get(`/api/v1/loyalty/${passId}`).set(auth()).expect(200);
  return res.body.meta.loyalty.balance;
}
const scanCount = () => prisma().scan.count();
const reader = (publicId: string, accountId = tenant.accountId) =>
  prisma().reader.findUniqueOrThrow({ where: { accountId_publicId: { accountId, publicId } } });

function expectError(res: Response, status: number, code: string, source?: Record<string, string>) {
  expect(res.status).toBe(status);
  expect(res.body.errors).toEqual([expect.objectContaining({ status: String(status), code, ...(source ? { source } : {}) })]);
}

describe('logScan', () => {
  it('records a scan validated elsewhere and answers exactly the §4.12 scanInfo', async () => {
    const pass = await newPass(100);
    clock.set('2026-11-21T10:02:13.456Z');
    const res = await log({
      readerId: 'till-view',
      scanType: 'nfc',
      status: 'successful',
      statusDetail: 'Welcome back',
      scanValue: 'nfc-payload-1',
      passId: pass.id,
      loyalty: { balance: 25 },
    }).expect(200);
    expect(res.body).toEqual({
      scanInfo: {
        scanId: expect.stringMatching(UUID_V7),
        scanType: 'nfc',
        scanValue: 'nfc-payload-1',
        validationType: 'externalValidation',
        status: 'successful',
        statusDetail: 'Welcome back',
        scannedAt: '2026-11-21T10:02:13Z',
        passId: pass.id,
        passExtId: pass.extId,
        readerId: 'till-view',
      },
    });
    const { scanId } = res.body.scanInfo;
    // The balance change is applied (the external validator decided: no reader flag is needed)
    // and recorded in the ledger with source scan and the scan id.
    expect(await balanceOf(pass.id)).toBe(125);
    const ledger = await prisma().loyaltyLedgerEntry.findMany({ where: { passId: pass.id }, orderBy: { id: 'asc' } });
    expect(ledger.at(-1)).toMatchObject({ delta: 25, balance: 125, source: 'scan', scanId });
    // The reader was seen and is signed in.
    const seen = await service.api.get('/api/v1/readers/till-view').set(auth()).expect(200);
    expect(seen.body.data.attributes).toMatchObject({ loggedIn: true, lastSeenAt: '2026-11-21T10:02:13Z' });
  });

  it('finds the pass by extId, subtracts a negative change and defaults statusDetail and scanValue', async () => {
    const pass = await newPass(50);
    const res = await log({ readerId: 'till-view', scanType: 'barcode', status: 'successful', passId: pass.extId, loyalty: { balance: -20 } }).expect(200);
    expect(res.body.scanInfo).toMatchObject({
      passId: pass.id,
      passExtId: pass.extId,
      statusDetail: 'Scan successful',
      scanValue: pass.extId,
      scanType: 'barcode',
    });
    expect(await balanceOf(pass.id)).toBe(30);
    const failed = await log({ readerId: 'till-view', scanType: 'nfc', status: 'failed', passId: pass.id }).expect(200);
    expect(failed.body.scanInfo).toMatchObject({ status: 'failed', statusDetail: 'Scan failed', scanValue: pass.id });
  });

  it('applies the change of a logged failed scan too: the external validator decided', async () => {
    const pass = await newPass(10);
    await log({
      readerId: 'till-view',
      scanType: 'nfc',
      status: 'failed',
      statusDetail: 'Expired membership',
      passId: pass.id,
      loyalty: { balance: -10 },
    }).expect(200);
    expect(await balanceOf(pass.id)).toBe(0);
  });

  it('answers 404 naming the reader or the pass it does not know, and stores nothing', async () => {
    const pass = await newPass();
    const before = await scanCount();
    expectError(await log({ readerId: 'no-such-till', scanType: 'nfc', status: 'successful', passId: pass.id }), 404, 'not_found', {
      pointer: '/scan/readerId',
    });
    expectError(await log({ readerId: 'till-view', scanType: 'nfc', status: 'successful', passId: 'member-none' }), 404, 'not_found', {
      pointer: '/scan/passId',
    });
    expectError(await log({ readerId: 'till-view', scanType: 'nfc', status: 'successful', passId: UNKNOWN_ID }), 404, 'not_found', { pointer: '/scan/passId' });
    // Another account's reader and pass are unknown too.
    expectError(await log({ readerId: 'foreign-till', scanType: 'nfc', status: 'successful', passId: pass.id }), 404, 'not_found', {
      pointer: '/scan/readerId',
    });
    expectError(await log({ readerId: 'till-view', scanType: 'nfc', status: 'successful', passId: otherPassId }), 404, 'not_found', {
      pointer: '/scan/passId',
    });
    expect(await scanCount()).toBe(before);
  });

  it('refuses malformed bodies with 400', async () => {
    const pass = await newPass();
    expectError(await log({ readerId: 'till-view', scanType: 'laser', status: 'successful', passId: pass.id }), 400, 'validation_failed', {
      pointer: '/scan/scanType',
    });
    expectError(await log({ scanType: 'nfc', status: 'successful', passId: pass.id }), 400, 'validation_failed');
    expectError(await log({ readerId: 'till-view', scanType: 'nfc', status: 'maybe', passId: pass.id }), 400, 'validation_failed', { pointer: '/scan/status' });
    expectError(
      await log({ readerId: 'till-view', scanType: 'nfc', status: 'successful', passId: pass.id, loyalty: { balance: 1.5 } }),
      400,
      'validation_failed',
      { pointer: '/scan/loyalty/balance' },
    );
    expectError(await log({ readerId: 'till-view', scanType: 'nfc', status: 'successful', passId: pass.id, extra: 1 }), 400, 'validation_failed');
  });

  it('is atomic with the balance: a refused change leaves no scan, no ledger row and the reader unseen', async () => {
    const pass = await newPass(LIMIT - 10);
    const ledgerBefore = await prisma().loyaltyLedgerEntry.count({ where: { passId: pass.id } });
    const readerBefore = await reader('till-all');
    const before = await scanCount();
    clock.advance(60_000);
    const res = await log({ readerId: 'till-all', scanType: 'nfc', status: 'successful', passId: pass.id, loyalty: { balance: 11 } });
    expectError(res, 409, 'conflict', { pointer: '/scan/loyalty/balance' });
    expect(await scanCount()).toBe(before);
    expect(await prisma().scan.count({ where: { passId: pass.id } })).toBe(0);
    expect(await prisma().loyaltyLedgerEntry.count({ where: { passId: pass.id } })).toBe(ledgerBefore);
    expect(await balanceOf(pass.id)).toBe(LIMIT - 10);
    expect((await reader('till-all')).lastSeenAt).toEqual(readerBefore.lastSeenAt);
    // Within the limit it goes through.
    await log({ readerId: 'till-all', scanType: 'nfc', status: 'successful', passId: pass.id, loyalty: { balance: 10 } }).expect(200);
    expect(await balanceOf(pass.id)).toBe(LIMIT);
  });

  it('refuses a balance change of a nullified pass with 409 and no scan, but logs a scan without one', async () => {
    const pass = await newPass();
    await service.api.post(`/api/v1/passes/${pass.id}/nullify`).set(auth()).expect(200);
    const before = await scanCount();
    expectError(await log({ readerId: 'till-view', scanType: 'nfc', status: 'failed', passId: pass.id, loyalty: { balance: 5 } }), 409, 'conflict', {
      pointer: '/scan/passId',
    });
    expect(await scanCount()).toBe(before);
    await log({ readerId: 'till-view', scanType: 'nfc', status: 'failed', statusDetail: 'Pass is void', passId: pass.id }).expect(200);
    expect(await scanCount()).toBe(before + 1);
  });

  it('records a retried scan once with an Idempotency-Key, and refuses the key for another scan', async () => {
    const pass = await newPass(0);
    const scan = { readerId: 'till-view', scanType: 'nfc', status: 'successful', passId: pass.id, loyalty: { balance: 7 } };
    const key = { 'Idempotency-Key': `log-${pass.id}` };
    const first = await log(scan, tenant.token, key).expect(200);
    const second = await log(scan, tenant.token, key).expect(200);
    expect(second.body).toEqual(first.body);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(await prisma().scan.count({ where: { passId: pass.id } })).toBe(1);
    expect(await balanceOf(pass.id)).toBe(7);
    expectError(await log({ ...scan, loyalty: { balance: 8 } }, tenant.token, key), 422, 'idempotency_key_reused', { header: 'Idempotency-Key' });
  });

  it('needs an API key', async () => {
    const res = await service.api.post('/api/v1/scans/log').send({ scan: {} });
    expectError(res, 401, 'unauthorized');
  });
});

describe('createScan', () => {
  it('accepts a scan that adds points: validationResponse with loyalty, scanInfo, reader seen', async () => {
    const pass = await newPass(120);
    clock.set('2026-11-21T11:00:00Z');
    const res = await validate({ readerId: 'till-all', passId: pass.extId, scanType: 'barcode', loyalty: { balance: 25 } }).expect(200);
    expect(res.body).toEqual({
      validationResponse: {
        status: 'successful',
        statusDetail: 'Scan successful',
        readerInstructions: { message: '25 points added' },
        loyalty: { balanceChange: 25, updatedBalance: 145, operation: 'add' },
      },
      scanInfo: {
        scanId: expect.stringMatching(UUID_V7),
        scanType: 'barcode',
        scanValue: pass.extId,
        validationType: 'internalValidation',
        status: 'successful',
        statusDetail: 'Scan successful',
        scannedAt: '2026-11-21T11:00:00Z',
        passId: pass.id,
        passExtId: pass.extId,
        readerId: 'till-all',
      },
    });
    expect(await balanceOf(pass.id)).toBe(145);
    const entry = await prisma().loyaltyLedgerEntry.findFirstOrThrow({ where: { scanId: res.body.scanInfo.scanId } });
    expect(entry).toMatchObject({ delta: 25, balance: 145, source: 'scan' });
    expect(await reader('till-all')).toMatchObject({ loggedIn: true, lastSeenAt: new Date('2026-11-21T11:00:00Z') });
  });

  it('redeems points, and accepts a scan without loyalty or with a zero change', async () => {
    const pass = await newPass(30);
    const redeem = await validate({ readerId: 'till-all', passId: pass.id, scanType: 'nfc', scanValue: 'nfc-1', loyalty: { balance: -1 } }).expect(200);
    expect(redeem.body.validationResponse).toEqual({
      status: 'successful',
      statusDetail: 'Scan successful',
      readerInstructions: { message: '1 point redeemed' },
      loyalty: { balanceChange: -1, updatedBalance: 29, operation: 'subtract' },
    });
    expect(redeem.body.scanInfo.scanValue).toBe('nfc-1');
    const plain = await validate({ readerId: 'till-view', passId: pass.id, scanType: 'nfc' }).expect(200);
    expect(plain.body.validationResponse).toEqual({
      status: 'successful',
      statusDetail: 'Scan successful',
      readerInstructions: { message: 'Scan successful' },
    });
    const zero = await validate({ readerId: 'till-view', passId: pass.id, scanType: 'nfc', loyalty: { balance: 0 } }).expect(200);
    expect(zero.body.validationResponse.loyalty).toEqual({ balanceChange: 0, updatedBalance: 29, operation: 'add' });
    expect(await balanceOf(pass.id)).toBe(29);
  });

  it.each([
    ['a deactivated pass', 'deactivated', 'till-all', 5, 'Pass is not active'],
    ['a nullified pass', 'nullified', 'till-all', undefined, 'Pass is not active'],
    ['a reader that may not scan', 'active', 'till-off', undefined, 'Reader not allowed to scan'],
    ['a reader that may not add points', 'active', 'till-view', 5, 'Reader not allowed to add points'],
    ['a reader that may not redeem points', 'active', 'till-view', -5, 'Reader not allowed to redeem points'],
    ['a change beyond the balance limit', 'active', 'till-all', LIMIT, 'Balance limit exceeded'],
  ])('refuses %s: stored failed with a human statusDetail, 200, balance unchanged', async (_case, state, readerId, change, detail) => {
    const pass = await newPass(100);
    if (state === 'deactivated') await service.api.patch(`/api/v1/passes/${pass.id}`).set(auth()).send({ passAction: 'deactivate' }).expect(200);
    if (state === 'nullified') await service.api.post(`/api/v1/passes/${pass.id}/nullify`).set(auth()).expect(200);
    const ledgerBefore = await prisma().loyaltyLedgerEntry.count({ where: { passId: pass.id } });
    const res = await validate({ readerId, passId: pass.id, scanType: 'nfc', ...(change === undefined ? {} : { loyalty: { balance: change } }) }).expect(200);
    expect(res.body.validationResponse).toEqual({ status: 'failed', statusDetail: detail, readerInstructions: { message: detail } });
    expect(res.body.scanInfo).toMatchObject({ status: 'failed', statusDetail: detail, validationType: 'internalValidation' });
    const stored = await prisma().scan.findUniqueOrThrow({ where: { id: res.body.scanInfo.scanId } });
    expect(stored).toMatchObject({ status: 'failed', statusDetail: detail });
    expect(await prisma().loyaltyLedgerEntry.count({ where: { passId: pass.id } })).toBe(ledgerBefore);
    if (state !== 'nullified') expect(await balanceOf(pass.id)).toBe(100);
  });

  it('answers 404 naming the unknown reader or pass, also of another account, and stores nothing', async () => {
    const pass = await newPass();
    const before = await scanCount();
    expectError(await validate({ readerId: 'nobody', passId: pass.id, scanType: 'nfc' }), 404, 'not_found', { pointer: '/scan/readerId' });
    expectError(await validate({ readerId: 'till-all', passId: 'member-none', scanType: 'nfc' }), 404, 'not_found', { pointer: '/scan/passId' });
    expectError(await validate({ readerId: 'till-all', passId: otherPassId, scanType: 'nfc' }), 404, 'not_found', { pointer: '/scan/passId' });
    expectError(await validate({ readerId: 'foreign-till', passId: otherPassId, scanType: 'nfc' }), 404, 'not_found', { pointer: '/scan/readerId' });
    expect(await scanCount()).toBe(before);
  });

  it('refuses malformed bodies with 400, retries once with an Idempotency-Key and refuses the key for another scan (422)', async () => {
    const pass = await newPass(0);
    expectError(await validate({ readerId: 'till-all', passId: pass.id }), 400, 'validation_failed');
    expectError(await validate({ readerId: 'till all', passId: pass.id, scanType: 'nfc' }), 400, 'validation_failed', { pointer: '/scan/readerId' });
    const key = { 'Idempotency-Key': `scan-${pass.id}` };
    const scan = { readerId: 'till-all', passId: pass.id, scanType: 'nfc', loyalty: { balance: 3 } };
    const first = await validate(scan, tenant.token, key).expect(200);
    const again = await validate(scan, tenant.token, key).expect(200);
    expect(again.body).toEqual(first.body);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expectError(await validate({ ...scan, loyalty: { balance: 4 } }, tenant.token, key), 422, 'idempotency_key_reused', { header: 'Idempotency-Key' });
    expect(await balanceOf(pass.id)).toBe(3);
  });
});

describe('getScan', () => {
  it('returns the scan with relationships and included [pass, reader] as getPass and getReader return them', async () => {
    const pass = await newPass(10, { groupTags: ['soho'] });
    const logged = await log({
      readerId: 'till-all',
      scanType: 'nfc',
      status: 'successful',
      passId: pass.id,
      scanValue: 'v-1',
      loyalty: { balance: 5 },
    }).expect(200);
    const { scanId, scannedAt } = logged.body.scanInfo;
    const res = await service.api.get(`/api/v1/scans/${scanId}`).set(auth()).expect(200);
    const passDoc = await service.api.get(`/api/v1/passes/${pass.id}`).set(auth()).expect(200);
    const readerDoc = await service.api.get('/api/v1/readers/till-all').set(auth()).expect(200);
    expect(res.body).toEqual({
      data: {
        id: scanId,
        type: 'scan',
        attributes: {
          scanType: 'nfc',
          scanValue: 'v-1',
          validationType: 'externalValidation',
          status: 'successful',
          statusDetail: 'Scan successful',
          scannedAt,
        },
        relationships: { pass: { data: { id: pass.id, type: 'pass' } }, reader: { data: { id: 'till-all', type: 'reader' } } },
      },
      included: [passDoc.body.data, readerDoc.body.data],
    });
    expect(res.body.included[0].attributes.passContent.points).toBe('15');
    expect(res.body.included[0].attributes.downloadUrl).toBe(`${BASE}/passes/${pass.id}`);
  });

  it("answers 404 for an unknown scan and for another account's, 400 for a malformed id", async () => {
    const pass = await newPass();
    const { scanId } = (await log({ readerId: 'till-view', scanType: 'nfc', status: 'successful', passId: pass.id }).expect(200)).body.scanInfo;
    expectError(await service.api.get(`/api/v1/scans/${UNKNOWN_ID}`).set(auth()), 404, 'not_found', { parameter: 'id' });
    expectError(await service.api.get(`/api/v1/scans/${scanId}`).set(auth(other.token)), 404, 'not_found', { parameter: 'id' });
    expectError(await service.api.get('/api/v1/scans/not-a-uuid').set(auth()), 400, 'validation_failed', { parameter: 'id' });
  });

  it("keeps a renamed reader's scans: they name it by its new id", async () => {
    await service.api
      .post(`/api/v1/entities/${await service.createEntity(tenant.accountId)}/readers`)
      .set(auth())
      .send({ reader: { id: 'rename-me', name: 'Door', type: 'VtapReader', password: 'correct horse battery' } })
      .expect(201);
    const pass = await newPass();
    const { scanId } = (await validate({ readerId: 'rename-me', passId: pass.id, scanType: 'nfc' }).expect(200)).body.scanInfo;
    await service.api
      .patch('/api/v1/readers/rename-me')
      .set(auth())
      .send({ reader: { id: 'renamed' } })
      .expect(200);
    const res = await service.api.get(`/api/v1/scans/${scanId}`).set(auth()).expect(200);
    expect(res.body.data.relationships.reader).toEqual({ data: { id: 'renamed', type: 'reader' } });
    expect(res.body.included[1]).toMatchObject({ id: 'renamed', type: 'reader', attributes: { name: 'Door', readerType: 'VtapReader' } });
    expect((await list('?reader=renamed').expect(200)).body.data.map((s: { id: string }) => s.id)).toEqual([scanId]);
    expect((await list('?reader=rename-me').expect(200)).body.data).toEqual([]);
    // A new reader may take the old id; the old scans stay with the renamed one.
    await service.api
      .post(`/api/v1/entities/${await service.createEntity(tenant.accountId)}/readers`)
      .set(auth())
      .send({ reader: { id: 'rename-me', name: 'New door', type: 'VtapReader', password: 'correct horse battery' } })
      .expect(201);
    expect((await list('?reader=rename-me').expect(200)).body.data).toEqual([]);
    await validate({ readerId: 'renamed', passId: pass.id, scanType: 'nfc' }).expect(200);
    expect((await list('?reader=renamed').expect(200)).body.meta.totalCount).toBe(2);
  });
});

describe('listScans', () => {
  let account: { accountId: string; token: string };
  let passA: Pass & { extId: string };
  let passB: Pass & { extId: string };
  const ids: string[] = [];

  beforeAll(async () => {
    // A tenant of its own, so that the counts below are exact.
    account = await service.createAccount('Scan list tenant');
    const entity = await service.createEntity(account.accountId);
    for (const [id, flags] of [
      ['list-a', { addPointsEnabled: true }],
      ['list-b', {}],
    ] as const) {
      await service.api
        .post(`/api/v1/entities/${entity}/readers`)
        .set(auth(account.token))
        .send({ reader: { id, name: id, type: 'PartnerReader', password: 'correct horse battery', ...flags } })
        .expect(201);
    }
    const template = await createTemplate(service, account.token, loyaltyTemplate());
    passA = { ...(await issuePass(service, account.token, template, { pass: {} }, { extId: 'list-pass-a' })), extId: 'list-pass-a' };
    passB = { ...(await issuePass(service, account.token, template, { pass: {} }, { extId: 'list-pass-b' })), extId: 'list-pass-b' };
    // Five scans, one minute apart: A by list-a (ok), A by list-b (refused: add points), B by list-a, B by list-b, A by list-a.
    const plan: [Pass, string, number | undefined][] = [
      [passA, 'list-a', 1],
      [passA, 'list-b', 1],
      [passB, 'list-a', undefined],
      [passB, 'list-b', undefined],
      [passA, 'list-a', undefined],
    ];
    clock.set('2026-11-22T08:00:00Z');
    for (const [pass, readerId, change] of plan) {
      clock.advance(60_000);
      const res = await validate({ readerId, passId: pass.id, scanType: 'nfc', ...(change ? { loyalty: { balance: change } } : {}) }, account.token).expect(
        200,
      );
      ids.push(res.body.scanInfo.scanId);
    }
  });

  const idsOf = (res: Response) => res.body.data.map((s: { id: string }) => s.id);

  it('lists newest first with included passes then readers, each once, and the §2.9 envelope', async () => {
    const res = await list('', account.token).expect(200);
    expect(idsOf(res)).toEqual([...ids].reverse());
    expect(res.body.included.map((r: { type: string; id: string }) => `${r.type}:${r.id}`)).toEqual([
      `pass:${passA.id}`,
      `pass:${passB.id}`,
      'reader:list-a',
      'reader:list-b',
    ]);
    expect(res.body.meta).toEqual({ totalCount: 5, resultsPerPage: 25, currentPage: 1, totalPages: 1 });
    expect(res.body.links).toEqual({
      first: `${BASE}/api/v1/scans?page=1&perPage=25`,
      prev: null,
      next: null,
      last: `${BASE}/api/v1/scans?page=1&perPage=25`,
    });
  });

  it("paginates, with included holding only the page's passes and readers", async () => {
    const page2 = await list('?perPage=2&page=2', account.token).expect(200);
    expect(idsOf(page2)).toEqual([ids[2], ids[1]]);
    expect(page2.body.included.map((r: { id: string }) => r.id)).toEqual([passB.id, passA.id, 'list-a', 'list-b']);
    expect(page2.body.meta).toEqual({ totalCount: 5, resultsPerPage: 2, currentPage: 2, totalPages: 3 });
    expect(page2.body.links.prev).toBe(`${BASE}/api/v1/scans?perPage=2&page=1`);
    expect(page2.body.links.next).toBe(`${BASE}/api/v1/scans?perPage=2&page=3`);
    const page3 = await list('?perPage=2&page=3', account.token).expect(200);
    expect(idsOf(page3)).toEqual([ids[0]]);
    expect(page3.body.included.map((r: { id: string }) => r.id)).toEqual([passA.id, 'list-a']);
    expect(idsOf(await list('?perPage=2&page=9', account.token).expect(200))).toEqual([]);
  });

  it('filters by reader, pass (UUID or extId), status and time window, all together', async () => {
    expect(idsOf(await list('?reader=list-a', account.token).expect(200))).toEqual([ids[4], ids[2], ids[0]]);
    expect(idsOf(await list(`?pass=${passA.id}`, account.token).expect(200))).toEqual([ids[4], ids[1], ids[0]]);
    expect(idsOf(await list('?pass=list-pass-b', account.token).expect(200))).toEqual([ids[3], ids[2]]);
    expect(idsOf(await list('?status=failed', account.token).expect(200))).toEqual([ids[1]]);
    expect(idsOf(await list('?status=successful&reader=list-b', account.token).expect(200))).toEqual([ids[3]]);
    // scannedAfter is inclusive, scannedBefore exclusive (scans at 08:01 … 08:05).
    expect(idsOf(await list('?scannedAfter=2026-11-22T08:02:00Z&scannedBefore=2026-11-22T08:04:00Z', account.token).expect(200))).toEqual([ids[2], ids[1]]);
    expect(idsOf(await list('?scannedAfter=2026-11-22T09:03:00%2B01:00', account.token).expect(200))).toEqual([ids[4], ids[3], ids[2]]);
    const filtered = await list('?reader=list-a&pass=list-pass-a&scannedBefore=2026-11-22T08:05:00Z', account.token).expect(200);
    expect(idsOf(filtered)).toEqual([ids[0]]);
    expect(filtered.body.included.map((r: { id: string }) => r.id)).toEqual([passA.id, 'list-a']);
  });

  it('matches nothing for a reader or pass the account does not have', async () => {
    for (const query of ['?reader=till-all', '?reader=nobody', `?pass=${UNKNOWN_ID}`, `?pass=${otherPassId}`]) {
      const res = await list(query, account.token).expect(200);
      expect(res.body).toMatchObject({ data: [], included: [], meta: { totalCount: 0, totalPages: 0 } });
    }
  });

  it("shows no other account's scans", async () => {
    const res = await list('?perPage=100', other.token).expect(200);
    expect(res.body.data).toEqual([]);
    const mine = await list('?perPage=100').expect(200);
    expect(idsOf(mine).some((id: string) => ids.includes(id))).toBe(false);
  });

  it('refuses bad parameters with 400', async () => {
    expectError(await list('?status=ok', account.token), 400, 'validation_failed', { parameter: 'status' });
    expectError(await list('?scannedAfter=yesterday', account.token), 400, 'validation_failed', { parameter: 'scannedAfter' });
    expectError(await list('?perPage=101', account.token), 400, 'validation_failed', { parameter: 'perPage' });
    expectError(await list('?readerId=list-a', account.token), 400, 'validation_failed');
  });
});

describe('balance changes that meet on one pass', () => {
  it('applies 200 concurrent scans, logs, loyalty changes, overrides and pass updates: all 200, the ledger exact', async () => {
    const pass = await newPass(1000);
    const requests = Array.from({ length: 200 }, (_, i) => {
      switch (i % 20) {
        case 0:
          return service.api
            .patch(`/api/v1/loyalty/${pass.id}`)
            .set(auth())
            .send({ overrideBalance: 500 + i });
        case 1:
          return service.api
            .patch(`/api/v1/passes/${pass.extId}`)
            .set(auth())
            .send({ pass: { points: String(700 + i) } });
        default:
          if (i % 3 === 0) return validate({ readerId: 'till-all', scanType: 'nfc', passId: pass.id, loyalty: { balance: 3 } });
          if (i % 3 === 1) return log({ readerId: 'till-view', scanType: 'barcode', status: 'successful', passId: pass.extId, loyalty: { balance: 2 } });
          return service.api.patch(`/api/v1/loyalty/${pass.extId}`).set(auth()).send({ balance: -1 });
      }
    });
    const results = await Promise.all(requests);
    expect(results.map((r) => r.status)).toEqual(Array(200).fill(200));
    const scans = results.filter((r) => r.body.validationResponse);
    expect(scans.every((r) => r.body.validationResponse.status === 'successful')).toBe(true);
    // Every change is in the ledger, in the order the changes locked the pass: each row's balance
    // is the one before it plus its delta, and the last one is the pass's balance.
    const ledger = await prisma().loyaltyLedgerEntry.findMany({ where: { passId: pass.id }, orderBy: { id: 'asc' } });
    expect(ledger).toHaveLength(201);
    for (let i = 1; i < ledger.length; i++) expect(ledger[i]!.balance).toBe(ledger[i - 1]!.balance + ledger[i]!.delta);
    const balance = await balanceOf(pass.id);
    expect(ledger.at(-1)!.balance).toBe(balance);
    expect(ledger.reduce((sum, row) => sum + row.delta, 0)).toBe(balance);
    expect(ledger.filter((row) => row.source === 'scan' && row.scanId)).toHaveLength(
      scans.length + results.filter((r) => r.body.scanInfo && !r.body.validationResponse).length,
    );
  });
});

describe('transactions that lose to concurrent ones', () => {
  // A trigger stands in for a concurrent transaction: it aborts the scan's transaction with
  // PostgreSQL's "deadlock detected" (40P01) on its first `failures` attempts. The sequence counts
  // attempts; sequences are not rolled back with the transaction.
  async function abortScans(failures: number): Promise<() => Promise<number>> {
    const sql = (text: string) => prisma().$executeRawUnsafe(text);
    await sql('CREATE SEQUENCE IF NOT EXISTS scan_attempts');
    await sql(`SELECT setval('scan_attempts', 1, false)`);
    await sql(`CREATE OR REPLACE FUNCTION abort_scan() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF nextval('scan_attempts') <= ${failures} THEN RAISE EXCEPTION 'deadlock detected' USING ERRCODE = '40P01'; END IF;
        RETURN NEW;
      END $$`);
    await sql('CREATE TRIGGER abort_scan BEFORE INSERT ON scans FOR EACH ROW EXECUTE FUNCTION abort_scan()');
    return async () => {
      await sql('DROP TRIGGER abort_scan ON scans');
      const [row] = await prisma().$queryRawUnsafe<{ attempts: number }[]>(
        `SELECT (CASE WHEN is_called THEN last_value ELSE 0 END)::int AS attempts FROM scan_attempts`,
      );
      return row!.attempts;
    };
  }

  it('runs a scan that lost to a deadlock again: 200, the scan and its change once', async () => {
    const pass = await newPass(10);
    const before = await scanCount();
    const restore = await abortScans(2);
    const res = await log({ readerId: 'till-view', scanType: 'nfc', status: 'successful', passId: pass.id, loyalty: { balance: 5 } });
    expect(await restore()).toBe(3);
    expect(res.status).toBe(200);
    expect(await scanCount()).toBe(before + 1);
    expect(await balanceOf(pass.id)).toBe(15);
  });

  it('answers 503 with Retry-After, not 500, when every attempt loses, and changes nothing', async () => {
    const pass = await newPass(10);
    const before = await scanCount();
    const restore = await abortScans(1000);
    const res = await validate({ readerId: 'till-all', scanType: 'nfc', passId: pass.id, loyalty: { balance: 5 } });
    expect(await restore()).toBe(6);
    expectError(res, 503, 'service_unavailable');
    expect(res.headers['retry-after']).toBe('1');
    expect(await scanCount()).toBe(before);
    expect(await balanceOf(pass.id)).toBe(10);
  });
});
