/**
 * Monitoring: `GET /metrics` (getMetrics) in Prometheus's text format, with the administration
 * token. Request times per operation and status, the job queue's backlog, the database pool.
 * (Delivery outcomes: test/appleWalletWebService.test.ts; several processes: test/server.test.ts.)
 */
import { plainTemplate } from './support/passes.ts';
import { testDatabaseKind } from './support/testDatabase.ts';
import { startTestService, type TestService } from './support/testService.ts';

let service: TestService;
beforeAll(async () => {
  service = await startTestService({ jobs: 'enqueue' });
});
afterAll(() => service.close());

/** The value of one sample line (`name{labels} value`), or undefined. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

async function metrics(): Promise<string> {
  const res = await service.api.get('/metrics').set(service.adminAuth()).expect(200);
  expect(res.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
  return res.text;
}

describe('getMetrics', () => {
  it('needs the administration token', async () => {
    const { token } = await service.createAccount();
    for (const auth of [{}, service.auth(token)]) {
      const res = await service.api.get('/metrics').set(auth).expect(401);
      expect(res.body.errors[0].code).toBe('unauthorized');
    }
  });

  it('counts and times requests by operationId and status', async () => {
    const { token } = await service.createAccount();
    const series = (operation: string, status: number) => `http_request_duration_seconds_count{operation="${operation}",status="${status}"}`;
    const before = await metrics();
    for (let i = 0; i < 3; i++) await service.api.get('/api/v1/entities').set(service.auth(token)).expect(200);
    await service.api.get('/api/v1/entities/0194f3a2-7c1e-7a51-9d7e-0b6a2f1c9e10').set(service.auth(token)).expect(404);
    await service.api.get('/api/v1/no-such-thing').set(service.auth(token)).expect(404);
    const after = await metrics();
    expect((sample(after, series('listEntities', 200)) ?? 0) - (sample(before, series('listEntities', 200)) ?? 0)).toBe(3);
    expect((sample(after, series('getEntity', 404)) ?? 0) - (sample(before, series('getEntity', 404)) ?? 0)).toBe(1);
    expect((sample(after, series('unknown', 404)) ?? 0) - (sample(before, series('unknown', 404)) ?? 0)).toBe(1);
    expect(sample(after, 'http_request_duration_seconds_bucket{le="+Inf",operation="listEntities",status="200"}')).toBe(
      sample(after, series('listEntities', 200)),
    );
    expect(sample(after, 'http_request_duration_seconds_sum{operation="listEntities",status="200"}')).toBeGreaterThan(0);
  });

  it('reports the job queue backlog per queue and state, and how long the oldest due job waited', async () => {
    const { accountId, token } = await service.createAccount();
    await service.createEntity(accountId);
    // No workers run here: the template's processing job waits in its queue.
    await service.api.post('/api/v1/pass-templates').set(service.auth(token)).send({ passTemplate: plainTemplate() }).expect(202);
    const text = await metrics();
    expect(sample(text, 'job_queue_jobs{queue="pass-template-processing",state="created"}')).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'job_queue_jobs{queue="pass-template-processing",state="active"}')).toBe(0);
    expect(sample(text, 'job_queue_oldest_waiting_seconds{queue="pass-template-processing"}')).toBeGreaterThanOrEqual(0);
  });

  (testDatabaseKind() === 'postgresql' ? it : it.skip)('reports the PostgreSQL pool', async () => {
    const text = await metrics();
    expect(sample(text, 'db_pool_connections{state="total"}')).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'db_pool_connections{state="waiting"}')).toBe(0);
  });
});
