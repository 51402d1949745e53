/**
 * Wallet-messaging batches (spec §2.8, §4.14; PassEntry wallet messaging), sendBatchNow and
 * cancelBatch through HTTP on a real database, responses validated against the contract, with the
 * `wallet-messaging` job run by the service's workers: placeholder rendering from recipient
 * variables and pass fields, segments, scheduling by the injected clock, and the status flow
 * (what send-now and cancel are refused in which status), with 404 and 400 for every batch path.
 */
import {
  client,
  DAY_MS,
  deliveries,
  expectError,
  FINAL,
  jobsOf,
  startWorkingBatchService,
  type Tenant,
  until,
  type WorkingBatchService,
} from './support/batches.ts';
import { createTemplate, loyaltyTemplate, setWalletState } from './support/passes.ts';
import { TestClock, type TestService } from './support/testService.ts';

const BASE = 'http://wallet.test';
const UNKNOWN_ID = '0194f3a2-7c1e-7a51-9d7e-0b6a2f1c9e10';

describe('with the job workers running', () => {
  const clock = new TestClock(new Date('2026-11-21T10:00:00Z'));
  let service: TestService;
  let tenant: Tenant;
  let other: Tenant;
  let newPass: WorkingBatchService['newPass'];
  let scheduled: WorkingBatchService['scheduled'];
  const api = client(
    () => service,
    () => tenant,
  );
  const later = (ms = DAY_MS) => new Date(clock.now().getTime() + ms).toISOString();
  let counter = 0;

  beforeAll(async () => {
    ({ service, tenant, other, newPass, scheduled } = await startWorkingBatchService(clock));
  });
  afterAll(() => service.close());

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
        statusDetail:
          '1 of 3 recipients could not be messaged; see errorsCsvUrl. None of them is in a wallet: the passes keep it for when their holders add them.',
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
      // One of the two is in a wallet (added, no device registered for pushes).
      await setWalletState(service, onlyB.id, 'active');
      const id = await scheduled({ message: 'Hello %{member}', segments: [{ groupTag: tag }, { groupTag: `${tag}-b` }] });
      expect((await api.get(id).expect(200)).body.data.attributes).toMatchObject({ recipientCount: 2, walletCount: 1 });
      const listed = (await service.api.get('/api/v1/batches?perPage=100').set(service.auth(tenant.token)).expect(200)).body.data;
      expect(listed.find((b: { id: string }) => b.id === id).attributes.walletCount).toBe(1);
      expect((await api.sendNow(id).expect(200)).body.data.attributes.walletCount).toBeUndefined();
      const attributes = await api.until(id, (s) => FINAL.includes(s));
      // Sent to both; no wallet took a push (the wallet state has no device), which the detail says.
      expect(attributes).toMatchObject({
        status: 'successful',
        statusDetail: 'All 2 recipients got the message. None of them is in a wallet: the passes keep it for when their holders add them.',
        recipientCount: 2,
        walletCount: 0,
        errorsCsvUrl: null,
      });
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
});
