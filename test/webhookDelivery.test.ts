/**
 * Webhook events and their delivery, end to end through the HTTP API, the job workers and a
 * local receiver (test/support/webhookReceiver.ts): every event arrives signed, with the body the
 * contract's `webhooks:` section describes, in the order it happened for its pass; failures are
 * retried with growing, jittered delays and every attempt is listed; rotated secrets sign the
 * next requests; a destination whose name now resolves to a private address is refused at delivery time;
 * subscriptions failing delivery after delivery are disabled with a reason.
 */
import { createApnsClient, type ApnsClient } from '../src/wallet/apple/apns.ts';
import { setAppleConfiguration } from './support/appleCredentials.ts';
import { startFakeApns, type FakeApns } from './support/fakeApns.ts';
import { createTemplate, issuePass, loyaltyTemplate } from './support/passes.ts';
import { binary, SimulatedIphone } from './support/simulatedIphone.ts';
import { startTestService, type TestService } from './support/testService.ts';
import { startWebhookReceiver, verifyWebhookSignature, type ReceivedWebhook, type WebhookReceiver } from './support/webhookReceiver.ts';
import { webhookBodyProblems } from './support/webhookContract.ts';
import { pollUntil } from './support/poll.ts';
import { recordWebhookEvent } from '../src/domain/webhooks/webhookEvents.ts';
import type { Resolver } from '../src/net/outboundRequest.ts';

const ALL_EVENTS = ['passCreated', 'passInstalled', 'passRemoved', 'passScanned', 'passUpdated', 'batchCompleted', 'passTemplateProcessed'];
const BASE_MS = 1000;

let fake: FakeApns;
let apns: ApnsClient;
let service: TestService;
const receivers: WebhookReceiver[] = [];
const services: TestService[] = [];

beforeAll(async () => {
  fake = await startFakeApns();
  apns = createApnsClient({ baseUrl: fake.url, ca: fake.ca, requestTimeoutMs: 2000 });
  service = await startTestService({ jobs: 'work', apns, config: { webhookAllowPrivate: true, webhookRetryBaseMs: BASE_MS } });
});
afterAll(async () => {
  for (const receiver of receivers) await receiver.close();
  for (const other of services) await other.close();
  await service?.close();
  await apns?.close();
  await fake?.close();
});

async function receiver(): Promise<WebhookReceiver> {
  const started = await startWebhookReceiver();
  receivers.push(started);
  return started;
}

/** Creates a subscription through the API; returns its id and secret. */
async function subscribe(
  on: TestService,
  token: string,
  url: string,
  subscribedEvents = ALL_EVENTS,
  scope: Record<string, string> = { scopeType: 'organisation' },
) {
  const res = await on.api
    .post('/api/v1/webhook-subscriptions')
    .set(on.auth(token))
    .send({ webhookSubscription: { url, subscribedEvents, ...scope } })
    .expect(201);
  return { id: res.body.data.id as string, secret: res.body.data.attributes.secretKey as string };
}

const sendTest = (on: TestService, token: string, id: string) => on.api.post(`/api/v1/webhook-subscriptions/${id}/test-event`).set(on.auth(token)).expect(202);

