/**
 * Passes, updatePass (spec §2.3, §4.16; PassEntry pass update) through HTTP on a real database, with the
 * job workers processing templates as in the server and every response validated against the
 * contract: the members it changes, the loyalty balance, the status transitions of the contract's
 * PassStatus table, one transaction per update, 400, 404, 401 and 415.
 */
import { startTestService, type TestService } from './support/testService.ts';
import { expectError, issuePass, loyaltyTemplate, passApi, setUpPassTenants, setWalletState, type PassTenants } from './support/passes.ts';

const UNKNOWN_ID = '0194f3a2-7c1e-7a51-9d7e-0b6a2f1c9e10';

let service: TestService;
let tenant: PassTenants['tenant'];
let other: PassTenants['other'];
let loyaltyId: string;
let otherTemplateId: string;

beforeAll(async () => {
  service = await startTestService({ jobs: 'work' });
  ({ tenant, other, loyaltyId, otherTemplateId } = await setUpPassTenants(service));
});
afterAll(() => service.close());

const { auth, prisma, get, patch, nullify, issue, passResource } = passApi(
  () => service,
  () => tenant,
  () => loyaltyId,
);

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
