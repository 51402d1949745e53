/**
 * The server process (`npm start`): start on the embedded default, bootstrap admin token file,
 * data kept across restarts, graceful shutdown on SIGTERM, configuration errors; one process per
 * embedded data directory (a second server and `npm run db:migrate` are refused naming the
 * holder, and a `kill -9` leaves no stale lock); a port in use stops the server before it opens
 * the database; PostgreSQL needs PUBLIC_BASE_URL; `WEB_CONCURRENCY` server processes on one
 * port (src/cluster.ts), replaced when one dies, all stopped by SIGTERM, `/metrics` answered on
 * the first scrape once `/readyz` says ready; a Ctrl-C to the process group under load drains and
 * completes every time.
 */
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, stat } from 'node:fs/promises';
import http from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { testDatabaseKind, createTestDatabase, migratedDataDir } from './support/testDatabase.ts';
import { failedStart, startServer, stopServer } from './support/serverProcess.ts';

it('starts on the embedded default, writes a private admin token file once, and keeps data', async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'wps-data-'));
  const first = await startServer({ DATA_DIR: dataDir });
  const tokenFile = join(dataDir, 'admin-token');
  const adminToken = (await readFile(tokenFile, 'utf8')).trim();
  expect((await stat(tokenFile)).mode & 0o777).toBe(0o600);
  expect(first.output()).toContain(tokenFile);
  expect(first.output()).not.toContain(adminToken);
  expect(first.output()).toMatch(/"refused":0,"ms":\d+,"msg":"request validators compiled"/);

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
}, 180_000);

it('finishes an in-flight request and closes idle keep-alive connections on SIGTERM', async () => {
  const dataDir = await migratedDataDir();
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
}, 180_000);

it('refuses to start with a bad setting, naming it', async () => {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], { env: { PATH: process.env.PATH, PORT: 'eighty' } });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const code = await new Promise((r) => child.once('exit', r));
  expect(code).toBe(2);
  expect(stderr).toContain('PORT must be an integer');
}, 180_000);

(testDatabaseKind() === 'postgresql' ? it : it.skip)(
  'on PostgreSQL without ADMIN_TOKEN, disables the administration API',
  async () => {
    const database = await createTestDatabase({ migrated: true });
    const server = await startServer({
      DATABASE_URL: database.url!,
      PUBLIC_BASE_URL: 'https://wallet.example.com',
      SECRETS_KEY: randomBytes(32).toString('base64'),
      DATA_DIR: await mkdtemp(join(tmpdir(), 'wps-data-')),
    });
    const res = await fetch(`${server.url}/admin/v1/accounts`, { headers: { Authorization: 'Bearer anything' } });
    expect(res.status).toBe(401);
    expect(((await res.json()) as { errors: { detail: string }[] }).errors[0]!.detail).toContain('ADMIN_TOKEN');
    expect(await stopServer(server)).toBe(0);
    await database.drop();
  },
  180_000,
);

const embeddedOnly = testDatabaseKind() === 'pglite' ? it : it.skip;

embeddedOnly(
  'refuses a second server and db:migrate on a data directory in use, naming the holder; a kill -9 leaves no stale lock',
  async () => {
    const dataDir = await migratedDataDir();
    const first = await startServer({ DATA_DIR: dataDir });
    const adminToken = (await readFile(join(dataDir, 'admin-token'), 'utf8')).trim();
    const created = await fetch(`${first.url}/admin/v1/accounts`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${adminToken}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ account: { name: 'Before the kill' } }),
    });
    expect(created.status).toBe(201);

    const second = await failedStart({ DATA_DIR: dataDir });
    expect(second.code).toBe(1);
    expect(second.output).toContain(`is in use by process ${first.child.pid}`);
    const migrate = spawnSync(process.execPath, ['--import', 'tsx', 'src/db/migrateCli.ts'], {
      env: { PATH: process.env.PATH, DATA_DIR: dataDir },
      encoding: 'utf8',
    });
    expect(migrate.status).toBe(1);
    expect(migrate.stderr).toContain(`is in use by process ${first.child.pid}`);
    // The first server is unharmed.
    expect((await fetch(`${first.url}/readyz`)).status).toBe(200);

    first.child.kill('SIGKILL');
    await first.exited;
    const restarted = await startServer({ DATA_DIR: dataDir });
    const accounts = await fetch(`${restarted.url}/admin/v1/accounts`, { headers: { Authorization: `Bearer ${adminToken}` } });
    const names = ((await accounts.json()) as { data: { attributes: { name: string } }[] }).data.map((a) => a.attributes.name);
    expect(names).toContain('Before the kill');
    expect(await stopServer(restarted)).toBe(0);
  },
  180_000,
);

