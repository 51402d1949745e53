/**
 * Fixtures of the wallet-messaging batch tests (test/batches.*.test.ts): API calls bound to a
 * service and tenant, polling, the deliveries and pg-boss jobs of a batch, and the service the
 * tests with the job workers running start from.
 */
import type { Response } from 'supertest';
import { createTemplate, issuePass, loyaltyTemplate } from './passes.ts';
import { startTestService, type TestClock, type TestService } from './testService.ts';

export const HOUR_MS = 60 * 60 * 1000;
export const DAY_MS = 24 * HOUR_MS;
/** The statuses a batch ends in. */
export const FINAL = ['successful', 'completedWithErrors', 'failed', 'cancelled'];

export type Tenant = { accountId: string; token: string };
export type Pass = { id: string; attributes: Record<string, unknown> };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Reads until `done` holds (the job works in the background); Jest's timeout bounds the wait. */
export async function until<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    await sleep(25);
  }
}

/** Expects an error response: the status, and exactly one error object with the code (and source, when given). */
export function expectError(res: Response, status: number, code: string, source?: Record<string, string>) {
  expect(res.status).toBe(status);
  expect(res.body.errors).toEqual([expect.objectContaining({ status: String(status), code, ...(source ? { source } : {}) })]);
}

/** API helpers bound to one service and tenant. */
export function client(service: () => TestService, tenant: () => Tenant) {
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
export async function deliveries(service: TestService, batchId: string) {
  return service.database.db.prisma.batchDelivery.findMany({ where: { batchId }, orderBy: { passId: 'asc' } });
}

/** The wallet-messaging jobs of a batch in pg-boss. */
export async function jobsOf(service: TestService, batchId: string) {
  return service.database.db.prisma.$queryRaw<{ state: string; delay: number }[]>`
    SELECT state, EXTRACT(EPOCH FROM start_after - created_on)::float8 AS delay
      FROM pgboss.job WHERE name = 'wallet-messaging' AND data->>'batchId' = ${batchId} ORDER BY created_on`;
}

/** What {@link startWorkingBatchService} sets up, and the makers bound to it. */
export interface WorkingBatchService {
  service: TestService;
  /** "Coffee Club Ltd", with the entity `entityId` ("Soho") and the processed loyalty template `templateId`. */
  tenant: Tenant;
  /** "Other Tenant", with the entity `otherEntityId` ("Elsewhere"). */
  other: Tenant;
  entityId: string;
  otherEntityId: string;
  templateId: string;
  /** A pass of the loyalty template with a fresh extId. */
  newPass(pass?: Record<string, unknown>, extra?: Record<string, unknown>, token?: string, template?: string): Promise<Pass>;
  /** Creates a batch for `entityId` (202), scheduled a day after the clock's now unless given, and waits until validation is over; returns its id. */
  scheduled(batch: Record<string, unknown>): Promise<string>;
}

/**
 * Starts a service whose job workers run on `clock` (the `wallet-messaging` job included), with
 * two accounts, an entity each and a processed loyalty template of the first.
 */
export async function startWorkingBatchService(clock: TestClock): Promise<WorkingBatchService> {
  const service = await startTestService({ jobs: 'work', clock });
  const tenant = await service.createAccount('Coffee Club Ltd');
  const other = await service.createAccount('Other Tenant');
  const entityId = await service.createEntity(tenant.accountId, 'Soho');
  const otherEntityId = await service.createEntity(other.accountId, 'Elsewhere');
  const templateId = await createTemplate(service, tenant.token, loyaltyTemplate());
  const api = client(
    () => service,
    () => tenant,
  );
  const later = (ms = DAY_MS) => new Date(clock.now().getTime() + ms).toISOString();
  let counter = 0;
  return {
    service,
    tenant,
    other,
    entityId,
    otherEntityId,
    templateId,
    newPass: async (pass = {}, extra = {}, token = tenant.token, template = templateId) =>
      issuePass(service, token, template, { pass, ...extra }, { extId: `bm-${++counter}` }),
    scheduled: async (batch) => {
      const res = await api.create(entityId, { message: 'Hello', scheduledAt: later(), ...batch }).expect(202);
      await api.until(res.body.data.id, (s) => s !== 'validating');
      return res.body.data.id as string;
    },
  };
}
