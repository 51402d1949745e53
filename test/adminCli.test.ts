/**
 * The admin CLI (`npm run -s admin -- …`, installed: `wallet-pass-admin …`), run as a real
 * process against the app listening on a port.
 */
import { execFile, spawn } from 'node:child_process';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import { mkdtemp, readFile, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestService, type TestService } from './support/testService.ts';

let service: TestService;
let server: Server;
let baseUrl: string;

beforeAll(async () => {
  service = await startTestService();
  server = service.app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((r) => server.close(r));
  await service.close();
});

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function admin(args: string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', 'src/admin/cli.ts', ...args],
      { env: { PATH: process.env.PATH, ADMIN_URL: baseUrl, ADMIN_TOKEN: service.adminToken, ...env } },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code) : 0, stdout, stderr }),
    );
  });
}

it('runs the whole operator flow with --json', async () => {
  const account = await admin(['account', 'create', '--name', 'CLI Coffee', '--json']);
  expect(account.code).toBe(0);
  const created = JSON.parse(account.stdout);
  expect(created).toEqual({ account: { id: expect.any(String), name: 'CLI Coffee' }, token: expect.stringMatching(/^wps_/) });

  const entity = JSON.parse((await admin(['entity', 'create', '--account', created.account.id, '--name', 'Soho', '--json'])).stdout);
  expect(entity).toEqual({ entity: { id: expect.any(String), name: 'Soho' } });

  // The key printed by the CLI reads the entity through the public API.
  const res = await service.api.get('/api/v1/entities').set(service.auth(created.token)).expect(200);
  expect(res.body.data.map((e: { id: string }) => e.id)).toEqual([entity.entity.id]);

  const list = JSON.parse((await admin(['entity', 'list', '--account', created.account.id, '--json'])).stdout);
  expect(list).toEqual({ entities: [{ id: entity.entity.id, name: 'Soho' }] });
  const accounts = JSON.parse((await admin(['account', 'list', '--json'])).stdout);
  expect(accounts.accounts.map((a: { id: string }) => a.id)).toContain(created.account.id);

  const token = JSON.parse((await admin(['token', 'create', '--account', created.account.id, '--json'])).stdout);
  expect(token).toEqual({ token: expect.stringMatching(/^wps_/), id: expect.any(String) });
  const revoked = await admin(['token', 'revoke', token.id, '--json']);
  expect(revoked.code).toBe(0);
  await service.api.get('/api/v1/entities').set(service.auth(token.token)).expect(401);
}, 60_000);

it('prints human-readable output without --json', async () => {
  const run = await admin(['account', 'create', '--name', 'Plain']);
  expect(run.code).toBe(0);
  expect(run.stdout).toMatch(/^Created account Plain \(.+\)\.\nAPI key \(shown once, store it now\): wps_/);
});

it('reads the token from DATA_DIR/admin-token when ADMIN_TOKEN is unset', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'wps-cli-'));
  await writeFile(join(dir, 'admin-token'), `${service.adminToken}\n`);
  const run = await admin(['account', 'list', '--json'], { ADMIN_TOKEN: '', DATA_DIR: dir });
  expect(run.code).toBe(0);
});

it.each([
  [[]],
  [['account']],
  [['account', 'create']],
  [['account', 'delete']],
  [['entity', 'create', '--account', 'x']],
  [['token', 'revoke']],
  [['account', 'list', '--colour', 'red']],
])('exits 2 with usage for %j', async (args) => {
  const run = await admin(args, { ADMIN_TOKEN: '' });
  expect(run.code).toBe(2);
  expect(run.stderr).toContain('Usage: npm run -s admin');
});

it('exits 1 with the API error detail', async () => {
  const run = await admin(['entity', 'create', '--account', '0194f3a2-7c1e-7a51-9d7e-0b6a2f1c9e10', '--name', 'X']);
  expect(run.code).toBe(1);
  expect(run.stderr).toContain('No account with id 0194f3a2-7c1e-7a51-9d7e-0b6a2f1c9e10 exists.');
  const bad = await admin(['account', 'list'], { ADMIN_TOKEN: 'wpa_wrong' });
  expect(bad.code).toBe(1);
  expect(bad.stderr).toContain('The administration token is wrong.');
});

