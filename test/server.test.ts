/**
 * The server process (`npm start`): start on the embedded default, bootstrap admin token file,
 * data kept across restarts, graceful shutdown on SIGTERM, configuration errors.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, stat } from 'node:fs/promises';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { testDatabaseKind, createTestDatabase } from './support/testDatabase.ts';

interface Started {
  child: ChildProcess;
  url: string;
  output: () => string;
  exited: Promise<number | null>;
}

function startServer(env: Record<string, string>): Promise<Started> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
    env: { PATH: process.env.PATH, PORT: '0', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${output}`)), 30_000);
    const onData = () => {
      const match = /"url":"(http:\/\/[^"]+)","docs"/.exec(output);
      if (match) {
        clearTimeout(timer);
        child.stdout!.off('data', onData);
        resolve({ child, url: match[1]!, output: () => output, exited });
      }
    };
    child.stdout!.on('data', onData);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}:\n${output}`));
    });
  });
}

async function stopServer(server: Started): Promise<number | null> {
  server.child.kill('SIGTERM');
  return server.exited;
}

it('starts on the embedded default, writes a private admin token file once, and keeps data', async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'wps-data-'));
  const first = await startServer({ DATA_DIR: dataDir });
  const tokenFile = join(dataDir, 'admin-token');
  const adminToken = (await readFile(tokenFile, 'utf8')).trim();
  expect((await stat(tokenFile)).mode & 0o777).toBe(0o600);
  expect(first.output()).toContain(tokenFile);
  expect(first.output()).not.toContain(adminToken);

  const created = await fetch(`${first.url}/admin/v1/accounts`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${adminToken}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ account: { name: 'Persistent' } }),
  });
  expect(created.status).toBe(201);
  const apiKey = ((await created.json()) as { included: { attributes: { token: string } }[] }).included[0]!.attributes.token;
  expect(first.output()).not.toContain(apiKey);
  expect(await stopServer(first)).toBe(0);
  expect(first.output()).toContain('shutdown complete');

  const second = await startServer({ DATA_DIR: dataDir });
  expect((await readFile(tokenFile, 'utf8')).trim()).toBe(adminToken);
  const entities = await fetch(`${second.url}/api/v1/entities`, { headers: { Authorization: `Bearer ${apiKey}` } });
  expect(entities.status).toBe(200);
  expect(await stopServer(second)).toBe(0);
}, 90_000);

it('finishes an in-flight request and closes idle keep-alive connections on SIGTERM', async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'wps-data-'));
  const server = await startServer({ DATA_DIR: dataDir });
  const adminToken = (await readFile(join(dataDir, 'admin-token'), 'utf8')).trim();
  const idleAgent = new http.Agent({ keepAlive: true });
  await new Promise<void>((resolve, reject) =>
    http.get(`${server.url}/healthz`, { agent: idleAgent }, (res) => res.resume().on('end', resolve)).on('error', reject),
  ); // leaves an idle keep-alive connection that must not hold shutdown up

  // A request whose body is still arriving when SIGTERM lands must be answered in full.
  const body = JSON.stringify({ account: { name: 'In flight' } });
  const request = http.request(`${server.url}/admin/v1/accounts`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${adminToken}`, 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) },
  });
  const answered = new Promise<number>((resolve, reject) => {
    request.on('response', (res) => res.resume().on('end', () => resolve(res.statusCode!)));
    request.on('error', reject);
  });
  request.write(body.slice(0, 10));
  await new Promise((r) => setTimeout(r, 300));
  server.child.kill('SIGTERM');
  await new Promise((r) => setTimeout(r, 300));
  request.end(body.slice(10));
  expect(await answered).toBe(201);
  expect(await server.exited).toBe(0);
  idleAgent.destroy();
}, 60_000);

it('refuses to start with a bad setting, naming it', async () => {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], { env: { PATH: process.env.PATH, PORT: 'eighty' } });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const code = await new Promise((r) => child.once('exit', r));
  expect(code).toBe(2);
  expect(stderr).toContain('PORT must be an integer');
}, 30_000);

(testDatabaseKind() === 'postgresql' ? it : it.skip)('on PostgreSQL without ADMIN_TOKEN, disables the administration API', async () => {
  const database = await createTestDatabase();
  const server = await startServer({
    DATABASE_URL: database.url!,
    SECRETS_KEY: randomBytes(32).toString('base64'),
    DATA_DIR: await mkdtemp(join(tmpdir(), 'wps-data-')),
  });
  const res = await fetch(`${server.url}/admin/v1/accounts`, { headers: { Authorization: 'Bearer anything' } });
  expect(res.status).toBe(401);
  expect(((await res.json()) as { errors: { detail: string }[] }).errors[0]!.detail).toContain('ADMIN_TOKEN');
  expect(await stopServer(server)).toBe(0);
  await database.drop();
}, 60_000);
