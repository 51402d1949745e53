/**
 * The typed client (src/client): used as a consumer would, against the app listening on a port.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createWalletPassClient, WalletPassApiError, WalletPassTimeoutError, type WalletPassClient } from '../src/client/index.ts';
import { loyaltyTemplate } from './support/passes.ts';
import { startTestService, type TestService } from './support/testService.ts';

async function listen(service: TestService): Promise<{ server: Server; baseUrl: string }> {
  const server = service.app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return { server, baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

let service: TestService;
let server: Server;
let client: WalletPassClient;
let accountId: string;

beforeAll(async () => {
  service = await startTestService({ jobs: 'work' });
  const tenant = await service.createAccount();
  accountId = tenant.accountId;
  let baseUrl: string;
  ({ server, baseUrl } = await listen(service));
  client = createWalletPassClient({ baseUrl, token: tenant.token });
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await service.close();
});

it('creates a template and waits until it is processed', async () => {
  const created = await client.POST('/api/v1/pass-templates', { body: { passTemplate: loyaltyTemplate() as never } });
  expect(created.response.status).toBe(202);
  expect(created.data!.attributes.processingStatus).toBe('processing');
  const template = await client.waitForTemplate(created.data!.id, { intervalMs: 50 });
  expect(template.id).toBe(created.data!.id);
  expect(template.attributes).not.toHaveProperty('processingStatus');
  expect(template.attributes.name).toBe('Coffee Club Card');
});

it('returns API errors as typed JSON:API documents, not thrown strings', async () => {
  const res = await client.GET('/api/v1/passes/{id}', { params: { path: { id: 'no-such-pass' } } });
  expect(res.data).toBeUndefined();
  expect(res.response.status).toBe(404);
  expect(res.error!.errors[0]).toMatchObject({ status: '404', code: 'not_found' });
});

it('iterates every record of a paginated list across pages', async () => {
  const ids: string[] = [];
  for (let i = 0; i < 12; i++) ids.push(await service.createEntity(accountId, `Shop ${i}`));
  const seen: string[] = [];
  for await (const entity of client.paginate('/api/v1/entities', { query: { perPage: 5 } })) seen.push(entity.id);
  expect(seen).toEqual(ids);
});

it('throws a typed error from the helpers when the API refuses', async () => {
  const error = await client.waitForTemplate('0194f3a2-7c1e-7a51-9d7e-0b6a2f1c9e10').catch((e: unknown) => e);
  expect(error).toBeInstanceOf(WalletPassApiError);
  expect((error as WalletPassApiError).status).toBe(404);
  expect((error as WalletPassApiError).errors[0]!.code).toBe('not_found');
  const pages = client.paginate('/api/v1/passes', { query: { perPage: 500 } as never });
  await expect(pages.next()).rejects.toBeInstanceOf(WalletPassApiError);
});

it('gives up waiting after the timeout', async () => {
  const idle = await startTestService({ jobs: 'enqueue' });
  const tenant = await idle.createAccount();
  const { server: idleServer, baseUrl } = await listen(idle);
  const idleClient = createWalletPassClient({ baseUrl, token: tenant.token });
  const created = await idleClient.POST('/api/v1/pass-templates', { body: { passTemplate: loyaltyTemplate() as never } });
  await expect(idleClient.waitForTemplate(created.data!.id, { timeoutMs: 300, intervalMs: 50 })).rejects.toBeInstanceOf(WalletPassTimeoutError);
  await new Promise((resolve) => idleServer.close(resolve));
  await idle.close();
});