describe('where it finds the server', () => {
  const port = () => new URL(baseUrl).port;

  it('follows the PORT and HOST the server reads when ADMIN_URL is unset (a wildcard HOST at loopback)', async () => {
    for (const HOST of ['', '127.0.0.1', '0.0.0.0']) {
      const run = await admin(['account', 'list', '--json'], { ADMIN_URL: '', PORT: port(), HOST });
      expect({ HOST, code: run.code, stderr: run.stderr }).toEqual({ HOST, code: 0, stderr: '' });
    }
  });

  it('names the URL it tried, and why, in one line when nothing answers there', async () => {
    const probe = createServer().listen(0, '127.0.0.1');
    await new Promise((r) => probe.once('listening', r));
    const closed = (probe.address() as AddressInfo).port;
    await new Promise((r) => probe.close(r));
    const run = await admin(['account', 'list'], { ADMIN_URL: '', PORT: String(closed) });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      `Error: Could not reach the administration API at http://127.0.0.1:${closed}/admin/v1/accounts?page=1&perPage=100 ` +
        `(connect ECONNREFUSED 127.0.0.1:${closed}). Is the server running? The CLI uses ADMIN_URL, else the HOST and PORT the server reads.\n`,
    );
  });

  it('says so in one line when what answers is not the service (no JSON.parse stack trace)', async () => {
    const other = createHttpServer((_req, res) => res.writeHead(200, { 'Content-Type': 'text/html' }).end('<!doctype html><p>Another app</p>'));
    await new Promise<void>((r) => other.listen(0, '127.0.0.1', () => r()));
    try {
      const url = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
      const run = await admin(['account', 'list'], { ADMIN_URL: url });
      expect(run.code).toBe(1);
      expect(run.stderr).toBe(
        `Error: The server at ${url} answered something that is not JSON: is that the Wallet Pass Service (ADMIN_URL, or HOST and PORT)?\n`,
      );
    } finally {
      await new Promise((r) => other.close(r));
    }
  });

  it.each([
    [{ ADMIN_URL: '', PORT: '0' }, 'PORT=0 lets the server pick a port; set ADMIN_URL to the URL the server logged.'],
    [{ ADMIN_URL: '', PORT: 'eighty' }, 'PORT must be an integer from 0 to 65535, got "eighty".'],
    [{ ADMIN_URL: 'ftp://example.com' }, 'ADMIN_URL must use http: or https:.'],
  ])('exits 2 naming the variable for %j', async (env, message) => {
    const run = await admin(['account', 'list'], env);
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 2, stderr: `Error: ${message}\n` });
  });
});

it('makes development Apple credentials, sets them, and shows, lists, replaces and deletes them', async () => {
  const { accountId } = await service.createAccount('CLI Apple');
  const dir = await mkdtemp(join(tmpdir(), 'wps-cli-apple-'));
  const made = await admin([
    'apple',
    'dev-certificate',
    '--account',
    accountId,
    '--pass-type-id',
    'pass.dev.cli',
    '--team-id',
    'CLITEAM123',
    '--out',
    dir,
    '--json',
  ]);
  expect(made.code).toBe(0);
  const output = JSON.parse(made.stdout);
  // The passes' organizationName (pass.json, shown on the lock screen) is the account's name.
  expect(output.appleConfiguration).toMatchObject({
    passTypeIdentifier: 'pass.dev.cli',
    teamIdentifier: 'CLITEAM123',
    organizationName: 'CLI Apple',
    isDefault: true,
    wwdrCertificate: { isAppleWwdrG4: false },
  });
  expect(output.files.rootCertificate).toBe(join(dir, 'root.pem'));
  expect((await stat(join(dir, 'private-key.pem'))).mode & 0o777).toBe(0o600);

  // The files it wrote are what `apple set` takes: replacing the configuration with them answers 200.
  const set = await admin([
    'apple',
    'set',
    '--account',
    accountId,
    '--pass-type-id',
    'pass.dev.cli',
    '--team-id',
    'CLITEAM123',
    '--organization',
    'Renamed',
    '--certificate',
    join(dir, 'certificate.pem'),
    '--key',
    join(dir, 'private-key.pem'),
    '--wwdr',
    join(dir, 'wwdr.pem'),
  ]);
  expect(set.code).toBe(0);
  expect(set.stdout).toMatch(
    /^Set pass\.dev\.cli \(team CLITEAM123\), certificate valid until .+ — the default of the account; development certificate: passes open in tooling only\.\n$/,
  );

  const shown = JSON.parse((await admin(['apple', 'show', '--account', accountId, '--pass-type-id', 'pass.dev.cli', '--json'])).stdout);
  expect(shown.appleConfiguration.organizationName).toBe('Renamed');
  const listed = JSON.parse((await admin(['apple', 'list', '--account', accountId, '--json'])).stdout);
  expect(listed.appleConfigurations.map((c: { passTypeIdentifier: string }) => c.passTypeIdentifier)).toEqual(['pass.dev.cli']);
  expect(JSON.stringify(listed)).not.toContain('PRIVATE KEY');

  const wrongTeam = await admin([
    'apple',
    'set',
    '--account',
    accountId,
    '--pass-type-id',
    'pass.dev.cli',
    '--team-id',
    'OTHER12345',
    '--organization',
    'x',
    '--certificate',
    join(dir, 'certificate.pem'),
    '--key',
    join(dir, 'private-key.pem'),
    '--wwdr',
    join(dir, 'wwdr.pem'),
  ]);
  expect(wrongTeam.code).toBe(1);
  expect(wrongTeam.stderr).toContain('not OTHER12345');

  expect((await admin(['apple', 'delete', '--account', accountId, '--pass-type-id', 'pass.dev.cli'])).code).toBe(0);
  expect((await admin(['apple', 'list', '--account', accountId])).stdout).toBe('No Apple configurations.\n');
}, 60_000);