it('stops with a clear message when the port is in use, before it opens the database', async () => {
  const blocker = createServer();
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
  const { port } = blocker.address() as AddressInfo;
  const dataDir = join(await mkdtemp(join(tmpdir(), 'wps-data-')), 'data');
  const database = testDatabaseKind() === 'postgresql' ? await createTestDatabase() : undefined;
  const env: Record<string, string> = database
    ? { DATABASE_URL: database.url!, PUBLIC_BASE_URL: 'https://wallet.example.com', SECRETS_KEY: randomBytes(32).toString('base64') }
    : {};
  const { code, output } = await failedStart({ ...env, DATA_DIR: dataDir, PORT: String(port) });
  blocker.close();
  expect(code).toBe(1);
  expect(output).toContain(`Port ${port} on 127.0.0.1 is already in use`);
  // Nothing was opened: no data directory, and on PostgreSQL no migration ran.
  expect(existsSync(dataDir)).toBe(false);
  if (database) {
    const [row] = await database.db.prisma.$queryRawUnsafe<{ exists: boolean }[]>("SELECT to_regclass('public._prisma_migrations') IS NOT NULL AS exists");
    expect(row!.exists).toBe(false);
    await database.drop();
  }
}, 180_000);

it('refuses PostgreSQL without PUBLIC_BASE_URL, so that no link is built from a Host header', async () => {
  const { code, output } = await failedStart({ DATABASE_URL: 'postgresql://127.0.0.1:1/never', SECRETS_KEY: randomBytes(32).toString('base64') });
  expect(code).toBe(2);
  expect(output).toContain('PUBLIC_BASE_URL is required with DATABASE_URL');
}, 180_000);

it('refuses WEB_CONCURRENCY above 1 on the embedded database, which one process owns', async () => {
  const { code, output } = await failedStart({ WEB_CONCURRENCY: '2', DATA_DIR: join(await mkdtemp(join(tmpdir(), 'wps-data-')), 'data') });
  expect(code).toBe(2);
  expect(output).toContain('WEB_CONCURRENCY=2 needs DATABASE_URL');
}, 180_000);

