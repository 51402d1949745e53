/**
 * The typed client (src/client): used as a consumer would, against the app listening on a port.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, symlink, writeFile } from 'node:fs/promises';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import type { AddressInfo } from 'node:net';
import { parse } from 'csv-parse/sync';
import { createWalletPassClient, WalletPassApiError, WalletPassTimeoutError, type BatchResource, type WalletPassClient } from '../src/client/index.ts';
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

describe('CSV batches', () => {
  let templateId: string;
  beforeAll(async () => {
    const created = await client.POST('/api/v1/pass-templates', { body: { passTemplate: loyaltyTemplate() as never } });
    templateId = (await client.waitForTemplate(created.data!.id, { intervalMs: 50 })).id;
  });

  it('uploads a CSV file of passes, reports progress and returns the finished batch', async () => {
    const csv = '\uFEFFext_id,passfield_member,passfield_points\r\nclient-csv-1,"Lovelace, Ada",120\r\nclient-csv-2,Alan Turing,7\r\n';
    const seen: BatchResource[] = [];
    const batch = await client.createPassesFromCsv(
      { passTemplate: templateId, csv, name: 'From the client' },
      { intervalMs: 50, onProgress: (b) => seen.push(b) },
    );
    expect(batch.type).toBe('passCreation');
    expect(batch.attributes).toMatchObject({ status: 'successful', name: 'From the client', progress: { total: 2, processed: 2, pending: 0 } });
    // The accepted batch first, then each change, the finished one last.
    expect(seen[0]!.attributes.status).toBe('processing');
    expect(seen.at(-1)).toEqual(batch);
    expect(batch.attributes.resultsCsvUrl).toMatch(new RegExp(`/api/v1/batches/${batch.id}/results\\.csv$`));
    const results = await client.GET('/api/v1/batches/{id}/results.csv', { params: { path: { id: batch.id } }, parseAs: 'text' });
    const rows = parse(results.data as string, { columns: true }) as { pass_id: string; ext_id: string }[];
    expect(rows.map((r) => r.ext_id)).toEqual(['client-csv-1', 'client-csv-2']);
    const pass = await client.GET('/api/v1/passes/{id}', { params: { path: { id: rows[0]!.pass_id } } });
    expect(pass.data!.data.attributes).toMatchObject({ extId: 'client-csv-1' });
    expect(JSON.stringify(pass.data)).toContain('Lovelace, Ada');
  });

  it('uploads a CSV file of changes and waits until it has been applied', async () => {
    await client.createPassesFromCsv({ passTemplate: templateId, csv: new TextEncoder().encode('ext_id\nclient-csv-3\n') }, { intervalMs: 50 });
    const batch = await client.updatePassesFromCsv(
      { csv: new Blob(['pass_id,pass_action\nclient-csv-3,deactivate\n'], { type: 'text/csv' }), scheduledAt: new Date(Date.now() + 500).toISOString() },
      { intervalMs: 50 },
    );
    expect(batch.type).toBe('passUpdate');
    expect(batch.attributes).toMatchObject({ status: 'successful', progress: { total: 1, processed: 1, pending: 0 } });
    const pass = await client.GET('/api/v1/passes/{id}', { params: { path: { id: 'client-csv-3' } } });
    expect(pass.data!.data.attributes.status).toBe('deactivated');
  });

  it("throws the API's refusal of an unreadable file as a typed error naming the field", async () => {
    const error = await client.createPassesFromCsv({ passTemplate: templateId, csv: 'ext_id,no_such_column\nx,y\n' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WalletPassApiError);
    expect((error as WalletPassApiError).status).toBe(400);
    expect((error as WalletPassApiError).errors[0]!.source).toMatchObject({ pointer: '/csv' });
  });
});

describe('as a package', () => {
  const run = promisify(execFile);
  const root = resolve(import.meta.dirname, '..');

  it('is importable as wallet-pass-service/client, with types, from the built output', async () => {
    await run('npm', ['run', '-s', 'build:client'], { cwd: root });
    // A consumer project: the package linked into its node_modules, its own strict tsconfig.
    const consumer = await mkdtemp(join(tmpdir(), 'wps-consumer-'));
    await mkdir(join(consumer, 'node_modules'));
    await symlink(root, join(consumer, 'node_modules', 'wallet-pass-service'));
    await writeFile(join(consumer, 'package.json'), JSON.stringify({ name: 'consumer', type: 'module' }));
    await writeFile(
      join(consumer, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', strict: true, noEmit: true, skipLibCheck: false, types: [] },
      }),
    );
    const source = `import { createWalletPassClient, WalletPassApiError } from 'wallet-pass-service/client';
declare const process: { argv: string[] };
const client = createWalletPassClient({ baseUrl: process.argv[2]!, token: process.argv[3]! });
const { data, error } = await client.GET('/api/v1/entities', { params: { query: { perPage: 5 } } });
if (error) throw new WalletPassApiError(404, error.errors);
const names: string[] = data!.data.map((entity) => entity.attributes.name);
console.log(JSON.stringify({ names, isError: new WalletPassApiError(400, []) instanceof Error }));
`;
    await writeFile(join(consumer, 'consumer.ts'), source);
    await writeFile(
      join(consumer, 'consumer.mjs'),
      source
        .replace(/^declare .*\n/m, '')
        .replace(/: string\[\]/, '')
        .replace(/!/g, ''),
    );
    // The consumer's compiler accepts it (types resolve through the package's exports)…
    await run(join(root, 'node_modules/.bin/tsc'), ['-p', consumer]);
    // …and so does a wrong call, which it must refuse.
    await writeFile(
      join(consumer, 'wrong.ts'),
      `import { createWalletPassClient } from 'wallet-pass-service/client';
const client = createWalletPassClient({ baseUrl: '', token: '' });
await client.GET('/api/v1/no-such-path');
`,
    );
    await expect(run(join(root, 'node_modules/.bin/tsc'), ['-p', consumer])).rejects.toMatchObject({ stdout: expect.stringContaining('wrong.ts') });
    // Node runs it against the live server.
    const tenant = await service.createAccount();
    await service.createEntity(tenant.accountId, 'From a consumer');
    const address = server.address() as AddressInfo;
    const { stdout } = await run(process.execPath, ['consumer.mjs', `http://127.0.0.1:${address.port}`, tenant.token], { cwd: consumer });
    expect(JSON.parse(stdout)).toEqual({ names: ['From a consumer'], isError: true });
  }, 120_000);
});
