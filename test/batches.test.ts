/**
 * Batches (spec §2.8, §4.14; PassEntry wallet messaging): createWalletMessagingBatch,
 * listBatches, getBatch, sendBatchNow, cancelBatch and getBatchErrors through HTTP on a real
 * database, responses validated against the contract, with the `wallet-messaging` job run by the
 * service's workers — or, where a test must stop the batch at a given step, by calling the job's
 * own step function (`advanceBatch`) on a service whose jobs only queue.
 *
 * Covers the status flow (every allowed and refused transition), scheduling by the injected
 * clock, placeholder rendering from recipient variables and pass fields, the errors CSV, a
 * restart in the middle of sending (no pass messaged twice), and tenancy.
 */
import type { Response } from 'supertest';
import { advanceBatch, type BatchJobDependencies } from '../src/delivery/walletMessagingJob.ts';
import { processTemplateVersion } from '../src/domain/passTemplates/processPassTemplate.ts';
import { startTestService, TestClock, type TestService } from './support/testService.ts';
import { createTemplate, issuePass, loyaltyTemplate } from './support/passes.ts';

const BASE = 'http://wallet.test';
const UNKNOWN_ID = '0194f3a2-7c1e-7a51-9d7e-0b6a2f1c9e10';
const HOUR_MS = 60 * 60 * 1000;
const DAY_MS = 24 * HOUR_MS;
const FINAL = ['successful', 'completedWithErrors', 'failed', 'cancelled'];

type Tenant = { accountId: string; token: string };
type Pass = { id: string; attributes: Record<string, unknown> };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Reads until `done` holds (the job works in the background); Jest's timeout bounds the wait. */
async function until<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    await sleep(25);
  }
}

function expectError(res: Response, status: number, code: string, source?: Record<string, string>) {
  expect(res.status).toBe(status);
  expect(res.body.errors).toEqual([expect.objectContaining({ status: String(status), code, ...(source ? { source } : {}) })]);
}

/** API helpers bound to one service and tenant. */
function client(service: () => TestService, tenant: () => Tenant) {
  const auth = (token = tenant().token) => service().auth(token);
  const api = {
    create: (entityId: string, batch: Record<string, unknown>, token?: string, headers: Record<string, string> = {}) =>
      service().api.post(`/api/v1/entities/${entityId}/messaging/wallet`).set(auth(token)).set(headers).send({ batch }),
    get: (id: string, token?: string) => service().api.get(`/api/v1/batches/${id}`).set(auth(token)),
    list: (query = '', token?: string) => service().api.get(`/api/v1/batches${query}`).set(auth(token)),
    sendNow: (id: string, token?: string) => service().api.post(`/api/v1/batches/${id}/send-now`).set(auth(token)),
    cancel: (id: string, token?: string) => service().api.patch(`/api/v1/batches/${id}/cancel`).set(auth(token)),
    errors: (id: string, token?: string) => service().api.get(`/api/v1/batches/${id}/errors.csv`).set(auth(token)),
    pass: async (id: string) => (await service().api.get(`/api/v1/passes/${id}`).set(auth()).expect(200)).body.data as Pass,
    /** Polls the batch until `done` holds; returns its attributes. */
    until: async (id: string, done: (status: string) => boolean) =>
      (
        await until(
          async () => (await api.get(id).expect(200)).body.data,
          (data) => done(data.attributes.status),
        )
      ).attributes as Record<string, unknown>,
  };
  return api;
}

/** The deliveries of a batch per pass. */
async function deliveries(service: TestService, batchId: string) {
  return service.database.db.prisma.batchDelivery.findMany({ where: { batchId }, orderBy: { passId: 'asc' } });
}

/** The wallet-messaging jobs of a batch in pg-boss. */
async function jobsOf(service: TestService, batchId: string) {
  return service.database.db.prisma.$queryRaw<{ state: string; delay: number }[]>`
    SELECT state, EXTRACT(EPOCH FROM start_after - created_on)::float8 AS delay
      FROM pgboss.job WHERE name = 'wallet-messaging' AND data->>'batchId' = ${batchId} ORDER BY created_on`;
}

