/**
 * Loyalty (spec §4.15; PassEntry loyalty update): getLoyalty and updateLoyalty through HTTP on
 * a real database, responses validated against the contract; the loyalty ledger; atomic
 * concurrent changes; Idempotency-Key on updateLoyalty; and `changeLoyaltyBalance` as the scans
 * will call it (source `scan`, inside their transaction).
 */
import { changeLoyaltyBalance } from '../src/domain/loyalty/loyaltyLedgerStore.ts';
import { findPass } from '../src/domain/passes/passStore.ts';
import { startTestService, type TestService } from './support/testService.ts';
import { startWebhookReceiver } from './support/webhookReceiver.ts';
import { createTemplate, expectError, issuePass, loyaltyTemplate, setUpPassTenants, setWalletState, type PassTenants } from './support/passes.ts';

const BASE = 'http://wallet.test';
const UNKNOWN_ID = '0194f3a2-7c1e-7a51-9d7e-0b6a2f1c9e10';

let service: TestService;
let tenant: PassTenants['tenant'];
let other: PassTenants['other'];
let loyaltyId: string;
let plainId: string;
let otherTemplateId: string;

beforeAll(async () => {
  service = await startTestService({ jobs: 'work' });
  ({ tenant, other, loyaltyId, plainId, otherTemplateId } = await setUpPassTenants(service));
});
afterAll(() => service.close());

const auth = (token = tenant.token) => service.auth(token);
const prisma = () => service.database.db.prisma;
const issue = (body: unknown = { pass: {} }, query: Record<string, string> = {}, templateId = loyaltyId) =>
  issuePass(service, tenant.token, templateId, body, query);

function show(idOrExtId: string, query = '', token = tenant.token) {
  return service.api.get(`/api/v1/loyalty/${encodeURIComponent(idOrExtId)}${query}`).set(auth(token));
}
function change(idOrExtId: string, body: unknown, token = tenant.token) {
  return service.api
    .patch(`/api/v1/loyalty/${encodeURIComponent(idOrExtId)}`)
    .set(auth(token))
    .send(body as object);
}
function ledgerOf(passId: string) {
  return prisma().loyaltyLedgerEntry.findMany({
    where: { passId },
    orderBy: { id: 'asc' },
    select: { delta: true, balance: true, source: true, scanId: true },
  });
}

describe('getLoyalty', () => {
  it('returns the pass with its balance in meta.loyalty, by UUID and by extId', async () => {
    const pass = await issue({ pass: { points: '120', member: 'Ada' } }, { extId: 'loyal-1' });
    const res = await show(pass.id).expect(200);
    expect(res.body).toEqual({ data: pass, meta: { loyalty: { balance: 120 } } });
    expect((await show('loyal-1').expect(200)).body).toEqual(res.body);
  });

  it('tries a UUID-shaped extId after the ids', async () => {
    const uuidShaped = '0194f3a2-1111-7000-8000-00000000beef';
    const pass = await issue({ pass: { points: '3' } }, { extId: uuidShaped });
    expect((await show(uuidShaped).expect(200)).body.data.id).toBe(pass.id);
  });

  it('adds the design, and the locations and beacons when there are any', async () => {
    const pass = await issue();
    const res = await show(pass.id, '?includePassDesign=true&includeLocations=true&includeBeacons=true').expect(200);
    expect(res.body.data.attributes).toMatchObject({
      passDesign: { templateType: 'loyalty', fields: loyaltyTemplate().fields },
      locations: loyaltyTemplate().locations,
      beacons: loyaltyTemplate().beacons,
    });
    const bare = await issue({ pass: {} }, {}, plainId);
    const plain = await show(bare.id, '?includeLocations=true&includeBeacons=true').expect(200);
    expect(plain.body.data.attributes).not.toHaveProperty('locations');
    expect(plain.body.data.attributes).not.toHaveProperty('beacons');
    expect(plain.body.meta.loyalty.balance).toBe(0);
  });

  it('answers 400 for includePassSource, which only getPass has', async () => {
    const pass = await issue();
    expectError(await show(pass.id, '?includePassSource=apple'), 400, 'validation_failed', { parameter: 'includePassSource' });
  });

  it('answers 404 for an unknown pass and another account’s pass, 401 without a key', async () => {
    expectError(await show(UNKNOWN_ID), 404, 'not_found', { parameter: 'id' });
    expectError(await show('no-such-member'), 404, 'not_found');
    const theirs = await issuePass(service, other.token, otherTemplateId, { pass: {} }, { extId: 'their-member' });
    expectError(await show(theirs.id), 404, 'not_found');
    expectError(await show('their-member'), 404, 'not_found');
    expectError(await service.api.get(`/api/v1/loyalty/${theirs.id}`), 401, 'unauthorized');
  });
});

