/**
 * The README's Quickstart works as written, on a port that is not the default: its shell blocks
 * (steps 1 to 4) are read out of README.md and run by bash as a newcomer pastes them — the admin
 * CLI through `npm run -s admin`, curl, the `json` helper, the wait loop — with only `PORT` set
 * in the terminal, against the service listening on that port. The CLI must find the server by
 * `PORT` (no `ADMIN_URL`), `BASE` must follow it, and the pass file must download. Without a
 * server, step 1 must say in one line which URL it tried, and no step may print a stack trace.
 *
 * `npm run -s admin` runs the compiled CLI when dist/ is built (`npm install` builds it; after
 * changing src/, `npm run build`).
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { createHttpServer, listen, serveApp } from '../src/http/listener.ts';
import { startTestService, testConfig, type TestService } from './support/testService.ts';

const readme = readFileSync('README.md', 'utf8');
const quickstart = readme.slice(readme.indexOf('## Quickstart\n'), readme.indexOf('\n## ', readme.indexOf('## Quickstart\n') + 1));

/** The `sh` blocks of the Quickstart's steps 1 to 4 (step 5 is a phone). */
function shellSteps(): string[] {
  const steps = quickstart.slice(quickstart.indexOf('**1.'), quickstart.indexOf('**5.'));
  const blocks = [...steps.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1]!);
  if (blocks.length < 4) throw new Error(`The README Quickstart's steps 1 to 4 should have four sh blocks, found ${blocks.length}`);
  return blocks;
}

/** A port nothing listens on (taken from the system, then released). */
async function closedPort(): Promise<number> {
  const probe = createServer().listen(0, '127.0.0.1');
  await new Promise((resolve) => probe.once('listening', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** Runs `script` with bash in `cwd`, with `env` on top of PATH and HOME only. */
function bash(script: string, cwd: string, env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      'bash',
      ['-c', script],
      { cwd, env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env }, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code) : 0, stdout, stderr }),
    );
  });
}

/** No stack trace line (`    at JSON.parse (<anonymous>)`, `at file:///…:1:2`) and no SyntaxError. */
const STACK_TRACE = /^\s+at .+|SyntaxError/m;

let service: TestService;
let server: ReturnType<typeof createHttpServer>;
let port: number;
/** A directory inside the repository (npm finds package.json above it), out of git. */
let terminal: string;

beforeAll(async () => {
  // As `npm start` runs on the embedded database: links from the request's host, no PUBLIC_BASE_URL.
  service = await startTestService({ jobs: 'work', config: { publicBaseUrl: undefined } });
  server = createHttpServer(testConfig());
  serveApp(server, service.app);
  await listen(server, 0, '127.0.0.1');
  port = (server.address() as AddressInfo).port;
  await mkdir('test/artifacts', { recursive: true });
  terminal = await mkdtemp(join('test/artifacts', 'quickstart-'));
});
afterAll(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  await service?.close();
});

it('runs steps 1 to 4 as written with PORT set to a port that is not 3000', async () => {
  expect(port).not.toBe(3000);
  const script = `set -e -o pipefail\n${shellSteps().join('\n')}\nprintf 'RESULT %s %s %s %s\\n' "$BASE" "$API_KEY" "$status" "$DOWNLOAD_URL"\n`;
  const run = await bash(script, terminal, { PORT: String(port), ADMIN_TOKEN: service.adminToken, DATA_DIR: join(terminal, 'data') });
  expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
  const [, base, apiKey, status, downloadUrl] = /^RESULT (\S+) (\S+) (\S+) (\S+)$/m.exec(run.stdout) ?? [];
  expect({ base, status }).toEqual({ base: `http://127.0.0.1:${port}`, status: 'processed' });
  expect(downloadUrl).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${port}/passes/[0-9a-f-]{36}$`));
  expect(run.stdout).toContain('200 application/vnd.apple.pkpass');

  // The pass the README's body made: the member's barcode from its extId, shown as text.
  const passId = downloadUrl!.split('/').pop();
  const pass = await service.api.get(`/api/v1/passes/${passId}`).set(service.auth(apiKey!)).expect(200);
  expect(pass.body.data.attributes).toMatchObject({
    extId: 'member-1042',
    barcode: { type: 'qr', source: 'extId', value: 'member-1042', displayText: 'member-1042' },
  });
  expect(run.stdout).not.toMatch(STACK_TRACE);
}, 180_000);

it('says in one line which URL it tried when no server listens there, and prints no stack trace', async () => {
  const closed = await closedPort();
  // Pasted without `set -e`, as a newcomer does: every line of step 1 runs.
  const run = await bash(shellSteps()[0]!, terminal, { PORT: String(closed), ADMIN_TOKEN: service.adminToken });
  expect(run.stderr).toContain(
    `Could not reach the administration API at http://127.0.0.1:${closed}/admin/v1/accounts (connect ECONNREFUSED 127.0.0.1:${closed})`,
  );
  expect(run.stderr).toContain('Expected JSON with account.id, got: nothing');
  expect(`${run.stdout}\n${run.stderr}`).not.toMatch(STACK_TRACE);
}, 60_000);
