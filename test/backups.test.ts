/**
 * Backups under write load, restored and served again (README, "Backups"): on the embedded
 * database with `npm run admin -- backup` (getDatabaseBackup of the running service) and
 * `restore`; on PostgreSQL with the README's `pg_dump`/`pg_restore` commands.
 *
 * "Identical" under write load: writers create passes, each writer one after the other, while the
 * backup is taken. A consistent backup holds, of each writer's passes, exactly a prefix of its
 * sequence (what it had committed at one moment), and every pass acknowledged before the backup
 * started. The restored server then answers every list operation exactly as the source does once
 * the passes committed after that moment are left out (the source's lists are read after the
 * writers stopped; the writers create nothing but passes).
 */
import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { pgliteDirOf } from '../src/db/database.ts';
import { setAppleConfiguration } from './support/appleCredentials.ts';
import { createTemplate, issuePass, loyaltyTemplate } from './support/passes.ts';
import { startServer, stopServer, type Started } from './support/serverProcess.ts';
import { testDatabaseKind } from './support/testDatabase.ts';
import { startTestService, type TestService } from './support/testService.ts';

const WRITERS = 3;
const run = promisify(execFile);

/** Runs the admin CLI as a process; returns its exit code and output. */
function admin(args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/admin/cli.ts', ...args], {
    env: { PATH: process.env.PATH!, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, stdout, stderr })));
}

let service: TestService;
let listener: Server;
let sourceUrl: string;
let restored: Started | undefined;
const temporary: string[] = [];
const databases: string[] = [];

afterAll(async () => {
  if (restored) await stopServer(restored);
  listener?.close();
  await service?.close();
  for (const dir of temporary) await rm(dir, { recursive: true, force: true });
  if (databases.length) {
    const client = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
    await client.connect();
    for (const name of databases) await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await client.end();
  }
});

/** A fresh temporary directory. */
async function tempDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  temporary.push(dir);
  return dir;
}

/**
 * Backs up the source (while it is written to) and restores the copy; returns the environment
 * of a server on the restored copy.
 */
async function backUpAndRestore(backedUp: () => void): Promise<Record<string, string>> {
  if (testDatabaseKind() === 'pglite') {
    const sourceDir = await tempDir('wps-backup-source-');
    // The embedded default keeps its secrets key in DATA_DIR; the backup must carry it.
    await writeFile(join(sourceDir, 'secrets-key'), `${service.secretsKey.toString('base64')}\n`, { mode: 0o600 });
    const file = join(await tempDir('wps-backup-file-'), 'backup.json');
    const backup = await admin(['backup', '--out', file, '--json'], { ADMIN_URL: sourceUrl, ADMIN_TOKEN: service.adminToken, DATA_DIR: sourceDir });
    backedUp();
    expect(backup.stderr).toBe('');
    expect(JSON.parse(backup.stdout).backup.secretFiles).toEqual(['secrets-key']);
    const target = await tempDir('wps-backup-target-');
    const restore = await admin(['restore', '--in', file], { DATA_DIR: target });
    expect(restore).toMatchObject({ code: 0, stderr: '' });
    expect((await readdir(target)).sort()).toEqual(['lock', 'pglite', 'secrets-key']);
    // A second restore into the now non-empty directory is refused, and changes nothing.
    const again = await admin(['restore', '--in', file], { DATA_DIR: target });
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('is not empty');
    expect(pgliteDirOf(target)).toBe(join(target, 'pglite'));
    return { DATA_DIR: target };
  }
  // PostgreSQL: the README's commands.
  const dumpFile = join(await tempDir('wps-backup-file-'), 'wallet.dump');
  await run('pg_dump', ['--format=custom', '--file', dumpFile, service.database.url!]).finally(backedUp);
  const name = `wps_test_restore_${randomBytes(6).toString('hex')}`;
  databases.push(name);
  const target = new URL(process.env.TEST_DATABASE_URL!);
  const client = new pg.Client({ connectionString: target.toString() });
  await client.connect();
  await client.query(`CREATE DATABASE ${name}`);
  await client.end();
  target.pathname = `/${name}`;
  await run('pg_restore', ['--no-owner', '--dbname', target.toString(), dumpFile]);
  return { DATABASE_URL: target.toString(), SECRETS_KEY: service.secretsKey.toString('base64'), PUBLIC_BASE_URL: 'http://wallet.test' };
}

/** Every page of a list, as the JSON documents answered, with the server's own address replaced. */
async function list(base: string, token: string, path: string): Promise<unknown[]> {
  const pages: unknown[] = [];
  for (let page = 1; ; page++) {
    const res = await fetch(`${base}${path}${page > 1 ? `?page=${page}` : ''}`, { headers: { Authorization: `Bearer ${token}` } });
    const text = (await res.text()).split(base).join('BASE').split('http://wallet.test').join('BASE');
    expect({ path, status: res.status }).toEqual({ path, status: 200 });
    const body = JSON.parse(text) as { meta?: { totalPages?: number } };
    pages.push(body);
    if (!body.meta?.totalPages || page >= body.meta.totalPages) return pages;
  }
}