describe('updateLoyalty', () => {
  it('adds a positive change and subtracts a negative one, showing the balance in the loyalty field', async () => {
    const pass = await issue({ pass: { points: '100' } }, { extId: 'member-add' });
    const added = await change('member-add', { balance: 25, message: '25 points for your visit today.' }).expect(200);
    expect(added.body).toEqual({
      data: {
        ...pass,
        attributes: {
          ...pass.attributes,
          passContent: { ...(pass.attributes.passContent as object), points: '125' },
          latestMessage: '25 points for your visit today.',
        },
      },
      meta: { loyalty: { balance: 125 } },
    });
    const subtracted = await change(pass.id, { balance: -30 }).expect(200);
    expect(subtracted.body.meta.loyalty.balance).toBe(95);
    expect(subtracted.body.data.attributes.latestMessage).toBe('25 points for your visit today.');
    expect((await show(pass.id).expect(200)).body.meta.loyalty.balance).toBe(95);
    expect(await ledgerOf(pass.id)).toEqual([
      { delta: 100, balance: 100, source: 'api', scanId: null },
      { delta: 25, balance: 125, source: 'api', scanId: null },
      { delta: -30, balance: 95, source: 'api', scanId: null },
    ]);
  });

  it('sets the balance with overrideBalance, recording the difference', async () => {
    const pass = await issue({ pass: { points: '40' } });
    expect((await change(pass.id, { overrideBalance: 7 }).expect(200)).body.meta.loyalty.balance).toBe(7);
    expect((await change(pass.id, { overrideBalance: 7 }).expect(200)).body.meta.loyalty.balance).toBe(7);
    expect(await ledgerOf(pass.id)).toEqual([
      { delta: 40, balance: 40, source: 'api', scanId: null },
      { delta: -33, balance: 7, source: 'api', scanId: null },
      { delta: 0, balance: 7, source: 'api', scanId: null },
    ]);
  });

  it('allows negative balances, both by change and by override', async () => {
    const pass = await issue();
    expect((await change(pass.id, { balance: -5 }).expect(200)).body.data.attributes.passContent.points).toBe('-5');
    expect((await change(pass.id, { overrideBalance: -1000000000 }).expect(200)).body.meta.loyalty.balance).toBe(-1000000000);
  });

  it('keeps a balance on passes without a loyalty field', async () => {
    const pass = await issue({ pass: {} }, {}, plainId);
    const res = await change(pass.id, { balance: 3 }).expect(200);
    expect(res.body.meta.loyalty.balance).toBe(3);
    expect(res.body.data.attributes.passContent).toEqual({ guest: 'Anonymous' });
  });

  it('changes deactivated and active passes', async () => {
    const active = await issue();
    await setWalletState(service, active.id, 'active');
    await change(active.id, { balance: 1 }).expect(200);
    const deactivated = await issue();
    await service.api.patch(`/api/v1/passes/${deactivated.id}`).set(auth()).send({ passAction: 'deactivate' }).expect(200);
    await change(deactivated.id, { balance: 1 }).expect(200);
  });

  it('applies 200 concurrent +1 changes exactly: +200 and 200 ledger rows', async () => {
    const pass = await issue({ pass: { points: '1000' } });
    const results = await Promise.all(Array.from({ length: 200 }, () => change(pass.id, { balance: 1 })));
    expect(results.map((r) => r.status)).toEqual(Array(200).fill(200));
    expect((await show(pass.id).expect(200)).body.meta.loyalty.balance).toBe(1200);
    const ledger = (await ledgerOf(pass.id)).slice(1);
    expect(ledger).toHaveLength(200);
    expect(ledger.every((row) => row.delta === 1)).toBe(true);
    // Each change saw the one before it: the resulting balances are 1001…1200, each once.
    expect(ledger.map((row) => row.balance).sort((a, b) => a - b)).toEqual(Array.from({ length: 200 }, (_, i) => 1001 + i));
    expect(results.map((r) => r.body.meta.loyalty.balance).sort((a: number, b: number) => a - b)).toEqual(Array.from({ length: 200 }, (_, i) => 1001 + i));
  });

  it('keeps the ledger summing to the balance under concurrent changes and overrides', async () => {
    const pass = await issue();
    const bodies = Array.from({ length: 40 }, (_, i) => (i % 10 === 0 ? { overrideBalance: i } : { balance: i % 2 ? 3 : -2 }));
    const results = await Promise.all(bodies.map((body) => change(pass.id, body)));
    expect(results.every((r) => r.status === 200)).toBe(true);
    const ledger = await ledgerOf(pass.id);
    const { balance } = (await show(pass.id).expect(200)).body.meta.loyalty;
    expect(ledger).toHaveLength(40);
    expect(ledger.reduce((sum, row) => sum + row.delta, 0)).toBe(balance);
    expect(ledger.at(-1)!.balance).toBe(balance);
  });

  it.each([
    ['neither balance nor overrideBalance', { message: 'Hi' }, { pointer: '' }],
    ['both balance and overrideBalance', { balance: 1, overrideBalance: 5 }, { pointer: '/overrideBalance' }],
    ['an empty body', {}, { pointer: '' }],
    ['a balance that is not an integer', { balance: 1.5 }, { pointer: '/balance' }],
    ['a change beyond a billion', { balance: 1000000001 }, { pointer: '/balance' }],
    ['an override beyond a billion', { overrideBalance: -1000000001 }, { pointer: '/overrideBalance' }],
    ['a message longer than 350 characters', { balance: 1, message: 'x'.repeat(351) }, { pointer: '/message' }],
    ['an unknown member', { points: 5 }, undefined],
  ])('answers 400 for %s and changes nothing', async (_case, body, source) => {
    const pass = await issue({ pass: { points: '9' } });
    expectError(await change(pass.id, body), 400, 'validation_failed', source);
    expect((await show(pass.id).expect(200)).body.data.attributes).toMatchObject({ passContent: { points: '9' }, latestMessage: null });
    expect(await ledgerOf(pass.id)).toHaveLength(1);
  });

  it('answers 409 for a result beyond a billion, leaving the balance', async () => {
    const pass = await issue({ pass: { points: '999999999' } });
    const res = await change(pass.id, { balance: 2, message: 'Not stored' });
    expectError(res, 409, 'conflict', { pointer: '/balance' });
    expect(res.body.errors[0].detail).toContain('1000000001');
    expect((await show(pass.id).expect(200)).body.data.attributes).toMatchObject({ passContent: { points: '999999999' }, latestMessage: null });
    expect(await ledgerOf(pass.id)).toHaveLength(1);
  });

  it('answers 409 for a nullified pass', async () => {
    const pass = await issue({ pass: { points: '5' } });
    await service.api.post(`/api/v1/passes/${pass.id}/nullify`).set(auth()).expect(200);
    expectError(await change(pass.id, { balance: 1 }), 409, 'conflict');
    expectError(await change(pass.id, { overrideBalance: 1 }), 409, 'conflict');
    expect((await show(pass.id).expect(200)).body.meta.loyalty.balance).toBe(5);
  });

  it('answers 404 for an unknown pass and another account’s pass; 401 without a key; 415 for another media type', async () => {
    expectError(await change(UNKNOWN_ID, { balance: 1 }), 404, 'not_found', { parameter: 'id' });
    const theirs = await issuePass(service, other.token, otherTemplateId);
    expectError(await change(theirs.id, { balance: 1 }), 404, 'not_found');
    expect((await show(theirs.id, '', other.token).expect(200)).body.meta.loyalty.balance).toBe(0);
    expectError(await service.api.patch(`/api/v1/loyalty/${theirs.id}`).send({ balance: 1 }), 401, 'unauthorized');
    const text = await service.api.patch(`/api/v1/loyalty/${theirs.id}`).set(auth()).set('Content-Type', 'text/plain').send('balance=1');
    expectError(text, 415, 'unsupported_media_type');
  });
});

