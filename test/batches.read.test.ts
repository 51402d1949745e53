/**
 * Wallet-messaging batches (spec §2.8, §2.9, §4.14; PassEntry wallet messaging), listBatches and
 * getBatch through HTTP on a real database, responses validated against the contract, with the
 * `wallet-messaging` job run by the service's workers: the envelope, pages, the type filter,
 * tenancy and refused parameters.
 */
import { client, DAY_MS, expectError, startWorkingBatchService, type Tenant } from './support/batches.ts';
import { TestClock, type TestService } from './support/testService.ts';

const BASE = 'http://wallet.test';

describe('with the job workers running', () => {
  const clock = new TestClock(new Date('2026-11-21T10:00:00Z'));
  let service: TestService;
  let tenant: Tenant;
  let other: Tenant;
  const api = client(
    () => service,
    () => tenant,
  );
  const later = (ms = DAY_MS) => new Date(clock.now().getTime() + ms).toISOString();

  beforeAll(async () => {
    ({ service, tenant, other } = await startWorkingBatchService(clock));
  });
  afterAll(() => service.close());

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
