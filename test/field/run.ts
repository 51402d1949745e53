/**
 * `npm run test:field`: the field suite (test/field/*.test.ts) on a simulated internet.
 *
 * 1. Builds `dist/` when it is missing or older than a source (the suite runs the compiled
 *    server, as `npm start` and the README's systemd unit do).
 * 2. Makes a test CA and a TLS certificate for every host of the simulated internet
 *    (test/field/testCa.ts), in a fresh run directory.
 * 3. Creates the simulated internet (test/field/simulatedInternet.ts), namespaces named after
 *    this process's id.
 * 4. Runs Jest (test/field/jest.config.js) inside the internet's namespace — the merchant's
 *    backend, the holder's phone, Apple's and Google's servers all live there — trusting the test
 *    CA (`NODE_EXTRA_CA_CERTS`). The suite starts the service and nginx in the service's
 *    namespace itself and stops them.
 * 5. Always: stops whatever still runs in the namespaces, deletes them and the run directory
 *    (also on SIGINT/SIGTERM), prints how long it took, and exits with Jest's status.
 *
 * Arguments are passed to Jest. Needs root, iproute2 and nginx (`.ci/run` installs nginx);
 * PostgreSQL on its Unix socket (`FIELD_PG_SOCKET_DIR`, default /var/run/postgresql).
 *
 * @module test/field/run
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { CERTIFICATE_NAMES, createSimulatedInternet, removeSimulatedInternet, type SimulatedInternet } from './simulatedInternet.ts';
import { createTestCa } from './testCa.ts';

/** What the suite reads from `FIELD_PLAN`. */
export interface FieldPlan {
  internet: SimulatedInternet;
  /** The run directory (certificates, nginx's files, the service's DATA_DIR). */
  dir: string;
  /** The test CA's certificate (PEM file). */
  caFile: string;
  /** Key and certificate files per host name. */
  credentials: Record<string, { keyFile: string; certFile: string }>;
}

const root = resolve(import.meta.dirname, '../..');
const started = Date.now();

function fail(message: string): never {
  console.error(`test:field: ${message}`);
  process.exit(1);
}

if (process.getuid?.() !== 0) fail('the simulated internet needs root (ip netns); CI and the development machines run as root.');
for (const tool of ['ip', 'nginx']) {
  try {
    execFileSync('sh', ['-c', `command -v ${tool}`], { stdio: 'ignore' });
  } catch {
    fail(`${tool} is not installed (apt-get install ${tool === 'ip' ? 'iproute2' : 'nginx'}).`);
  }
}

const buildInfo = join(root, 'dist/.tsbuildinfo');
const stale = () => execFileSync('find', ['src', 'generated', '-newer', buildInfo, '-print', '-quit'], { cwd: root, encoding: 'utf8' }).trim() !== '';
if (!existsSync(buildInfo) || stale()) {
  console.log('test:field: building dist/ (npm run build)');
  execFileSync('npm', ['run', '-s', 'build'], { cwd: root, stdio: 'inherit' });
}

const runId = `wpsf${process.pid}`.slice(0, 9);
const dir = mkdtempSync(join(tmpdir(), 'wps-field-'));
let internet: SimulatedInternet | undefined;
let cleaned = false;

function cleanUp(): void {
  if (cleaned) return;
  cleaned = true;
  if (internet) {
    const stopped = removeSimulatedInternet(internet);
    if (stopped.length) console.error(`test:field: stopped ${stopped.length} process(es) left in the namespaces: ${stopped.join(', ')}`);
  }
  rmSync(dir, { recursive: true, force: true });
}
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    cleanUp();
    process.exit(130);
  });
}

let status = 1;
try {
  const ca = createTestCa();
  const caFile = join(dir, 'ca.pem');
  writeFileSync(caFile, ca.certificatePem);
  const credentials: FieldPlan['credentials'] = {};
  for (const names of CERTIFICATE_NAMES) {
    const { key, cert } = ca.serverCredentials(...names);
    const keyFile = join(dir, `${names[0]}.key.pem`);
    const certFile = join(dir, `${names[0]}.cert.pem`);
    writeFileSync(keyFile, key, { mode: 0o600 });
    writeFileSync(certFile, cert);
    for (const name of names) credentials[name] = { keyFile, certFile };
  }
  internet = createSimulatedInternet(runId);
  const plan: FieldPlan = { internet, dir, caFile, credentials };
  const planFile = join(dir, 'plan.json');
  writeFileSync(planFile, JSON.stringify(plan, null, 2));
  console.log(`test:field: simulated internet ${internet.svc} ↔ ${internet.net}, run directory ${dir}`);
  const jest = spawn(
    'ip',
    [
      'netns',
      'exec',
      internet.net,
      process.execPath,
      join(root, 'node_modules/jest/bin/jest.js'),
      '--config',
      'test/field/jest.config.js',
      ...process.argv.slice(2),
    ],
    {
      cwd: root,
      stdio: 'inherit',
      env: { ...process.env, NODE_OPTIONS: '--experimental-vm-modules', NODE_EXTRA_CA_CERTS: caFile, FIELD_PLAN: planFile },
    },
  );
  status = await new Promise<number>((resolveExit) => jest.once('exit', (code, signal) => resolveExit(code ?? (signal ? 1 : 0))));
} catch (error) {
  console.error(`test:field: ${(error as Error).stack ?? error}`);
  status = 1;
} finally {
  cleanUp();
  console.log(`test:field: ${status === 0 ? 'passed' : 'failed'} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}
process.exit(status);
