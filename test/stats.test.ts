/**
 * The account statistics (getStats) through HTTP on a real database, responses validated against
 * the contract: every day of the range listed with zeros, passes issued, added to Apple and
 * Google Wallet and removed, scans, failed wallet deliveries and webhook requests counted on
 * their UTC day, the last 24 hours' failures, the default range, tenancy and the range checks.
 */
import { startTestService, TestClock, type TestService } from './support/testService.ts';
import { createTemplate, expectError, issuePass, loyaltyTemplate } from './support/passes.ts';

const clock = new TestClock(new Date('2026-11-19T10:00:00Z'));
let service: TestService;
let tenant: { accountId: string; token: string };
let other: { accountId: string; token: string };

const prisma = () => service.database.db.prisma;
const stats = (query = '', token = tenant.token) => service.api.get(`/api/v1/stats${query}`).set(service.auth(token));

/** Records a webhook request with the outcome at the time, for a new subscription, event and delivery of the account. */
async function webhookAttempt(accountId: string, outcome: string, at: Date): Promise<void> {
  const subscription = await prisma().webhookSubscription.create({
    data: {
      accountId,
      scopeType: 'organisation',
      scopeName: accountId,
      url: `https://hooks.example.com/${outcome}`,
      secretEncrypted: Buffer.alloc(1),
      subscribedEvents: ['passCreated'],
    },
  });
  const event = await prisma().webhookEvent.create({ data: { accountId, eventType: 'passCreated', payload: '{}', occurredAt: at } });
  const delivery = await prisma().webhookDelivery.create({
    data: { subscriptionId: subscription.id, eventId: event.id, orderingKey: 'k', nextAttemptAt: at, createdAt: at },
  });
  await prisma().webhookDeliveryAttempt.create({
    data: {
      subscriptionId: subscription.id,
      deliveryId: delivery.id,
      attempt: 1,
      requestId: event.id,
      outcome,
      status: outcome === 'delivered' ? 200 : 500,
      durationMs: 5,
      createdAt: at,
    },
  });
}

beforeAll(async () => {
  service = await startTestService({ jobs: 'work', clock });
  tenant = await service.createAccount('Coffee Club Ltd');
  other = await service.createAccount('Other Tenant');
  const entityId = await service.createEntity(tenant.accountId, 'Soho');
  const templateId = await createTemplate(service, tenant.token, loyaltyTemplate());
  const otherTemplateId = await createTemplate(service, other.token, loyaltyTemplate());
  await service.api
    .post(`/api/v1/entities/${entityId}/readers`)
    .set(service.auth(tenant.token))
    .send({ reader: { id: 'till', name: 'Till', type: 'PartnerReader', password: 'correct horse battery' } })
    .expect(201);
  // 19 Nov: two passes issued, one scan. 20 Nov 23:59 UTC: one pass issued (still the 20th in UTC).
  const first = await issuePass(service, tenant.token, templateId, { pass: { points: '1' } });
  const second = await issuePass(service, tenant.token, templateId, { pass: { points: '1' } });
  await service.api
    .post('/api/v1/scans/log')
    .set(service.auth(tenant.token))
    .send({ scan: { readerId: 'till', scanType: 'barcode', status: 'successful', passId: first.id } })
    .expect(200);
  clock.set('2026-11-20T23:59:59Z');
  const third = await issuePass(service, tenant.token, templateId, { pass: { points: '1' } });
  await issuePass(service, other.token, otherTemplateId, { pass: { points: '1' } });
  // Wallet states come from devices and Google; set here as they record them.
  await prisma().pass.update({ where: { id: first.id }, data: { status: 'active', addedAt: new Date('2026-11-20T08:00:00Z'), deviceType: 'iphone' } });
  await prisma().pass.update({ where: { id: second.id }, data: { status: 'active', addedAt: new Date('2026-11-20T09:00:00Z'), deviceType: 'android' } });
  await prisma().pass.update({
    where: { id: third.id },
    data: { status: 'removed', addedAt: new Date('2026-11-21T08:00:00Z'), deviceType: 'iphone', removedAt: new Date('2026-11-21T09:00:00Z') },
  });
  const attempt = (outcome: string, at: string) => ({
    accountId: tenant.accountId,
    passId: first.id,
    channel: 'apns' as const,
    target: 'device',
    operation: 'push',
    outcome,
    status: 410,
    attempt: 1,
    createdAt: new Date(at),
  });
  await prisma().deliveryAttempt.createMany({
    data: [attempt('unregistered', '2026-11-19T12:00:00Z'), attempt('delivered', '2026-11-21T09:00:00Z'), attempt('retry', '2026-11-21T09:30:00Z')],
  });
  await webhookAttempt(tenant.accountId, 'httpError', new Date('2026-11-21T09:45:00Z'));
  await webhookAttempt(tenant.accountId, 'delivered', new Date('2026-11-21T09:46:00Z'));
  await webhookAttempt(other.accountId, 'timeout', new Date('2026-11-21T09:47:00Z'));
  clock.set('2026-11-21T10:00:00Z');
});
afterAll(() => service.close());