describe('with the job workers running', () => {
  const clock = new TestClock(new Date('2026-11-21T10:00:00Z'));
  let service: TestService;
  let tenant: Tenant;
  let other: Tenant;
  let entityId: string;
  let otherEntityId: string;
  let templateId: string;
  const api = client(
    () => service,
    () => tenant,
  );
  const later = (ms = DAY_MS) => new Date(clock.now().getTime() + ms).toISOString();
  let counter = 0;

  beforeAll(async () => {
    service = await startTestService({ jobs: 'work', clock });
    tenant = await service.createAccount('Coffee Club Ltd');
    other = await service.createAccount('Other Tenant');
    entityId = await service.createEntity(tenant.accountId, 'Soho');
    otherEntityId = await service.createEntity(other.accountId, 'Elsewhere');
    templateId = await createTemplate(service, tenant.token, loyaltyTemplate());
  });
  afterAll(() => service.close());

  /** A pass of the loyalty template with a fresh extId. */
  const newPass = async (pass: Record<string, unknown> = {}, extra: Record<string, unknown> = {}, token = tenant.token, template = templateId) =>
    issuePass(service, token, template, { pass, ...extra }, { extId: `bm-${++counter}` });
  /** Creates a batch (202) and waits until validation is over. */
  const scheduled = async (batch: Record<string, unknown>) => {
    const res = await api.create(entityId, { message: 'Hello', scheduledAt: later(), ...batch }).expect(202);
    await api.until(res.body.data.id, (s) => s !== 'validating');
    return res.body.data.id as string;
  };

  describe('createWalletMessagingBatch', () => {
    it('accepts a batch: 202 with the batch validating, links.self and Location', async () => {
      const pass = await newPass();
      clock.set('2026-11-21T10:30:00.250Z');
      const res = await api
        .create(entityId, {
          message: 'Double points this weekend!',
          name: 'Weekend',
          tag: 'campaign-1',
          scheduledAt: '2026-11-28T09:00:00Z',
          recipients: [{ passId: pass.id }],
        })
        .expect(202);
      const { id } = res.body.data;
      expect(res.body).toEqual({
        data: {
          id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-7/),
          type: 'walletMessaging',
          attributes: {
            name: 'Weekend',
            status: 'validating',
            statusDetail: null,
            tag: 'campaign-1',
            content: 'Double points this weekend!',
            scheduledAt: '2026-11-28T09:00:00Z',
            recipientCount: null,
            completedAt: null,
            errorsCsvUrl: null,
            createdAt: '2026-11-21T10:30:00Z',
          },
          relationships: { entity: { data: { id: entityId, type: 'entity' } } },
        },
        links: { self: `${BASE}/api/v1/batches/${id}` },
      });
      expect(res.headers.location).toBe(`${BASE}/api/v1/batches/${id}`);
      expect(res.headers['idempotent-replayed']).toBeUndefined();
      // The job validates it at once: scheduled, one recipient.
      const attributes = await api.until(id, (s) => s !== 'validating');
      expect(attributes).toMatchObject({ status: 'scheduled', recipientCount: 1, errorsCsvUrl: null, completedAt: null });
    });

    it('names a batch created without a name, and keeps a missing tag null', async () => {
      clock.set('2026-11-21T10:45:00Z');
      const res = await api.create(entityId, { message: 'Hi', scheduledAt: later(), segments: [{ groupTag: 'nobody' }] }).expect(202);
      expect(res.body.data.attributes).toMatchObject({ name: 'Wallet message 2026-11-21 10:45 UTC', tag: null });
    });

    it.each([
      ['both segments and recipients', { segments: [{ groupTag: 'a' }], recipients: [{ passId: 'x' }] }, { pointer: '/batch' }],
      ['neither segments nor recipients', {}, { pointer: '/batch' }],
      ['scheduledAt in the past', { scheduledAt: '2026-11-21T09:59:59Z', segments: [{ groupTag: 'a' }] }, { pointer: '/batch/scheduledAt' }],
      ['scheduledAt now', { scheduledAt: 'NOW', segments: [{ groupTag: 'a' }] }, { pointer: '/batch/scheduledAt' }],
      ['an empty message', { message: '', segments: [{ groupTag: 'a' }] }, { pointer: '/batch/message' }],
      ['a message over 350 characters', { message: 'x'.repeat(351), segments: [{ groupTag: 'a' }] }, { pointer: '/batch/message' }],
      ['more than 500 recipients', { recipients: Array.from({ length: 501 }, (_, i) => ({ passId: `p-${i}` })) }, { pointer: '/batch/recipients' }],
      ['an empty recipient list', { recipients: [] }, { pointer: '/batch/recipients' }],
      ['a malformed variable name', { recipients: [{ passId: 'p', variables: { 'first name': 'Ada' } }] }, { pointer: '/batch/recipients/0/variables' }],
      ['a malformed scheduledAt', { scheduledAt: 'tomorrow', segments: [{ groupTag: 'a' }] }, { pointer: '/batch/scheduledAt' }],
      ['an unknown member', { segments: [{ groupTag: 'a' }], priority: 'high' }, undefined],
    ])('refuses %s with 400', async (_case, batch, source) => {
      clock.set('2026-11-21T10:00:00Z');
      const scheduledAt = { NOW: clock.now().toISOString() }[String((batch as { scheduledAt?: string }).scheduledAt)];
      const before = await service.database.db.prisma.batch.count();
      const res = await api.create(entityId, { message: 'Hi', scheduledAt: later(), ...batch, ...(scheduledAt ? { scheduledAt } : {}) });
      expect(res.status).toBe(400);
      expect(res.body.errors).toEqual(
        expect.arrayContaining([expect.objectContaining({ status: '400', code: 'validation_failed', ...(source ? { source } : {}) })]),
      );
      expect(await service.database.db.prisma.batch.count()).toBe(before);
    });

    it("accepts scheduledAt years ahead, as PassEntry's example does, with an offset", async () => {
      clock.set('2026-11-21T10:00:00Z');
      const res = await api.create(entityId, { message: 'Hi', scheduledAt: '2030-06-01T11:00:00+01:00', segments: [{ groupTag: 'a' }] }).expect(202);
      expect(res.body.data.attributes.scheduledAt).toBe('2030-06-01T10:00:00Z');
      expect((await api.until(res.body.data.id, (s) => s !== 'validating')).status).toBe('scheduled');
    });

    it("answers 404 for an unknown entity and another account's, 401 without a key", async () => {
      expectError(await api.create(UNKNOWN_ID, { message: 'Hi', scheduledAt: later(), segments: [{ groupTag: 'a' }] }), 404, 'not_found', {
        parameter: 'entity_id',
      });
      expectError(await api.create(otherEntityId, { message: 'Hi', scheduledAt: later(), segments: [{ groupTag: 'a' }] }), 404, 'not_found', {
        parameter: 'entity_id',
      });
      expectError(await service.api.post(`/api/v1/entities/${entityId}/messaging/wallet`).send({ batch: {} }), 401, 'unauthorized');
    });

    it('schedules one batch for a retried request with an Idempotency-Key', async () => {
      const key = { 'Idempotency-Key': `batch-${++counter}` };
      const batch = { message: 'Hi', scheduledAt: later(), segments: [{ groupTag: 'idem' }] };
      const first = await api.create(entityId, batch, undefined, key).expect(202);
      const again = await api.create(entityId, batch, undefined, key).expect(202);
      expect(again.body).toEqual(first.body);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(await service.database.db.prisma.batch.count({ where: { segmentTags: { has: 'idem' } } })).toBe(1);
      expectError(await api.create(entityId, { ...batch, message: 'Other' }, undefined, key), 422, 'idempotency_key_reused');
    });
  });

  describe('validation', () => {
    it('escapes recipients a spreadsheet would run as formulas in the errors CSV', async () => {
      const a = await newPass();
      const id = await scheduled({ recipients: [{ passId: a.id }, { passId: '=HYPERLINK(1)' }, { passId: '@SUM(1)' }] });
      const csv = await api.errors(id).expect(200);
      expect(csv.text).toBe(
        'recipient,pass_id,ext_id,error\r\n' +
          "'=HYPERLINK(1),,,No pass of this account has the id or extId =HYPERLINK(1).\r\n" +
          "'@SUM(1),,,No pass of this account has the id or extId @SUM(1).\r\n",
      );
    });

    it('reports recipients that are no pass of the account, nullified, or listed twice, in the errors CSV', async () => {
      const [a, b, nullified] = [await newPass(), await newPass(), await newPass()];
      await service.api.post(`/api/v1/passes/${nullified.id}/nullify`).set(service.auth(tenant.token)).expect(200);
      const foreign = await newPass({}, {}, other.token, await createTemplate(service, other.token, loyaltyTemplate()));
      const id = await scheduled({
        recipients: [
          { passId: a.id },
          { passId: 'nobody-here' },
          { passId: b.attributes.extId as string },
          { passId: nullified.id },
          { passId: a.attributes.extId as string },
          { passId: foreign.id },
        ],
      });
      const attributes = (await api.get(id).expect(200)).body.data.attributes;
      expect(attributes).toMatchObject({ status: 'scheduled', recipientCount: 2, errorsCsvUrl: `${BASE}/api/v1/batches/${id}/errors.csv` });
      const csv = await api.errors(id).expect(200);
      expect(csv.headers['content-type']).toBe('text/csv; charset=utf-8');
      expect(csv.headers['content-disposition']).toBe(`attachment; filename="batch-${id}-errors.csv"`);
      expect(csv.text).toBe(
        'recipient,pass_id,ext_id,error\r\n' +
          'nobody-here,,,No pass of this account has the id or extId nobody-here.\r\n' +
          `${nullified.id},${nullified.id},${nullified.attributes.extId},The pass is nullified.\r\n` +
          `${a.attributes.extId},${a.id},${a.attributes.extId},The pass is already listed as recipient 1.\r\n` +
          `${foreign.id},,,No pass of this account has the id or extId ${foreign.id}.\r\n`,
      );
    });

    it('fails a batch none of whose recipients can be messaged', async () => {
      const res = await api.create(entityId, { message: 'Hi', scheduledAt: later(), recipients: [{ passId: 'ghost-1' }, { passId: 'ghost-2' }] }).expect(202);
      const attributes = await api.until(res.body.data.id, (s) => s !== 'validating');
      expect(attributes).toMatchObject({
        status: 'failed',
        statusDetail: 'None of the 2 recipients could be messaged; see errorsCsvUrl.',
        recipientCount: 0,
        completedAt: clock
          .now()
          .toISOString()
          .replace(/\.\d{3}Z$/, 'Z'),
      });
      expect((await api.errors(res.body.data.id).expect(200)).text.split('\r\n')).toHaveLength(4);
    });
  });

  describe('sending', () => {
    it('renders %{variable} per pass from recipient variables, then pass fields, and sets latestMessage', async () => {
      const ada = await newPass({ member: 'Ada Lovelace', tier: 'Gold', points: '120' });
      const charles = await newPass({ member: 'Charles Babbage', points: '7' });
      const grace = await newPass({ member: 'Grace Hopper' });
      // The balance at sending time is what %{points} shows.
      await service.api.patch(`/api/v1/loyalty/${ada.id}`).set(service.auth(tenant.token)).send({ balance: 5 }).expect(200);
      const message = 'Hi %{firstName}, %{member} (%{tier}) has %{points} points. 100%{} sure, %{ tier } stays.';
      const id = await scheduled({
        message,
        recipients: [
          { passId: ada.id, variables: { firstName: 'Ada' } },
          { passId: charles.attributes.extId, variables: { firstName: 'Charles', member: 'Mr Babbage' } },
          { passId: grace.id },
        ],
      });
      const sent = await api.sendNow(id).expect(200);
      expect(sent.body.data.attributes).toMatchObject({
        status: 'sending',
        scheduledAt: clock
          .now()
          .toISOString()
          .replace(/\.\d{3}Z$/, 'Z'),
      });
      const attributes = await api.until(id, (s) => FINAL.includes(s));
      expect(attributes).toMatchObject({
        status: 'completedWithErrors',
        statusDetail: '1 of 3 recipients could not be messaged; see errorsCsvUrl.',
        recipientCount: 3,
        errorsCsvUrl: `${BASE}/api/v1/batches/${id}/errors.csv`,
      });
      expect(attributes.completedAt).toEqual(expect.stringMatching(/Z$/));
      expect((await api.pass(ada.id)).attributes.latestMessage).toBe('Hi Ada, Ada Lovelace (Gold) has 125 points. 100%{} sure, %{ tier } stays.');
      expect((await api.pass(charles.id)).attributes.latestMessage).toBe('Hi Charles, Mr Babbage (Bronze) has 7 points. 100%{} sure, %{ tier } stays.');
      expect((await api.pass(grace.id)).attributes.latestMessage).toBeNull();
      const csv = await api.errors(id).expect(200);
      expect(csv.text).toBe(
        'recipient,pass_id,ext_id,error\r\n' +
          `${grace.id},${grace.id},${grace.attributes.extId},"The message needs the variable firstName, which neither the recipient nor the pass has."\r\n`,
      );
      const rows = await deliveries(service, id);
      expect(rows.map((d) => [d.passId, d.status]).sort()).toEqual(
        [
          [ada.id, 'sent'],
          [charles.id, 'sent'],
          [grace.id, 'failed'],
        ].sort(),
      );
    });

    it('fails a batch whose message renders for no pass, and refuses a rendered message over 350 characters', async () => {
      const pass = await newPass({ member: 'm'.repeat(300) });
      const id = await scheduled({ message: '%{member} %{member}', recipients: [{ passId: pass.id }] });
      await api.sendNow(id).expect(200);
      const attributes = await api.until(id, (s) => FINAL.includes(s));
      expect(attributes).toMatchObject({ status: 'failed', statusDetail: 'None of the 1 recipients could be messaged; see errorsCsvUrl.', recipientCount: 1 });
      expect((await api.errors(id).expect(200)).text).toContain('The rendered message has 601 characters; at most 350 are allowed.');
    });

    it('messages each pass of the segments once, leaving out nullified passes and other accounts', async () => {
      const tag = `seg-${++counter}`;
      const both = await newPass({}, { groupTags: [tag, `${tag}-b`] });
      const onlyB = await newPass({}, { groupTags: [`${tag}-b`] });
      const gone = await newPass({}, { groupTags: [tag] });
      const untagged = await newPass();
      await service.api.post(`/api/v1/passes/${gone.id}/nullify`).set(service.auth(tenant.token)).expect(200);
      const otherTemplate = await createTemplate(service, other.token, loyaltyTemplate());
      const foreign = await newPass({}, { groupTags: [tag] }, other.token, otherTemplate);
      const id = await scheduled({ message: 'Hello %{member}', segments: [{ groupTag: tag }, { groupTag: `${tag}-b` }] });
      expect((await api.get(id).expect(200)).body.data.attributes.recipientCount).toBe(2);
      await api.sendNow(id).expect(200);
      const attributes = await api.until(id, (s) => FINAL.includes(s));
      expect(attributes).toMatchObject({ status: 'successful', statusDetail: 'All 2 recipients got the message.', recipientCount: 2, errorsCsvUrl: null });
      expect((await deliveries(service, id)).map((d) => d.passId)).toEqual([both.id, onlyB.id].sort());
      expect((await api.pass(both.id)).attributes.latestMessage).toBe('Hello Guest');
      expect((await api.pass(untagged.id)).attributes.latestMessage).toBeNull();
      expect((await api.errors(id).expect(200)).text).toBe('recipient,pass_id,ext_id,error\r\n');
      const foreignRow = await service.database.db.prisma.pass.findUniqueOrThrow({ where: { id: foreign.id } });
      expect(foreignRow.latestMessage).toBeNull();
    });

    it('fails a segment batch that matches no pass', async () => {
      const id = await scheduled({ segments: [{ groupTag: 'no-such-tag' }] });
      expect((await api.get(id).expect(200)).body.data.attributes.recipientCount).toBe(0);
      await api.sendNow(id).expect(200);
      expect(await api.until(id, (s) => FINAL.includes(s))).toMatchObject({
        status: 'failed',
        statusDetail: 'No pass matched the batch.',
        recipientCount: 0,
        errorsCsvUrl: null,
      });
    });

    it('sends at scheduledAt by the injected clock, not before', async () => {
      const tag = `timed-${++counter}`;
      const pass = await newPass({}, { groupTags: [tag] });
      const id = await scheduled({ message: 'On time', scheduledAt: later(2000), segments: [{ groupTag: tag }] });
      // The job for scheduledAt runs (2 s later in real time) while the clock has not moved: it
      // sends nothing and waits again.
      await until(
        () => jobsOf(service, id),
        (jobs) => jobs.filter((j) => j.state === 'completed').length >= 2,
      );
      expect((await api.get(id).expect(200)).body.data.attributes.status).toBe('scheduled');
      expect(await deliveries(service, id)).toEqual([]);
      clock.advance(2000);
      expect(await api.until(id, (s) => FINAL.includes(s))).toMatchObject({ status: 'successful', recipientCount: 1 });
      expect((await api.pass(pass.id)).attributes.latestMessage).toBe('On time');
    });
  });

  describe('state machine', () => {
    it('cancels a scheduled batch; it is never sent, and nothing more can be done with it', async () => {
      const tag = `cancel-${++counter}`;
      const pass = await newPass({}, { groupTags: [tag] });
      const id = await scheduled({ segments: [{ groupTag: tag }] });
      const res = await api.cancel(id).expect(200);
      expect(res.body.data.attributes).toMatchObject({ status: 'cancelled', completedAt: null });
      expectError(await api.cancel(id), 409, 'conflict');
      expectError(await api.sendNow(id), 409, 'conflict');
      expect((await api.pass(pass.id)).attributes.latestMessage).toBeNull();
      expect(await deliveries(service, id)).toEqual([]);
    });

    it.each([
      ['successful', { segments: [{ groupTag: 'final-ok' }] }, true],
      ['completedWithErrors', { message: '%{firstName}', recipients: [{ passId: 'P1', variables: { firstName: 'A' } }, { passId: 'P2' }] }, true],
      ['failed', { segments: [{ groupTag: 'no-such-tag' }] }, true],
      ['failed at validation', { recipients: [{ passId: 'ghost' }] }, false],
    ])('refuses send-now and cancel of a %s batch with 409', async (_case, batch, send) => {
      const [p1, p2] = [await newPass({}, { groupTags: ['final-ok'] }), await newPass()];
      const body = JSON.parse(JSON.stringify(batch).replace('"P1"', JSON.stringify(p1.id)).replace('"P2"', JSON.stringify(p2.id)));
      const id = await scheduled(body);
      if (send) await api.sendNow(id).expect(200);
      const { status } = await api.until(id, (s) => FINAL.includes(s));
      expect(status).toBe(_case.split(' ')[0]);
      const sendNow = await api.sendNow(id);
      expectError(sendNow, 409, 'conflict');
      expect(sendNow.body.errors[0].detail).toBe(`The batch ${id} is ${status}; only a scheduled batch can be sent now.`);
      const cancel = await api.cancel(id);
      expectError(cancel, 409, 'conflict');
      expect(cancel.body.errors[0].detail).toBe(`The batch ${id} is ${status}; only a validating or scheduled batch can be cancelled.`);
    });

    it("answers 404 for unknown batches and other accounts' batches, 400 for malformed ids", async () => {
      const id = await scheduled({ segments: [{ groupTag: 'x' }] });
      for (const call of [api.get, api.sendNow, api.cancel, api.errors]) {
        expectError(await call(UNKNOWN_ID), 404, 'not_found', { parameter: 'id' });
        expectError(await call(id, other.token), 404, 'not_found', { parameter: 'id' });
        expectError(await call('not-a-uuid'), 400, 'validation_failed', { parameter: 'id' });
      }
      expect((await api.get(id).expect(200)).body.data.attributes.status).toBe('scheduled');
    });
  });

  describe('listBatches and getBatch', () => {
    let own: Tenant;
    let ids: string[];
    const ownApi = client(
      () => service,
      () => own,
    );

    beforeAll(async () => {
      own = await service.createAccount('Batch list tenant');
      const entity = await service.createEntity(own.accountId);
      ids = [];
      for (let i = 0; i < 3; i++) {
        clock.advance(1000);
        ids.push((await ownApi.create(entity, { message: `Batch ${i}`, scheduledAt: later(), segments: [{ groupTag: 't' }] }).expect(202)).body.data.id);
      }
      for (const id of ids) await ownApi.until(id, (s) => s !== 'validating');
    });

    it('lists newest first with the §2.9 envelope, 25 per page by default', async () => {
      const res = await ownApi.list().expect(200);
      expect(res.body.data.map((b: { id: string }) => b.id)).toEqual([...ids].reverse());
      expect(res.body.data[0]).toEqual((await ownApi.get(ids[2]!).expect(200)).body.data);
      expect(res.body.meta).toEqual({ totalCount: 3, resultsPerPage: 25, currentPage: 1, totalPages: 1 });
      expect(res.body.links).toEqual({
        first: `${BASE}/api/v1/batches?page=1&perPage=25`,
        prev: null,
        next: null,
        last: `${BASE}/api/v1/batches?page=1&perPage=25`,
      });
    });

    it('paginates and filters by type', async () => {
      const page = await ownApi.list('?perPage=2&page=2&type=walletMessaging').expect(200);
      expect(page.body.data.map((b: { id: string }) => b.id)).toEqual([ids[0]]);
      expect(page.body.meta).toEqual({ totalCount: 3, resultsPerPage: 2, currentPage: 2, totalPages: 2 });
      expect(page.body.links.prev).toBe(`${BASE}/api/v1/batches?perPage=2&page=1&type=walletMessaging`);
      for (const type of ['passCreation', 'passUpdate']) expect((await ownApi.list(`?type=${type}`).expect(200)).body.meta.totalCount).toBe(0);
    });

    it("shows only the caller's batches and refuses bad parameters", async () => {
      const theirs = await api.list('?perPage=100', other.token).expect(200);
      expect(theirs.body.data).toEqual([]);
      const mine = await api.list('?perPage=100').expect(200);
      expect(mine.body.data.some((b: { id: string }) => ids.includes(b.id))).toBe(false);
      expectError(await ownApi.list('?type=sms'), 400, 'validation_failed', { parameter: 'type' });
      expectError(await ownApi.list('?perPage=0'), 400, 'validation_failed', { parameter: 'perPage' });
      expectError(await ownApi.list('?status=scheduled'), 400, 'validation_failed');
    });
  });
});

