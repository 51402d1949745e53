/**
 * Wallet-messaging batches (spec §2.8, §4.14; PassEntry wallet messaging): the `wallet-messaging`
 * job (src/delivery/walletMessagingJob.ts) run step by step by the test, which calls its step
 * function (`advanceBatch`) on a service whose jobs only queue, where a test must stop the batch
 * at a given step: every allowed and refused transition of sendBatchNow and cancelBatch, waiting
 * for scheduledAt by the injected clock, a recipient that fails alone, and a restart in the
 * middle of sending (no pass messaged twice).
 */
import { advanceBatch, type BatchJobDependencies } from '../src/delivery/walletMessagingJob.ts';
import { processTemplateVersion } from '../src/domain/passTemplates/processPassTemplate.ts';
import { client, deliveries, expectError, FINAL, HOUR_MS, jobsOf, type Pass, type Tenant, until } from './support/batches.ts';
import { issuePass, loyaltyTemplate } from './support/passes.ts';
import { startTestService, TestClock, type TestService } from './support/testService.ts';

const UNKNOWN_ID = '0194f3a2-7c1e-7a51-9d7e-0b6a2f1c9e10';

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
        statusDetail:
          '1 of 5 recipients could not be messaged; see errorsCsvUrl. None of them is in a wallet: the passes keep it for when their holders add them.',
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
      expect(attributes).toMatchObject({
        status: 'successful',
        recipientCount: 5,
        statusDetail: 'All 5 recipients got the message. None of them is in a wallet: the passes keep it for when their holders add them.',
      });
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
