/**
 * The job queue (src/jobs/queue.ts) as the service runs it, workers included: on the embedded
 * database, whose one connection and event loop requests share with the jobs, an idle queue
 * costs one read-only statement per polling interval instead of one locking fetch per queue, and
 * a delayed job still runs within a polling interval of its time.
 */
import type { PGlite } from '@electric-sql/pglite';
import { passChangedJob } from '../src/delivery/passChangedJob.ts';
import { testDatabaseKind } from './support/testDatabase.ts';
import { startTestService, type TestService } from './support/testService.ts';
import { pollUntil } from './support/poll.ts';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const onPglite = testDatabaseKind() === 'pglite' ? describe : describe.skip;

onPglite('the job queue on the embedded database', () => {
  let service: TestService;
  beforeAll(async () => {
    // Workers running, polling every 0.5 s (the test services' interval).
    service = await startTestService({ jobs: 'work' });
  });
  afterAll(() => service.close());

  /** Counts the statements run on the PGlite instance while `during` runs, by kind. */
  async function statementsDuring(during: () => Promise<void>): Promise<{ fetches: number; total: number }> {
    const pglite = service.runtime.db.driver.kind === 'pglite' ? service.runtime.db.driver.pglite : undefined;
    if (!pglite) throw new Error('not PGlite');
    const counts = { fetches: 0, total: 0 };
    const patched = pglite as PGlite & Record<'query' | 'exec', (text: string, ...rest: unknown[]) => Promise<unknown>>;
    const originals = { query: patched.query, exec: patched.exec };
    for (const method of ['query', 'exec'] as const) {
      patched[method] = function (this: PGlite, text: string, ...rest: unknown[]) {
        counts.total++;
        // pg-boss's fetch: claims due jobs with a locking update.
        if (/SKIP LOCKED/.test(text) && /FROM pgboss\.job/.test(text)) counts.fetches++;
        return (originals[method] as (text: string, ...rest: unknown[]) => Promise<unknown>).call(this, text, ...rest);
      } as never;
    }
    try {
      await during();
    } finally {
      Object.assign(patched, originals);
    }
    return counts;
  }

  it('runs no locking fetch while no job is due, one statement per polling interval instead', async () => {
    // Six queues polled every 0.5 s by their own fetches would be about 36 in 3 s; six looks for
    // due jobs, and pg-boss's and the outbox relay's own rounds, remain.
    const counts = await statementsDuring(() => sleep(3000));
    expect(counts.fetches).toBeLessThanOrEqual(1);
    expect(counts.total).toBeLessThan(15);
  });

  it('runs a delayed job within a polling interval of its time, and one sent now at once', async () => {
    const passId = '00000000-0000-4000-8000-000000000001';
    const state = async (id: string) =>
      (await service.runtime.db.sql.$queryRaw<{ state: string }[]>`SELECT state::text FROM pgboss.job WHERE id = ${id}::uuid`)[0]?.state;
    const sent = Date.now();
    const delayed = await service.runtime.db.write((tx) => service.jobs.send(tx, passChangedJob, { passId }, { startAfterSeconds: 1, singletonKey: passId }));
    await pollUntil(
      () => state(delayed!),
      (s) => s === 'completed',
      { timeoutMs: 10_000 },
    );
    // Due after 1 s; a polling interval (0.5 s) and the job's own work on top.
    expect(Date.now() - sent).toBeLessThan(2500);
    const now = Date.now();
    const immediate = await service.runtime.db.write((tx) =>
      service.jobs.send(tx, passChangedJob, { passId: '00000000-0000-4000-8000-000000000002' }, { singletonKey: 'immediate' }),
    );
    await pollUntil(
      () => state(immediate!),
      (s) => s === 'completed',
      { timeoutMs: 10_000 },
    );
    expect(Date.now() - now).toBeLessThan(1000);
  });
});