function expectSignedAndDocumented(request: ReceivedWebhook, secret: string) {
  expect(verifyWebhookSignature(secret, request)).toBe(true);
  expect(request.headers['content-type']).toBe('application/json');
  expect(request.headers['x-webhook-id']).toBe(request.body.data.id);
  expect(request.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  expect(Math.abs(Number(request.headers['x-webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(60);
  expect(request.body.data.type).toBe('webhook');
  expect(webhookBodyProblems(request.body.data.attributes.webhookType, request.body)).toEqual([]);
}

it('delivers every event, signed, with the documented body, in order per pass, to the subscriptions of its account and scope', async () => {
  const hooks = await receiver();
  const tenant = await service.createAccount();
  const other = await service.createAccount();
  const entityId = await service.createEntity(tenant.accountId);
  await setAppleConfiguration(service, tenant.accountId);
  const all = await subscribe(service, tenant.token, `${hooks.url}/all`);
  const entity = await subscribe(service, tenant.token, `${hooks.url}/entity`, ['passScanned', 'batchCompleted', 'passCreated'], {
    scopeType: 'entity',
    scopeName: entityId,
  });
  await subscribe(service, other.token, `${hooks.url}/other`);
  const auth = service.auth(tenant.token);

  const templateId = await createTemplate(service, tenant.token, loyaltyTemplate());
  const pass = await issuePass(service, tenant.token, templateId, { pass: { points: '100', member: 'Ada' } });
  await service.api
    .patch(`/api/v1/passes/${pass.id}`)
    .set(auth)
    .send({ pass: { tier: 'Gold' } })
    .expect(200);
  await service.api.patch(`/api/v1/loyalty/${pass.id}`).set(auth).send({ balance: 25 }).expect(200);
  await service.api
    .post(`/api/v1/entities/${entityId}/readers`)
    .set(auth)
    .send({ reader: { id: 'till', name: 'Till', type: 'PartnerReader', password: 'correct horse battery', addPointsEnabled: true } })
    .expect(201);
  await service.api
    .post('/api/v1/scans/log')
    .set(auth)
    .send({ scan: { readerId: 'till', scanType: 'barcode', status: 'successful', passId: pass.id } })
    .expect(200);
  const pkpass = (await service.api.get(`/passes/${pass.id}/apple`).buffer(true).parse(binary).expect(200)).body as Buffer;
  const iphone = new SimulatedIphone(service);
  const held = await iphone.add(pkpass);
  await iphone.remove(held.serialNumber);
  const batch = await service.api
    .post(`/api/v1/entities/${entityId}/messaging/wallet`)
    .set(auth)
    .send({
      batch: {
        message: 'See you soon',
        scheduledAt: new Date(Date.now() + 3_600_000).toISOString().replace(/\.\d{3}Z$/, 'Z'),
        recipients: [{ passId: pass.id }],
      },
    })
    .expect(202);
  // Sent now once validated (send-now refuses a batch still validating its recipients).
  while ((await service.api.get(`/api/v1/batches/${batch.body.data.id}`).set(auth).expect(200)).body.data.attributes.status === 'validating') {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await service.api.post(`/api/v1/batches/${batch.body.data.id}/send-now`).set(auth).expect(200);

  const received = await hooks.waitFor(8, { filter: (r) => r.path === '/all' });
  for (const request of received) expectSignedAndDocumented(request, all.secret);
  const types = received.map((r) => r.body.data.attributes.webhookType);
  expect(new Set(types)).toEqual(new Set(ALL_EVENTS));
  const passEvents = received.filter((r) => r.body.data.relationships.pass);
  expect(passEvents.map((r) => r.body.data.attributes.webhookType)).toEqual([
    'passCreated',
    'passUpdated',
    'passUpdated',
    'passScanned',
    'passInstalled',
    'passRemoved',
  ]);
  for (const request of passEvents) {
    expect(request.body.data.relationships.pass.data).toEqual({ id: pass.id, type: 'pass' });
    expect(request.body.included[0]).toMatchObject({ id: pass.id, type: 'pass' });
  }
  // The pass as it was when the event happened.
  expect(passEvents[0]!.body.included[0].attributes.passContent.tier).not.toBe('Gold');
  expect(passEvents[1]!.body.included[0].attributes.passContent.tier).toBe('Gold');
  const template = received.find((r) => r.body.data.attributes.webhookType === 'passTemplateProcessed')!;
  expect(template.body.data.relationships.passTemplate.data).toEqual({ id: templateId, type: 'passTemplate' });
  const completed = received.find((r) => r.body.data.attributes.webhookType === 'batchCompleted')!;
  expect(completed.body.included[0]).toMatchObject({ id: batch.body.data.id, type: 'walletMessaging' });

  // The entity subscription gets what happens at its entity: the scan by its reader, its batch (not the pass creation).
  const atEntity = await hooks.waitFor(2, { filter: (r) => r.path === '/entity' });
  for (const request of atEntity) expectSignedAndDocumented(request, entity.secret);
  expect(atEntity.map((r) => r.body.data.attributes.webhookType).sort()).toEqual(['batchCompleted', 'passScanned']);
  await new Promise((resolve) => setTimeout(resolve, 1500));
  expect(hooks.received.filter((r) => r.path === '/entity')).toHaveLength(2);
  expect(hooks.received.filter((r) => r.path === '/all')).toHaveLength(8);
  expect(hooks.received.filter((r) => r.path === '/other')).toHaveLength(0);

  // Every attempt is listed with the subscription.
  const attempts = await service.api.get(`/api/v1/webhook-subscriptions/${all.id}/delivery-attempts?perPage=100`).set(auth).expect(200);
  expect(attempts.body.meta.totalCount).toBe(8);
  expect(
    attempts.body.data.every((a: { attributes: { outcome: string; status: number } }) => a.attributes.outcome === 'delivered' && a.attributes.status === 200),
  ).toBe(true);
}, 60_000);

it('retries a failing receiver with growing delays: two failures, then one success, every attempt listed', async () => {
  const hooks = await receiver();
  const tenant = await service.createAccount();
  const sub = await subscribe(service, tenant.token, `${hooks.url}/retry`);
  hooks.script(503, 503);
  const sent = await sendTest(service, tenant.token, sub.id);
  expect(webhookBodyProblems('test', sent.body)).toEqual([]);
  const requests = await hooks.waitFor(3);
  expect(requests.map((r) => r.status)).toEqual([503, 503, 200]);
  for (const request of requests) {
    expectSignedAndDocumented(request, sub.secret);
    expect(request.body).toEqual(sent.body);
  }
  expect(new Set(requests.map((r) => r.headers['x-webhook-id']))).toEqual(new Set([sent.body.data.id]));
  expect(new Set(requests.map((r) => r.headers['x-request-id'])).size).toBe(3);

  // The last attempt is recorded once the receiver's answer is back: wait for it.
  const rows = await pollUntil(
    () => service.database.db.prisma.webhookDeliveryAttempt.findMany({ where: { subscriptionId: sub.id }, orderBy: { id: 'asc' } }),
    (found) => found.length >= 3,
    { timeoutMs: 5000, intervalMs: 25 },
  );
  expect(rows.map((r) => r.outcome)).toEqual(['httpError', 'httpError', 'delivered']);
  const delays = rows.slice(0, 2).map((r) => r.nextAttemptAt!.getTime() - r.createdAt.getTime());
  // Equal jitter: the first wait is within [base/2, base], the second within [base, 2·base].
  expect(delays[0]).toBeGreaterThanOrEqual(BASE_MS / 2);
  expect(delays[0]).toBeLessThanOrEqual(BASE_MS);
  expect(delays[1]).toBeGreaterThanOrEqual(BASE_MS);
  expect(delays[1]).toBeLessThanOrEqual(2 * BASE_MS);
  expect(delays[1]).toBeGreaterThanOrEqual(delays[0]!);
  // Each retry came no sooner than its delay.
  expect(requests[1]!.at - requests[0]!.at).toBeGreaterThanOrEqual(delays[0]! - 50);
  expect(requests[2]!.at - requests[1]!.at).toBeGreaterThanOrEqual(delays[1]! - 50);

  const listed = await service.api.get(`/api/v1/webhook-subscriptions/${sub.id}/delivery-attempts`).set(service.auth(tenant.token)).expect(200);
  expect(
    listed.body.data.map((a: { attributes: Record<string, unknown> }) => [
      a.attributes.attempt,
      a.attributes.outcome,
      a.attributes.status,
      a.attributes.webhookType,
    ]),
  ).toEqual([
    [3, 'delivered', 200, 'test'],
    [2, 'httpError', 503, 'test'],
    [1, 'httpError', 503, 'test'],
  ]);
  expect(listed.body.data[1].attributes.responseSnippet).toBe('scripted 503');
  expect(listed.body.data[0].attributes.nextAttemptAt).toBeNull();
  expect(listed.body.data[2].attributes.requestId).toBe(requests[0]!.headers['x-request-id']);
  const metrics = service.runtime.metrics.registry;
  const counted = (await metrics.getSingleMetric('wallet_delivery_attempts_total')!.get()).values;
  expect(counted.find((v) => v.labels.channel === 'webhook' && v.labels.outcome === 'httpError')?.value).toBeGreaterThanOrEqual(2);
  const delivery = await service.database.db.prisma.webhookDelivery.findFirstOrThrow({ where: { subscriptionId: sub.id } });
  expect(delivery).toMatchObject({ status: 'delivered', attempts: 3 });
  await new Promise((resolve) => setTimeout(resolve, 1500));
  expect(hooks.received).toHaveLength(3);
}, 30_000);

it('sends the events of one key in order: a later event waits for an earlier one being retried', async () => {
  const hooks = await receiver();
  const tenant = await service.createAccount();
  const sub = await subscribe(service, tenant.token, `${hooks.url}/ordered`);
  hooks.script(500);
  const first = (await sendTest(service, tenant.token, sub.id)).body.data.id;
  await hooks.waitFor(1);
  const second = (await sendTest(service, tenant.token, sub.id)).body.data.id;
  const requests = await hooks.waitFor(3);
  expect(requests.map((r) => [r.body.data.id, r.status])).toEqual([
    [first, 500],
    [first, 200],
    [second, 200],
  ]);
}, 30_000);

it('signs the requests made after a rotation, retries of earlier events included, with the new secret', async () => {
  const hooks = await receiver();
  const tenant = await service.createAccount();
  const sub = await subscribe(service, tenant.token, `${hooks.url}/rotate`);
  hooks.script(503);
  await sendTest(service, tenant.token, sub.id);
  const [before] = await hooks.waitFor(1);
  expect(verifyWebhookSignature(sub.secret, before!)).toBe(true);
  const rotated = await service.api.patch(`/api/v1/webhook-subscriptions/${sub.id}/rotate-secret`).set(service.auth(tenant.token)).expect(200);
  const secret = rotated.body.data.attributes.secretKey as string;
  await sendTest(service, tenant.token, sub.id);
  const [, retry, next] = await hooks.waitFor(3);
  for (const request of [retry!, next!]) {
    expect(verifyWebhookSignature(secret, request)).toBe(true);
    expect(verifyWebhookSignature(sub.secret, request)).toBe(false);
  }
}, 30_000);

it('refuses, at delivery time, a URL whose name now resolves to a private, loopback, link-local or IPv4-mapped private address (no WEBHOOK_ALLOW_PRIVATE)', async () => {
  // The names resolved to a public address when the subscriptions were made; then DNS changed.
  const dns = new Map<string, string>();
  const resolveHost: Resolver = async (hostname) => {
    const address = dns.get(hostname);
    if (!address) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return [{ address, family: address.includes(':') ? 6 : 4 }];
  };
  const strict = await startTestService({ jobs: 'work', resolveHost, config: { webhookRetryBaseMs: 60_000 } });
  services.push(strict);
  const tenant = await strict.createAccount();
  const rebound = [
    ['hooks-a.merchant.example', '10.0.0.8', 'private'],
    ['hooks-b.merchant.example', '127.0.0.1', 'loopback'],
    ['hooks-c.merchant.example', '169.254.169.254', 'linkLocal'],
    ['hooks-d.merchant.example', '::ffff:172.16.0.9', 'private'],
  ] as const;
  const subscriptions: string[] = [];
  for (const [host] of rebound) {
    dns.set(host, '93.184.215.14');
    subscriptions.push((await subscribe(strict, tenant.token, `https://${host}/wallet-events`, ['passCreated'])).id);
  }
  for (const [host, address] of rebound) dns.set(host, address);
  for (const id of subscriptions) await sendTest(strict, tenant.token, id);
  const attemptsOf = async (id: string) =>
    (await strict.api.get(`/api/v1/webhook-subscriptions/${id}/delivery-attempts`).set(strict.auth(tenant.token)).expect(200)).body.data as {
      attributes: Record<string, unknown>;
    }[];
  const attempts = await pollUntil(
    async () => Promise.all(subscriptions.map(attemptsOf)),
    (all) => all.every((list) => list.length > 0),
    { timeoutMs: 15_000, intervalMs: 100 },
  );
  expect(attempts.map((list) => list[0]?.attributes)).toEqual(
    rebound.map(([host, address, range]) =>
      expect.objectContaining({
        outcome: 'refused',
        status: 0,
        attempt: 1,
        error: `${host} resolves to ${address}, a private or reserved address (${range}).`,
      }),
    ),
  );
}, 60_000);

it('marks a delivery failed after the retry window and disables a subscription after consecutive failed deliveries, with the reason', async () => {
  const hooks = await receiver();
  const failing = await startTestService({
    jobs: 'work',
    // A window of 3 s: a first attempt picked up late on a busy machine still leaves room for a retry in it.
    config: { webhookAllowPrivate: true, webhookRetryBaseMs: 100, webhookRetryWindowMs: 3000, webhookDisableAfterFailures: 2 },
  });
  services.push(failing);
  const tenant = await failing.createAccount();
  const auth = failing.auth(tenant.token);
  const sub = await subscribe(failing, tenant.token, `${hooks.url}/down`);
  hooks.script(...Array.from({ length: 200 }, () => 500));
  await sendTest(failing, tenant.token, sub.id);
  await sendTest(failing, tenant.token, sub.id);
  const deadline = Date.now() + 20_000;
  let attributes: Record<string, unknown> = {};
  while (Date.now() < deadline) {
    attributes = (await failing.api.get(`/api/v1/webhook-subscriptions/${sub.id}`).set(auth).expect(200)).body.data.attributes;
    if (!attributes.enabled) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  expect(attributes).toMatchObject({ enabled: false, consecutiveFailures: 2 });
  expect(attributes.disabledReason).toBe('Disabled after 2 deliveries in a row failed; the last answered 500.');
  const deliveries = await failing.database.db.prisma.webhookDelivery.findMany({ where: { subscriptionId: sub.id }, orderBy: { sequence: 'asc' } });
  expect(deliveries.map((d) => d.status)).toEqual(['failed', 'failed']);
  // The first was retried within its window; the second waited behind it past its own window, then was tried once.
  expect(deliveries[0]!.attempts).toBeGreaterThanOrEqual(2);
  expect(deliveries[1]!.attempts).toBeGreaterThanOrEqual(1);
  expect(failing.logText()).toContain('webhook subscription disabled');
  // Disabled: no test event, and no new events recorded.
  await failing.api.post(`/api/v1/webhook-subscriptions/${sub.id}/test-event`).set(auth).expect(409);
  // Enabled again by its owner: the reason and the count are cleared, deliveries go out again.
  hooks.reset();
  const enabled = await failing.api
    .patch(`/api/v1/webhook-subscriptions/${sub.id}`)
    .set(auth)
    .send({ webhookSubscription: { enabled: true } })
    .expect(200);
  expect(enabled.body.data.attributes).toMatchObject({ enabled: true, consecutiveFailures: 0, disabledReason: null });
  await sendTest(failing, tenant.token, sub.id);
  expect((await hooks.waitFor(1))[0]!.status).toBe(200);
}, 40_000);

it('takes up, at the next start, pending deliveries that have no job any more', async () => {
  const hooks = await receiver();
  const config = { webhookAllowPrivate: true, webhookRetryBaseMs: BASE_MS };
  const first = await startTestService({ jobs: 'enqueue', persistent: true, config });
  const tenant = await first.createAccount();
  const sub = await subscribe(first, tenant.token, `${hooks.url}/orphan`);
  // An event and its delivery as a job whose retries were all spent on database errors leaves them.
  const eventId = '0194f3f0-0a1b-7c2d-8e3f-4a5b6c7d8eff';
  const payload = JSON.stringify({ data: { id: eventId, type: 'webhook', attributes: { timeStamp: '2026-11-21T09:30:00Z', webhookType: 'test' } } });
  await first.database.db.prisma.$executeRaw`
    INSERT INTO webhook_events (id, account_id, event_type, payload, occurred_at) VALUES (${eventId}::uuid, ${tenant.accountId}::uuid, 'test', ${payload}, now())`;
  await first.database.db.prisma.$executeRaw`
    INSERT INTO webhook_deliveries (id, subscription_id, event_id, ordering_key, next_attempt_at, created_at)
    VALUES (gen_random_uuid(), ${sub.id}::uuid, ${eventId}::uuid, 'test', now(), now())`;
  const restarted = await first.restart({ jobs: 'work', persistent: true, config });
  services.push(restarted);
  const [request] = await hooks.waitFor(1);
  expect(request!.headers['x-webhook-id']).toBe(eventId);
  expect(request!.raw.toString('utf8')).toBe(payload);
  expect(verifyWebhookSignature(sub.secret, request!)).toBe(true);
}, 90_000); // two services on one persistent embedded database: each start can take 30 s on a loaded machine

it('keeps events, their deliveries and attempts 30 days: a new event of the account removes older ones', async () => {
  const hooks = await receiver();
  const tenant = await service.createAccount();
  const sub = await subscribe(service, tenant.token, `${hooks.url}/retention`);
  await sendTest(service, tenant.token, sub.id);
  await hooks.waitFor(1);
  const prisma = service.database.db.prisma;
  const [expired] = await prisma.webhookEvent.findMany({ where: { accountId: tenant.accountId } });
  await prisma.webhookEvent.update({ where: { id: expired!.id }, data: { occurredAt: new Date(Date.now() - 31 * 86_400_000) } });
  await sendTest(service, tenant.token, sub.id);
  await hooks.waitFor(2);
  const left = await prisma.webhookEvent.findMany({ where: { accountId: tenant.accountId } });
  expect(left).toHaveLength(1);
  expect(left[0]!.id).not.toBe(expired!.id);
  // The expired event's delivery and attempt went with it; the new one's attempt is recorded once the receiver answered.
  expect(await prisma.webhookDelivery.count({ where: { subscriptionId: sub.id } })).toBe(1);
  const deadline = Date.now() + 5000;
  while ((await prisma.webhookDeliveryAttempt.count({ where: { subscriptionId: sub.id } })) === 0 && Date.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, 25));
  const attempts = await prisma.webhookDeliveryAttempt.findMany({ where: { subscriptionId: sub.id }, include: { delivery: true } });
  expect(attempts.map((a) => a.delivery.eventId)).toEqual([left[0]!.id]);
}, 30_000);

it('records nothing and sends nothing when the write that caused an event rolls back', async () => {
  const hooks = await receiver();
  const tenant = await service.createAccount();
  const sub = await subscribe(service, tenant.token, `${hooks.url}/rollback`);
  const subject = '0194f3c4-2a6b-7d10-9e3f-4b5c6d7e8f90';
  const event = {
    accountId: tenant.accountId,
    entityId: null,
    type: 'passCreated' as const,
    subject: { relationship: 'pass' as const, type: 'pass' as const, id: subject },
    at: new Date(),
    resource: () => ({ id: subject, type: 'pass' }),
  };
  await expect(
    service.runtime.db.write(async (tx) => {
      expect(await recordWebhookEvent(tx, service.runtime, event)).toBe(1);
      throw new Error('the change failed after its event was recorded');
    }),
  ).rejects.toThrow('the change failed');
  const prisma = service.database.db.prisma;
  expect(await prisma.webhookEvent.count({ where: { accountId: tenant.accountId } })).toBe(0);
  expect(await prisma.webhookDelivery.count({ where: { subscriptionId: sub.id } })).toBe(0);
  const [jobs] = await prisma.$queryRaw<
    { n: number }[]
  >`SELECT count(*)::int AS n FROM pgboss.job WHERE name = 'webhook-delivery' AND singleton_key LIKE ${`${sub.id}/%`}`;
  expect(jobs!.n).toBe(0);
  // The same event in a write that commits is delivered.
  await service.runtime.db.write((tx) => recordWebhookEvent(tx, service.runtime, event));
  const [request] = await hooks.waitFor(1);
  expect(request!.body.data.relationships.pass.data.id).toBe(subject);
}, 30_000);

it("lists a pass's webhook delivery attempts across the account's subscriptions, failed and retried ones included (listPassWebhookDeliveryAttempts)", async () => {
  const hooks = await receiver();
  const tenant = await service.createAccount();
  const other = await service.createAccount();
  await subscribe(service, tenant.token, `${hooks.url}/a`, ['passCreated', 'passUpdated']);
  await subscribe(service, tenant.token, `${hooks.url}/b`, ['passCreated']);
  const templateId = await createTemplate(service, tenant.token, loyaltyTemplate());
  // The first request to /a fails (503) and is retried; /b answers at once.
  hooks.script(503);
  const pass = await issuePass(service, tenant.token, templateId, { pass: { member: 'Ada' } }, { extId: 'ada-webhooks' });
  const neighbour = await issuePass(service, tenant.token, templateId, { pass: { member: 'Grace' } });
  const list = (id: string, token = tenant.token, query = '') =>
    service.api.get(`/api/v1/passes/${id}/webhook-delivery-attempts${query}`).set(service.auth(token));
  const attempts = await pollUntil(
    async () => (await list(pass.id).expect(200)).body.data as { attributes: Record<string, unknown> }[],
    (data) => data.filter((a) => a.attributes.outcome === 'delivered').length >= 2,
    { timeoutMs: 15_000, intervalMs: 100 },
  );
  expect(attempts.map((a) => a.attributes.webhookType)).toEqual(attempts.map(() => 'passCreated'));
  expect(attempts.map((a) => a.attributes.outcome).sort()).toEqual(['delivered', 'delivered', 'httpError']);
  expect(attempts.find((a) => a.attributes.outcome === 'httpError')?.attributes).toMatchObject({ status: 503, attempt: 1 });
  // By extId too, paginated, and only this pass's events.
  const byExtId = await list('ada-webhooks', tenant.token, '?perPage=1').expect(200);
  expect(byExtId.body.meta).toMatchObject({ totalCount: 3, totalPages: 3 });
  const neighbours = await list(neighbour.id).expect(200);
  expect(neighbours.body.data.every((a: { attributes: { eventId: string } }) => !attempts.some((b) => b.attributes.eventId === a.attributes.eventId))).toBe(
    true,
  );
  expect((await list(pass.id, other.token)).status).toBe(404);
});