it('backs up under write load, restores, and the restored server answers every list as the source did at the backup', async () => {
  service = await startTestService({ persistent: true, jobs: 'work' });
  listener = service.app.listen(0, '127.0.0.1');
  await new Promise((resolve) => listener.once('listening', resolve));
  sourceUrl = `http://127.0.0.1:${(listener.address() as AddressInfo).port}`;

  // Something in every list.
  const { accountId, token } = await service.createAccount('Backup test');
  await service.createEntity(accountId, 'Soho');
  await setAppleConfiguration(service, accountId);
  await service.api
    .post('/api/v1/webhook-subscriptions')
    .set(service.auth(token))
    .send({ webhookSubscription: { url: 'http://127.0.0.1:9/hooks/backup', scopeType: 'organisation', subscribedEvents: ['passScanned'] } });
  const templateId = await createTemplate(service, token, loyaltyTemplate());
  const seeded = await issuePass(service, token, templateId);

  // Writers, each creating passes one after the other, until told to stop.
  const written: { id: string; ackedAt: number }[][] = Array.from({ length: WRITERS }, () => []);
  let stop = false;
  const writers = written.map(async (mine) => {
    while (!stop) {
      const pass = await issuePass(service, token, templateId);
      mine.push({ id: pass.id, ackedAt: Date.now() });
    }
  });
  await new Promise((resolve) => setTimeout(resolve, 500));
  const startedAt = Date.now();
  let backupDoneAt = Number.POSITIVE_INFINITY;
  const restoredEnv = await backUpAndRestore(() => {
    backupDoneAt = Date.now();
    stop = true;
  }).finally(() => (stop = true));
  await Promise.all(writers);
  expect(written.flat().filter((w) => w.ackedAt > startedAt && w.ackedAt < backupDoneAt).length).toBeGreaterThan(0);

  restored = await startServer({ ...restoredEnv, ADMIN_TOKEN: service.adminToken, RATE_LIMIT_PER_SECOND: '0' }, { timeoutMs: 300_000 });
  const restoredIds = new Set(
    (await list(restored.url, token, '/api/v1/passes')).flatMap((page) => (page as { data: { id: string }[] }).data.map((p) => p.id)),
  );
  expect(restoredIds.has(seeded.id)).toBe(true);
  for (const mine of written) {
    const kept = mine.filter((w) => restoredIds.has(w.id)).length;
    expect(mine.slice(0, kept).every((w) => restoredIds.has(w.id))).toBe(true); // a prefix
    expect(mine.filter((w) => w.ackedAt < startedAt).every((w) => restoredIds.has(w.id))).toBe(true);
  }
  const after = new Set(
    written
      .flat()
      .filter((w) => !restoredIds.has(w.id))
      .map((w) => w.id),
  );

  // Every list: the source without the passes committed after the backup.
  const lists = [
    [token, '/api/v1/passes'],
    [token, '/api/v1/pass-templates'],
    [token, '/api/v1/entities'],
    [token, '/api/v1/scans'],
    [token, '/api/v1/batches'],
    [token, '/api/v1/webhook-subscriptions'],
    [token, `/api/v1/passes/${seeded.id}/registrations`],
    [token, `/api/v1/passes/${seeded.id}/delivery-attempts`],
    [service.adminToken, '/admin/v1/accounts'],
    [service.adminToken, `/admin/v1/accounts/${accountId}/tokens`],
    [service.adminToken, `/admin/v1/accounts/${accountId}/entities`],
    [service.adminToken, `/admin/v1/accounts/${accountId}/apple-configurations`],
    [service.adminToken, '/admin/v1/apple-device-logs'],
  ] as const;
  for (const [credential, path] of lists) {
    // The API key this comparison reads with is used after the backup on both sides: its
    // lastUsedAt is the time of these reads, not of the snapshot.
    const unused = (pages: unknown[]) =>
      path.endsWith('/tokens') ? JSON.parse(JSON.stringify(pages).replace(/"lastUsedAt":"[^"]*"/g, '"lastUsedAt":"read"')) : pages;
    const source = unused(await list(sourceUrl, credential, path));
    const copy = unused(await list(restored.url, credential, path));
    if (path !== '/api/v1/passes') {
      expect({ path, pages: copy }).toEqual({ path, pages: source });
      continue;
    }
    const items = (pages: unknown[]) => pages.flatMap((page) => (page as { data: { id: string }[] }).data).filter((p) => !after.has(p.id));
    expect(items(copy)).toEqual(items(source));
  }
}, 900_000);

it('answers getDatabaseBackup only to the administration token, and 409 on PostgreSQL', async () => {
  service ??= await startTestService({});
  await service.api.get('/admin/v1/database-backup').expect(401);
  await service.api.post('/admin/v1/database-backup').set(service.adminAuth()).expect(405);
  const res = await service.api.get('/admin/v1/database-backup').set(service.adminAuth());
  if (testDatabaseKind() === 'postgresql') {
    expect(res.status).toBe(409);
    expect(res.body.errors[0].code).toBe('backup_not_embedded');
  } else {
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/gzip');
    expect(res.headers['content-disposition']).toMatch(/^attachment; filename="pglite-\d{8}T\d{6}Z\.tar\.gz"$/);
  }
});

it('refuses bad backup, restore and rotate arguments with the documented exit codes', async () => {
  const dir = await tempDir('wps-backup-args-');
  const notBackup = join(dir, 'not-a-backup.json');
  await writeFile(notBackup, '{"format":"something else"}');
  expect(await admin(['restore'], { DATA_DIR: dir })).toMatchObject({ code: 2, stderr: expect.stringContaining('--in is required') });
  expect(await admin(['secrets', 'rotate', '--batch-size', '0'], { DATA_DIR: dir })).toMatchObject({
    code: 2,
    stderr: expect.stringContaining('--batch-size must be a whole number of at least 1'),
  });
  expect(await admin(['restore', '--in', notBackup], { DATA_DIR: join(dir, 'target') })).toMatchObject({
    code: 1,
    stderr: expect.stringContaining('is not a backup file of this service'),
  });
  expect(await admin(['backup', '--out', notBackup], { ADMIN_URL: 'http://127.0.0.1:9', ADMIN_TOKEN: 'wpa_x', DATA_DIR: dir })).toMatchObject({ code: 1 });
}, 120_000);
