/**
 * Wallet-messaging batches (spec §2.8, §4.14; PassEntry wallet messaging),
 * createWalletMessagingBatch through HTTP on a real database, responses validated against the
 * contract, with the `wallet-messaging` job run by the service's workers: the 202, the 400s,
 * scheduling, 404 and 401, an Idempotency-Key; then the job's validation of the recipients and
 * the errors CSV (getBatchErrors) it writes.
 *
 * Sending, send-now and cancel: test/batches.sending.test.ts; listBatches and getBatch:
 * test/batches.read.test.ts; the job step by step: test/batches.walletMessagingJob.test.ts.
 */
import { client, DAY_MS, expectError, startWorkingBatchService, type Tenant, type WorkingBatchService } from './support/batches.ts';
import { createTemplate, loyaltyTemplate } from './support/passes.ts';
import { TestClock, type TestService } from './support/testService.ts';

const BASE = 'http://wallet.test';
const UNKNOWN_ID = '0194f3a2-7c1e-7a51-9d7e-0b6a2f1c9e10';

describe('with the job workers running', () => {
  const clock = new TestClock(new Date('2026-11-21T10:00:00Z'));
  let service: TestService;
  let tenant: Tenant;
  let other: Tenant;
  let entityId: string;
  let otherEntityId: string;
  let newPass: WorkingBatchService['newPass'];
  let scheduled: WorkingBatchService['scheduled'];
  const api = client(
    () => service,
    () => tenant,
  );
  const later = (ms = DAY_MS) => new Date(clock.now().getTime() + ms).toISOString();
  let counter = 0;

  beforeAll(async () => {
    ({ service, tenant, other, entityId, otherEntityId, newPass, scheduled } = await startWorkingBatchService(clock));
  });
  afterAll(() => service.close());

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
});