describe('Idempotency-Key on updateLoyalty', () => {
  const keyed = (passId: string, key: string, body: unknown) =>
    service.api
      .patch(`/api/v1/loyalty/${passId}`)
      .set(auth())
      .set('Idempotency-Key', key)
      .send(body as object);

  it('applies a retried change once and replays its response', async () => {
    const pass = await issue({ pass: { points: '10' } });
    const first = await keyed(pass.id, 'loyalty-1', { balance: 5 }).expect(200);
    const retry = await keyed(pass.id, 'loyalty-1', { balance: 5 }).expect(200);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.text).toBe(first.text);
    expect((await show(pass.id).expect(200)).body.meta.loyalty.balance).toBe(15);
    expect(await ledgerOf(pass.id)).toHaveLength(2);
  });

  it('answers 422 for the key with another body, changing nothing', async () => {
    const pass = await issue({ pass: { points: '10' } });
    await keyed(pass.id, 'loyalty-2', { balance: 5 }).expect(200);
    expectError(await keyed(pass.id, 'loyalty-2', { balance: 6 }), 422, 'idempotency_key_reused', { header: 'Idempotency-Key' });
    expectError(await keyed(pass.id, 'loyalty-2', { overrideBalance: 5 }), 422, 'idempotency_key_reused');
    expect((await show(pass.id).expect(200)).body.meta.loyalty.balance).toBe(15);
  });

  it('applies concurrent retries with one key once', async () => {
    const pass = await issue();
    const results = await Promise.all(Array.from({ length: 10 }, () => keyed(pass.id, 'loyalty-concurrent', { balance: 1 })));
    expect(results.map((r) => r.status)).toEqual(Array(10).fill(200));
    expect(results.filter((r) => r.headers['idempotent-replayed'] === 'true')).toHaveLength(9);
    expect((await show(pass.id).expect(200)).body.meta.loyalty.balance).toBe(1);
    expect(await ledgerOf(pass.id)).toHaveLength(1);
  });
});