it("names the development passes' organisation as --organization says, and refuses an unknown account", async () => {
  const { accountId } = await service.createAccount('CLI Named');
  const dir = await mkdtemp(join(tmpdir(), 'wps-cli-apple-'));
  const made = await admin(['apple', 'dev-certificate', '--account', accountId, '--organization', 'Operator Chosen Ltd', '--out', dir, '--json']);
  expect(made.code).toBe(0);
  expect(JSON.parse(made.stdout).appleConfiguration.organizationName).toBe('Operator Chosen Ltd');

  const unknown = await admin(['apple', 'dev-certificate', '--account', '0194f3a2-7c1e-7a51-9d7e-0b6a2f1c9e10', '--out', dir]);
  expect(unknown.code).toBe(1);
  expect(unknown.stderr).toContain('No account with id 0194f3a2-7c1e-7a51-9d7e-0b6a2f1c9e10 exists.');
}, 60_000);

describe('output read through a pipe', () => {
  const env = () => ({ PATH: process.env.PATH!, ADMIN_URL: baseUrl, ADMIN_TOKEN: service.adminToken });

  it('prints one JSON document with --json, through the package bin and through npm run -s as the README says', async () => {
    const bin = JSON.parse(await readFile('package.json', 'utf8')).bin['wallet-pass-admin'];
    expect(bin).toBeDefined();
    const viaBin = await new Promise<Run>((resolve) =>
      execFile(process.execPath, [bin, 'account', 'list', '--json'], { env: env() }, (error, stdout, stderr) =>
        resolve({ code: error ? Number(error.code) : 0, stdout, stderr }),
      ),
    );
    expect(viaBin).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(viaBin.stdout).accounts).toEqual(expect.any(Array));
    const viaNpm = await new Promise<Run>((resolve) =>
      execFile('npm', ['run', '-s', 'admin', '--', 'account', 'list', '--json'], { env: env() }, (error, stdout, stderr) =>
        resolve({ code: error ? Number(error.code) : 0, stdout, stderr }),
      ),
    );
    expect(viaNpm.code).toBe(0);
    expect(JSON.parse(viaNpm.stdout)).toEqual(JSON.parse(viaBin.stdout));
    // Every admin command the README shows is one whose output pipes (npm prints no header with -s).
    const readme = await readFile('README.md', 'utf8');
    expect(readme.match(/npm run admin\b/g) ?? []).toEqual([]);
  }, 60_000);

  it('exits 0 without a stack trace when the reader has gone before the output is written', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/admin/cli.ts', 'account', 'list', '--json'], {
      env: env(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const code = await new Promise((resolve) => child.on('close', resolve));
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
  }, 30_000);

  it('exits 0 without a stack trace when the reader closes after the first byte (`| head -c1`)', async () => {
    // More output than a pipe holds (64 KiB on Linux): the CLI is still writing when head exits.
    const names = Array.from({ length: 400 }, (_, i) => `Pipe ${i} ${'x'.repeat(180)}`);
    for (let i = 0; i < names.length; i += 20) {
      await Promise.all(
        names.slice(i, i + 20).map((name) => service.api.post('/admin/v1/accounts').set(service.adminAuth()).send({ account: { name } }).expect(201)),
      );
    }
    const run = await new Promise<Run>((resolve) =>
      execFile(
        'bash',
        ['--norc', '-o', 'pipefail', '-c', '"$0" --import tsx src/admin/cli.ts account list --json | head -c1', process.execPath],
        { env: env(), maxBuffer: 1 << 20 },
        (error, stdout, stderr) => resolve({ code: error ? Number(error.code) : 0, stdout, stderr }),
      ),
    );
    expect(run).toEqual({ code: 0, stdout: '{', stderr: '' });
  }, 120_000);
});