describe('step by step (jobs queued, run by the test)', () => {
  const clock = new TestClock(new Date('2026-11-21T10:00:00Z'));
  let service: TestService;
  let tenant: Tenant;
  let entityId: string;
  let passes: Pass[];
  const tag = 'step';
  const api = client(
    () => service,
    () => tenant,
  );
  const deps = (): BatchJobDependencies => ({ ...service.runtime, clock });
  const later = (ms: number) => new Date(clock.now().getTime() + ms).toISOString();

  /** Starts a service whose jobs only queue, with a processed template and five tagged passes. */
  async function setUp(persistent: boolean) {
    service = await startTestService({ jobs: 'enqueue', clock, persistent });
    tenant = await service.createAccount();
    entityId = await service.createEntity(tenant.accountId);
    const template = await service.api.post('/api/v1/pass-templates').set(service.auth(tenant.token)).send({ passTemplate: loyaltyTemplate() }).expect(202);
    expect(await processTemplateVersion(service.runtime, template.body.id, 1, clock.now())).toBe('processed');
    passes = [];
    for (let i = 0; i < 5; i++) passes.push(await issuePass(service, tenant.token, template.body.id, { pass: { member: `Member ${i}` }, groupTags: [tag] }));
  }
  const create = async (batch: Record<string, unknown> = {}) =>
    (await api.create(entityId, { message: 'Hello %{member}', scheduledAt: later(HOUR_MS), segments: [{ groupTag: tag }], ...batch }).expect(202)).body.data
      .id as string;

  describe('transitions', () => {
    beforeAll(() => setUp(false));
    afterAll(() => service.close());

    it('validating: send-now is refused, cancel is allowed, and the job then does nothing', async () => {
      const id = await create();
      expect((await api.get(id).expect(200)).body.data.attributes.status).toBe('validating');
      expectError(await api.sendNow(id), 409, 'conflict');
      expect((await api.cancel(id).expect(200)).body.data.attributes.status).toBe('cancelled');
      await expect(advanceBatch(deps(), id)).resolves.toBe('idle');
      expect((await api.get(id).expect(200)).body.data.attributes).toMatchObject({ status: 'cancelled', recipientCount: null });
      expect(await deliveries(service, id)).toEqual([]);
    });

    it('scheduled: waits for scheduledAt by the clock in a job that starts then, and sends once it is reached', async () => {
      const id = await create();
      await expect(advanceBatch(deps(), id)).resolves.toBe('deferred');
      expect((await api.get(id).expect(200)).body.data.attributes).toMatchObject({ status: 'scheduled', recipientCount: 5 });
      // The creation's job (validation, at once) and one that starts at scheduledAt, an hour on.
      const jobs = await jobsOf(service, id);
      expect(jobs).toHaveLength(2);
      expect(jobs[0]!.delay).toBeLessThan(5);
      expect(jobs[1]!.delay).toBeGreaterThan(HOUR_MS / 1000 - 5);
      expect(jobs[1]!.delay).toBeLessThan(HOUR_MS / 1000 + 5);
      // Early: nothing is sent, and the job waits again.
      clock.advance(HOUR_MS - 1000);
      await expect(advanceBatch(deps(), id)).resolves.toBe('deferred');
      expect(await deliveries(service, id)).toEqual([]);
      clock.advance(1000);
      await expect(advanceBatch(deps(), id)).resolves.toBe('finished');
      expect((await api.get(id).expect(200)).body.data.attributes).toMatchObject({ status: 'successful', recipientCount: 5 });
      expect(await deliveries(service, id)).toHaveLength(5);
      // Any later run of a job of the batch does nothing.
      await expect(advanceBatch(deps(), id)).resolves.toBe('idle');
      await expect(advanceBatch(deps(), UNKNOWN_ID)).resolves.toBe('gone');
    });

    it('scheduled: cancel is allowed; sending: send-now and cancel are refused', async () => {
      const cancelled = await create();
      await advanceBatch(deps(), cancelled);
      expect((await api.cancel(cancelled).expect(200)).body.data.attributes.status).toBe('cancelled');
      clock.advance(2 * HOUR_MS);
      await expect(advanceBatch(deps(), cancelled)).resolves.toBe('idle');
      expect(await deliveries(service, cancelled)).toEqual([]);

      const id = await create();
      await advanceBatch(deps(), id);
      const sending = await api.sendNow(id).expect(200);
      expect(sending.body.data.attributes).toMatchObject({
        status: 'sending',
        scheduledAt: clock
          .now()
          .toISOString()
          .replace(/\.\d{3}Z$/, 'Z'),
      });
      expectError(await api.sendNow(id), 409, 'conflict');
      expectError(await api.cancel(id), 409, 'conflict');
      await expect(advanceBatch(deps(), id, { chunkSize: 2, chunksPerRun: 1 })).resolves.toBe('continued');
      expect((await api.get(id).expect(200)).body.data.attributes.status).toBe('sending');
      await expect(advanceBatch(deps(), id)).resolves.toBe('finished');
      expect((await api.get(id).expect(200)).body.data.attributes.status).toBe('successful');
    });
  });

  describe('a poisoned recipient', () => {
    beforeAll(() => setUp(false));
    afterAll(() => service.close());

    /** Sends a segment batch of the five passes to the end; returns its attributes and errors CSV. */
    async function sendAll(message = 'Hello %{member}') {
      const id = await create({ message });
      await advanceBatch(deps(), id);
      await api.sendNow(id).expect(200);
      await expect(advanceBatch(deps(), id)).resolves.toBe('finished');
      return { id, attributes: (await api.get(id).expect(200)).body.data.attributes, csv: (await api.errors(id).expect(200)).text as string };
    }

    it('records a pass whose stored field value holds a NUL as failed, and messages the others', async () => {
      // As stored before input was checked: the json column keeps the \u0000 escape, but no
      // message rendered from it can be stored as text.
      const poisoned = passes[2]!;
      const row = await service.database.db.prisma.pass.findUniqueOrThrow({ where: { id: poisoned.id } });
      await service.database.db.prisma.pass.update({ where: { id: poisoned.id }, data: { content: { ...(row.content as object), member: 'Eve\u0000' } } });
      const { id, attributes, csv } = await sendAll();
      expect(attributes).toMatchObject({
        status: 'completedWithErrors',
        recipientCount: 5,
        statusDetail: '1 of 5 recipients could not be messaged; see errorsCsvUrl.',
      });
      expect(csv).toContain(`${poisoned.id},${poisoned.id},`);
      expect(csv).toContain('The rendered message contains the NUL character U+0000');
      const rows = await deliveries(service, id);
      expect(rows.filter((d) => d.status === 'sent')).toHaveLength(4);
      for (const pass of passes.filter((p) => p !== poisoned)) expect((await api.pass(pass.id)).attributes.latestMessage).toMatch(/^Hello Member \d$/);
      await service.database.db.prisma.pass.update({ where: { id: poisoned.id }, data: { content: row.content as object } });
    });

    it('records a pass the database refuses to update as failed with its reason, and messages the others', async () => {
      const refused = passes[3]!;
      // Any failure of one pass's statement: here a trigger refuses to change that pass.
      await service.database.db.prisma.$executeRawUnsafe(`
        CREATE FUNCTION refuse_pass() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN RAISE EXCEPTION 'pass % is locked for maintenance', OLD.id; END $$`);
      await service.database.db.prisma.$executeRawUnsafe(
        `CREATE TRIGGER refuse_pass BEFORE UPDATE ON passes FOR EACH ROW WHEN (OLD.id = '${refused.id}'::uuid) EXECUTE FUNCTION refuse_pass()`,
      );
      try {
        const { id, attributes, csv } = await sendAll('Hi %{member}');
        expect(attributes).toMatchObject({ status: 'completedWithErrors', recipientCount: 5 });
        expect(csv).toContain(`${refused.id},${refused.id},`);
        expect(csv).toMatch(/The message could not be stored for this pass: .*is locked for maintenance/);
        expect((await deliveries(service, id)).filter((d) => d.status === 'sent')).toHaveLength(4);
      } finally {
        await service.database.db.prisma.$executeRawUnsafe('DROP TRIGGER refuse_pass ON passes');
        await service.database.db.prisma.$executeRawUnsafe('DROP FUNCTION refuse_pass()');
      }
    });
  });

  describe('restart mid-batch', () => {
    let restarted: TestService | undefined;
    beforeAll(() => setUp(true));
    afterAll(async () => (restarted ?? service).close());

    it('goes on after a restart where the committed chunks left off, messaging no pass twice', async () => {
      const id = await create();
      await advanceBatch(deps(), id);
      await api.sendNow(id).expect(200);
      // A run that sends one chunk of two passes, then stops, as a worker killed between chunks.
      await expect(advanceBatch(deps(), id, { chunkSize: 2, chunksPerRun: 1 })).resolves.toBe('continued');
      const first = await deliveries(service, id);
      expect(first).toHaveLength(2);
      // The holders of those two passes got the message; the issuer has since sent them another.
      for (const { passId } of first) {
        expect((await api.pass(passId)).attributes.latestMessage).toMatch(/^Hello Member \d$/);
        await service.api.patch(`/api/v1/passes/${passId}`).set(service.auth(tenant.token)).send({ message: 'Later news' }).expect(200);
      }
      clock.advance(60_000);
      // Restart with workers: every job left in the queue runs (the creation's, send-now's and
      // the follow-up of the stopped run), concurrently where they can.
      restarted = await service.restart({ jobs: 'work', clock, persistent: true });
      service = restarted;
      const attributes = await api.until(id, (s) => FINAL.includes(s));
      expect(attributes).toMatchObject({ status: 'successful', recipientCount: 5, statusDetail: 'All 5 recipients got the message.' });
      const all = await deliveries(service, id);
      expect(all.map((d) => d.passId)).toEqual(passes.map((p) => p.id).sort());
      // The first two were not messaged again: their delivery rows (their push completed since)
      // and the later message stand.
      const messaging = ({ pushedAt: _pushedAt, devices: _devices, pushError: _pushError, ...row }: (typeof all)[number]) => row;
      expect(all.filter((d) => first.some((f) => f.passId === d.passId)).map(messaging)).toEqual(first.map(messaging));
      for (const pass of passes) {
        const expected = first.some((f) => f.passId === pass.id) ? 'Later news' : `Hello ${(pass.attributes.passContent as Record<string, string>).member}`;
        expect((await api.pass(pass.id)).attributes.latestMessage).toBe(expected);
      }
      // Every job of the batch has run to completion, none failed.
      await until(
        () => jobsOf(service, id),
        (jobs) => jobs.every((j) => j.state === 'completed' || j.state === 'created'),
      );
      expect((await jobsOf(service, id)).filter((j) => j.state === 'failed')).toEqual([]);
    });
  });
});