describe('updateLoyalty delivery through the pass-change outbox', () => {
  it('keeps a change whose delivery could not be queued, and a worker delivers it later with the changed pass', async () => {
    const receiver = await startWebhookReceiver();
    let node = await startTestService({ jobs: 'work', persistent: true, config: { webhookAllowPrivate: true } });
    try {
      const account = await node.createAccount();
      const templateId = await createTemplate(node, account.token, loyaltyTemplate());
      await node.api
        .post('/api/v1/webhook-subscriptions')
        .set(node.auth(account.token))
        .send({ webhookSubscription: { url: `${receiver.url}/hooks`, subscribedEvents: ['passUpdated'], scopeType: 'organisation' } })
        .expect(201);
      const pass = await issuePass(node, account.token, templateId, { pass: { points: '10' } });
      // The change commits in its own statement; with the job queue stopped its relay fails and the row stays.
      await node.runtime.passChangeRelay.stop();
      await node.jobs.stop();
      const res = await node.api.patch(`/api/v1/loyalty/${pass.id}`).set(node.auth(account.token)).send({ balance: 5, message: 'Five more' }).expect(200);
      expect(res.body.meta.loyalty).toEqual({ balance: 15 });
      expect(await node.database.db.prisma.passChangeOutboxEntry.count({ where: { passId: pass.id } })).toBe(1);
      expect(node.logs.some((line) => line.msg === 'the pass change is committed; the outbox relay will deliver it')).toBe(true);
      // A process that works jobs relays it: the event, with the pass as it is, and no row left.
      node = await node.restart({ jobs: 'work', persistent: true, config: { webhookAllowPrivate: true }, passChangeRelayIntervalMs: 500 });
      const [event] = await receiver.waitFor(1, { timeoutMs: 15_000 });
      expect(event!.body.data.attributes.webhookType).toBe('passUpdated');
      expect(event!.body.included[0]).toMatchObject({ id: pass.id, attributes: { latestMessage: 'Five more' } });
      expect((await node.api.get(`/api/v1/loyalty/${pass.id}`).set(node.auth(account.token)).expect(200)).body.meta.loyalty).toEqual({ balance: 15 });
      expect(await node.database.db.prisma.passChangeOutboxEntry.count({ where: { passId: pass.id } })).toBe(0);
      // A change relayed by its own request leaves no row and sends its event at once.
      await node.api.patch(`/api/v1/loyalty/${pass.id}`).set(node.auth(account.token)).send({ balance: 1 }).expect(200);
      expect(await node.database.db.prisma.passChangeOutboxEntry.count({ where: { passId: pass.id } })).toBe(0);
      expect((await receiver.waitFor(2, { timeoutMs: 5_000 }))[1]!.body.data.attributes.webhookType).toBe('passUpdated');
      // With an Idempotency-Key the change and its relay share the key's transaction.
      await node.api.patch(`/api/v1/loyalty/${pass.id}`).set(node.auth(account.token)).set('Idempotency-Key', 'outbox-key-1').send({ balance: 2 }).expect(200);
      expect(await node.database.db.prisma.passChangeOutboxEntry.count({ where: { passId: pass.id } })).toBe(0);
      const third = (await receiver.waitFor(3, { timeoutMs: 5_000 }))[2]!;
      expect(third.body.data).toMatchObject({ attributes: { webhookType: 'passUpdated' }, relationships: { pass: { data: { id: pass.id } } } });
      expect((await node.api.get(`/api/v1/loyalty/${pass.id}`).set(node.auth(account.token)).expect(200)).body.meta.loyalty).toEqual({ balance: 18 });
    } finally {
      await node.close();
      await receiver.close();
    }
  }, 90_000);
});

