/**
 * Passes, nullifyPass (spec §2.3, §4.16; PassEntry pass nullify) through HTTP on a real database, with the job
 * workers processing templates as in the server and every response validated against the
 * contract: what a nullified pass keeps and loses, idempotence, a keyed retry, 400, 404 and 401,
 * and no request body read.
 */
import type { Clock } from '../src/clock.ts';
import { startTestService, type TestService } from './support/testService.ts';
import { expectError, issuePass, passApi, setUpPassTenants, type PassTenants } from './support/passes.ts';

/** The system clock, movable forward (a second nullify comes later than the first). */
const clock: Clock & { offsetMs: number } = { offsetMs: 0, now: () => new Date(Date.now() + clock.offsetMs) };

let service: TestService;
let tenant: PassTenants['tenant'];
let other: PassTenants['other'];
let loyaltyId: string;
let otherTemplateId: string;

beforeAll(async () => {
  service = await startTestService({ jobs: 'work', clock });
  ({ tenant, other, loyaltyId, otherTemplateId } = await setUpPassTenants(service));
});
afterAll(() => service.close());

const { auth, get, nullify, issue, passResource } = passApi(
  () => service,
  () => tenant,
  () => loyaltyId,
);

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