(testDatabaseKind() === 'postgresql' ? it : it.skip)(
  'runs WEB_CONCURRENCY server processes on one port, replaces one that dies, and stops them all on SIGTERM',
  async () => {
    const database = await createTestDatabase({ migrated: true });
    const server = await startServer({
      DATABASE_URL: database.url!,
      PUBLIC_BASE_URL: 'https://wallet.example.com',
      SECRETS_KEY: randomBytes(32).toString('base64'),
      ADMIN_TOKEN: 'wpa_cluster-test-token',
      WEB_CONCURRENCY: '2',
    });
    const pidsListening = () => [...server.output().matchAll(/"pid":(\d+),"msg":"process listening"/g)].map((m) => Number(m[1]));
    const untilOutput = async (pattern: RegExp) => {
      for (const started = Date.now(); !pattern.test(server.output()); ) {
        if (Date.now() - started > 30_000) throw new Error(`not in the output: ${pattern}\n${server.output()}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    };
    try {
      expect(server.output()).toMatch(/"processes":2,"msg":"listening"/);
      // Each process's own line may reach the pipe after the primary's.
      await untilOutput(/"msg":"process listening"[\s\S]*"msg":"process listening"/);
      const [first, second] = pidsListening();
      expect(new Set([first, second, server.child.pid]).size).toBe(3);
      const admin = { headers: { Authorization: 'Bearer wpa_cluster-test-token' } };
      for (let i = 0; i < 10; i++) expect((await fetch(`${server.url}/admin/v1/accounts`, admin)).status).toBe(200);
      // Whichever process answers, /metrics counts the requests of both (aggregated by the primary).
      for (let i = 0; i < 4; i++) {
        const metrics = await (await fetch(`${server.url}/metrics`, admin)).text();
        expect(metrics).toContain('http_request_duration_seconds_count{operation="listAccounts",status="200"} 10');
      }

      process.kill(first!, 'SIGKILL');
      await untilOutput(/"msg":"a server process died; starting another"/);
      await untilOutput(new RegExp(`"pid":(?!${first}|${second})\\d+,"msg":"process listening"`));
      expect((await fetch(`${server.url}/readyz`)).status).toBe(200);

      expect(await stopServer(server)).toBe(0);
      expect([...server.output().matchAll(/"code":0,"signal":null,"msg":"server process stopped"/g)]).toHaveLength(2);
    } finally {
      server.child.kill('SIGKILL');
      await database.drop();
    }
  },
  180_000,
);

(testDatabaseKind() === 'postgresql' ? it : it.skip)(
  'answers /metrics on the first scrape once /readyz says ready with WEB_CONCURRENCY=2',
  async () => {
    const database = await createTestDatabase({ migrated: true });
    const port = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port: free } = probe.address() as AddressInfo;
        probe.close(() => resolve(free));
      });
    });
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
      env: {
        PATH: process.env.PATH,
        PORT: String(port),
        LOG_LEVEL: 'info',
        DATABASE_URL: database.url!,
        PUBLIC_BASE_URL: 'https://wallet.example.com',
        SECRETS_KEY: randomBytes(32).toString('base64'),
        ADMIN_TOKEN: 'wpa_cluster-metrics-token',
        WEB_CONCURRENCY: '2',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true, // a process group of its own, stopped as a whole below
    });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    const base = `http://127.0.0.1:${port}`;
    try {
      // A prober's way: a new connection each time (the primary hands each to any process).
      const started = Date.now();
      for (;;) {
        const ready = await fetch(`${base}/readyz`, { headers: { Connection: 'close' } }).then(
          (res) => res.status,
          () => 0,
        );
        if (ready === 200) break;
        if (Date.now() - started > 120_000) throw new Error(`never ready:\n${output}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const scraped = Date.now();
      const metrics = await fetch(`${base}/metrics`, { headers: { Authorization: 'Bearer wpa_cluster-metrics-token', Connection: 'close' } });
      expect({ status: metrics.status, body: (await metrics.text()).slice(0, 300) }).toEqual({ status: 200, body: expect.stringContaining('# HELP') });
      expect(Date.now() - scraped).toBeLessThan(2000);
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    } finally {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // the group is gone already
      }
      await database.drop();
    }
  },
  180_000,
);

it('finishes every shutdown on a Ctrl-C to its process group under load, exits 0, and comes back to the same state', async () => {
  // A terminal's Ctrl-C sends SIGINT to the whole foreground process group, and `npm start`
  // forwards the SIGINT it got to its child once more: the server gets two. The server runs as
  // `npm start` runs it (its script, by a shell that execs it so that the exit code is the
  // script's, with node_modules/.bin on the PATH), in a process group of its own.
  const postgres = testDatabaseKind() === 'postgresql' ? await createTestDatabase({ migrated: true }) : undefined;
  const env: Record<string, string> = postgres
    ? { DATABASE_URL: postgres.url!, PUBLIC_BASE_URL: 'https://wallet.example.com', SECRETS_KEY: randomBytes(32).toString('base64') }
    : { DATA_DIR: await migratedDataDir() };
  const startScript = (JSON.parse(await readFile('package.json', 'utf8')) as { scripts: Record<string, string> }).scripts.start!;
  const adminToken = 'wpa_ctrl-c-test-token';
  const admin = { Authorization: `Bearer ${adminToken}`, 'Content-Type': 'application/json' };
  const created: string[] = [];
  try {
    for (let round = 1; round <= 3; round++) {
      const port = await new Promise<number>((resolve) => {
        const probe = createServer().listen(0, '127.0.0.1', () => {
          const { port: free } = probe.address() as AddressInfo;
          probe.close(() => resolve(free));
        });
      });
      const child = spawn('sh', ['-c', `exec ${startScript}`], {
        env: {
          PATH: `${join(process.cwd(), 'node_modules', '.bin')}:${process.env.PATH}`,
          PORT: String(port),
          LOG_LEVEL: 'info',
          ADMIN_TOKEN: adminToken,
          ...env,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
        detached: true, // its own process group, as a terminal's foreground job
      });
      let output = '';
      child.stdout.on('data', (d) => (output += d));
      child.stderr.on('data', (d) => (output += d));
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      const base = `http://127.0.0.1:${port}`;
      let loading = true;
      try {
        for (const started = Date.now(); !/"msg":"listening"/.test(output); ) {
          if (Date.now() - started > 60_000) throw new Error(`did not start:\n${output}`);
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        // The state the earlier rounds left: every account they created.
        const listed = (await (await fetch(`${base}/admin/v1/accounts?perPage=100`, { headers: admin })).json()) as {
          data: { attributes: { name: string } }[];
        };
        expect(listed.data.map((account) => account.attributes.name).sort()).toEqual([...created].sort());

        // Load: keep-alive clients reading and writing without pause.
        const statuses: number[] = [];
        const client = async (n: number) => {
          while (loading) {
            const res = await fetch(n % 2 ? `${base}/admin/v1/accounts` : `${base}/readyz`, { headers: admin }).catch(() => undefined);
            if (res) statuses.push(res.status);
            await res?.arrayBuffer();
          }
        };
        const clients = Array.from({ length: 8 }, (_, n) => client(n));
        await new Promise((resolve) => setTimeout(resolve, 500));
        // A write whose body is still arriving when the signals land must be answered in full.
        const name = `Round ${round}`;
        const body = JSON.stringify({ account: { name } });
        const request = http.request(`${base}/admin/v1/accounts`, { method: 'POST', headers: { ...admin, 'Content-Length': Buffer.byteLength(body) } });
        const answered = new Promise<number>((resolve, reject) => {
          request.on('response', (res) => res.resume().on('end', () => resolve(res.statusCode!)));
          request.on('error', reject);
        });
        request.write(body.slice(0, 10));
        await new Promise((resolve) => setTimeout(resolve, 200));
        process.kill(-child.pid!, 'SIGINT'); // the terminal, to the process group
        await new Promise((resolve) => setTimeout(resolve, 100));
        process.kill(child.pid!, 'SIGINT'); // npm, forwarding it to its child
        await new Promise((resolve) => setTimeout(resolve, 200));
        request.end(body.slice(10));
        expect(await answered).toBe(201);
        created.push(name);
        expect(await exited).toBe(0);
        loading = false;
        await Promise.all(clients);
        expect(output).toContain('"msg":"shutdown complete"');
        expect(statuses.filter((status) => status >= 500)).toEqual([]);
      } finally {
        loading = false;
        try {
          process.kill(-child.pid!, 'SIGKILL');
        } catch {
          // the group is gone already
        }
      }
    }
  } finally {
    await postgres?.drop();
  }
}, 240_000);