describe('changeLoyaltyBalance (for scans)', () => {
  it('records a scan change inside the caller’s transaction, and nothing when it rolls back', async () => {
    const pass = await issue({ pass: { points: '50' } }, { extId: 'scanned-1' });
    // The scan row itself (and the ledger's foreign key to it) belong to the scans; none here.
    const scanId = null;
    const found = await findPass(prisma(), tenant.accountId, 'scanned-1');
    expect(found?.id).toBe(pass.id);
    await prisma().$transaction(async (tx) => {
      const result = await changeLoyaltyBalance(tx, {
        accountId: tenant.accountId,
        passId: pass.id,
        change: { delta: -20 },
        source: 'scan',
        scanId,
        now: new Date(),
      });
      expect(result).toEqual({ delta: -20, balance: 30 });
    });
    await expect(
      prisma().$transaction(async (tx) => {
        await changeLoyaltyBalance(tx, { accountId: tenant.accountId, passId: pass.id, change: { delta: 5 }, source: 'scan', scanId, now: new Date() });
        throw new Error('the scan could not be stored');
      }),
    ).rejects.toThrow('the scan could not be stored');
    expect((await show(pass.id).expect(200)).body.meta.loyalty.balance).toBe(30);
    expect(await ledgerOf(pass.id)).toEqual([
      { delta: 50, balance: 50, source: 'api', scanId: null },
      { delta: -20, balance: 30, source: 'scan', scanId },
    ]);
  });

  it('refuses another account’s pass', async () => {
    const pass = await issue();
    await expect(
      changeLoyaltyBalance(prisma(), { accountId: other.accountId, passId: pass.id, change: { delta: 1 }, source: 'api', now: new Date() }),
    ).rejects.toMatchObject({
      kind: 'notFound',
    });
    expect(await findPass(prisma(), other.accountId, pass.id)).toBeNull();
  });
});

it('links every pass to its holder page', async () => {
  const pass = await issue();
  expect(pass.attributes.downloadUrl).toBe(`${BASE}/passes/${pass.id}`);
});