const zero = { passesIssued: 0, passesInstalledApple: 0, passesInstalledGoogle: 0, passesRemoved: 0, scans: 0, deliveryFailures: 0, webhookFailures: 0 };

describe('getStats', () => {
  it('counts each series on its UTC day, every day listed, and the last 24 hours of failures', async () => {
    const res = await stats('?from=2026-11-18&to=2026-11-22&interval=day').expect(200);
    expect(res.body.data).toMatchObject({ id: tenant.accountId, type: 'stats' });
    expect(res.body.data.attributes).toEqual({
      from: '2026-11-18',
      to: '2026-11-22',
      interval: 'day',
      days: [
        { date: '2026-11-18', ...zero },
        { date: '2026-11-19', ...zero, passesIssued: 2, scans: 1, deliveryFailures: 1 },
        { date: '2026-11-20', ...zero, passesIssued: 1, passesInstalledApple: 1, passesInstalledGoogle: 1 },
        { date: '2026-11-21', ...zero, passesInstalledApple: 1, passesRemoved: 1, deliveryFailures: 1, webhookFailures: 1 },
        { date: '2026-11-22', ...zero },
      ],
      last24Hours: { deliveryFailures: 1, webhookFailures: 1 },
    });
  });

  it('defaults to the 30 days ending today (UTC), and counts another account separately', async () => {
    const res = await stats().expect(200);
    const { from, to, days } = res.body.data.attributes;
    expect([from, to, days.length]).toEqual(['2026-10-23', '2026-11-21', 30]);
    const mine = await stats('?to=2026-11-20&from=2026-11-20', other.token).expect(200);
    expect(mine.body.data.attributes.days).toEqual([{ date: '2026-11-20', ...zero, passesIssued: 1 }]);
    expect(mine.body.data.attributes.last24Hours).toEqual({ deliveryFailures: 0, webhookFailures: 1 });
  });

  it('refuses a range that ends before it starts or is longer than 366 days, naming `to`', async () => {
    expectError(await stats('?from=2026-11-21&to=2026-11-20'), 400, 'validation_failed', { parameter: 'to' });
    expectError(await stats('?from=2025-11-20&to=2026-11-21'), 400, 'validation_failed', { parameter: 'to' });
    expect((await stats('?from=2025-11-21&to=2026-11-21').expect(200)).body.data.attributes.days).toHaveLength(366);
  });

  it('refuses a date that is not a calendar day and an unknown interval', async () => {
    expect((await stats('?from=2026-02-30')).status).toBe(400);
    expect((await stats('?interval=week')).status).toBe(400);
  });

  it('needs an API key', async () => {
    expectError(await service.api.get('/api/v1/stats'), 401, 'unauthorized');
  });
});
