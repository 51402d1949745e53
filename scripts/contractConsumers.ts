/**
 * `npm run contract:consumers`: the contract as an integrator meets it. Generates TypeScript clients
 * from the bundled contract (`generated/openapi.json`) with the two most used generators, checks
 * that each compiles under `tsc --strict`, and runs a short flow with one of them against a fresh
 * server.
 *
 *   npm run contract:consumers [-- --keep]
 *
 * 1. Generates into a scratch directory under the system's temporary directory (removed at the
 *    end; `--keep` leaves it and prints its path):
 *    - `hey-api/`: @hey-api/openapi-ts, its default plugins (types, SDK, fetch client);
 *    - `orval/`: orval with its `fetch` client, one file.
 *    The generators are exact dev dependencies (package.json), so a new release cannot change
 *    the result unnoticed.
 * 2. Compiles each directory on its own with `tsc` and `strict: true`, without `skipLibCheck`
 *    (the generated files are the program, not libraries). The flow (step 4) is compiled with the
 *    hey-api client, so it also checks that the generated types are usable as written.
 * 3. Starts the server (`src/server.ts`) on a free loopback port with an empty `DATA_DIR` (the
 *    embedded database; no `DATABASE_URL`), waits for `/readyz`, and creates an account with an
 *    entity through the admin CLI (`src/admin/cli.ts`, as scripts/exampleAgainstFreshServer.sh does).
 * 4. Runs the flow with the hey-api SDK: create a loyalty template → wait until it is processed →
 *    issue a pass with field values and the reserved `nfc` and `barcode` members → add points →
 *    read the pass and the balance back, and check the values.
 *
 * Exit status: 0 when every client compiles and the flow passes; 1 when a generator fails, a
 * client does not compile (tsc's errors are printed), the server does not start or the flow
 * fails (the server's last log lines are printed); 2 on a usage error. The server is stopped and
 * the scratch directory removed in every case.
 *
 * @module scripts/contractConsumers
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs, promisify } from 'node:util';
import { createClient as heyApi } from '@hey-api/openapi-ts';
import { generate as orval } from 'orval';
import { freePort, stopChild } from './support/childProcess.ts';

const run = promisify(execFile);
const root = resolve(import.meta.dirname, '..');
const bundle = join(root, 'generated/openapi.json');
const tsc = join(root, 'node_modules/typescript/bin/tsc');
/** tsx's ESM loader, by absolute URL: the scratch directory has no node_modules to resolve `tsx` from. */
const tsxLoader = import.meta.resolve('tsx');
const READY_TIMEOUT_MS = 60_000;

/**
 * The compiler options a strict consumer would use: `strict`, no `skipLibCheck`, a bundler's
 * module resolution (the generators write `./x.js` and `./x` imports), the DOM's fetch types.
 */
const consumerTsconfig = {
  compilerOptions: {
    strict: true,
    skipLibCheck: false,
    noEmit: true,
    target: 'ES2022',
    module: 'ESNext',
    moduleResolution: 'Bundler',
    lib: ['ES2022', 'DOM', 'DOM.Iterable'],
    types: [],
  },
  include: ['**/*.ts'],
};

/** A step failed; `detail` is what to print (compiler errors, the server log). */
class CheckFailed extends Error {
  constructor(
    message: string,
    readonly detail = '',
  ) {
    super(message);
  }
}

/** Runs `fn`, printing the step's name and how long it took. */
async function step<T>(name: string, fn: () => Promise<T>): Promise<T> {
  const started = Date.now();
  const result = await fn();
  console.log(`✔ ${name} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
  return result;
}

/** Generates the hey-api client (types, SDK, fetch client) into `dir`. */
async function generateHeyApi(dir: string): Promise<void> {
  await heyApi({ input: bundle, output: dir, logs: { level: 'warn', file: false } });
}

/** Generates orval's fetch client (one file, `api.ts`) into `dir`. */
async function generateOrval(dir: string): Promise<void> {
  await orval({ input: { target: bundle }, output: { target: join(dir, 'api.ts'), client: 'fetch', mode: 'single' } });
}

/**
 * Compiles the TypeScript files in `dir` with the consumer's options.
 * @throws CheckFailed with tsc's diagnostics when it reports any.
 */
async function compile(name: string, dir: string): Promise<void> {
  await writeFile(join(dir, 'tsconfig.json'), JSON.stringify(consumerTsconfig, null, 2));
  try {
    await run(process.execPath, [tsc, '-p', join(dir, 'tsconfig.json'), '--pretty', 'false'], { cwd: dir, maxBuffer: 64 * 1024 * 1024 });
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string; message: string };
    const output = `${failed.stdout ?? ''}${failed.stderr ?? ''}`.trim() || failed.message;
    throw new CheckFailed(`the ${name} client does not compile under tsc --strict`, output.split(`${dir}/`).join(''));
  }
}

/** The server under test and where its log goes. */
interface Server {
  baseUrl: string;
  child: ChildProcess;
  logPath: string;
}

/** Starts the server on a free port with the embedded database in `dataDir`, its output in `logPath`. */
async function launchServer(dataDir: string, logPath: string): Promise<Server> {
  const port = await freePort();
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1' };
  // Hermetic: the embedded database, its generated admin token, links built from the request.
  for (const name of ['DATABASE_URL', 'ADMIN_TOKEN', 'PUBLIC_BASE_URL', 'ENTITY_ID']) delete env[name];
  const log = createWriteStream(logPath);
  const child = spawn(process.execPath, ['--import', tsxLoader, 'src/server.ts'], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout?.pipe(log);
  child.stderr?.pipe(log);
  return { baseUrl: `http://127.0.0.1:${port}`, child, logPath };
}

/**
 * Waits until the server answers `/readyz` with 200.
 * @throws CheckFailed when it exits first or is not ready within {@link READY_TIMEOUT_MS}.
 */
async function waitReady(server: Server): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (server.child.exitCode !== null) throw new CheckFailed(`the server exited during start-up (exit ${server.child.exitCode})`);
    if (
      await fetch(`${server.baseUrl}/readyz`).then(
        (res) => res.ok,
        () => false,
      )
    )
      return;
    await new Promise((done) => setTimeout(done, 250));
  }
  throw new CheckFailed(`the server was not ready (/readyz) within ${READY_TIMEOUT_MS / 1000} s`);
}

/** Runs the admin CLI against the server; returns its `--json` output, parsed. */
async function admin(server: Server, dataDir: string, args: string[]): Promise<Record<string, unknown>> {
  const env: NodeJS.ProcessEnv = { ...process.env, ADMIN_URL: server.baseUrl, DATA_DIR: dataDir };
  delete env.ADMIN_TOKEN;
  const { stdout } = await run(process.execPath, ['--import', tsxLoader, 'src/admin/cli.ts', ...args, '--json'], { cwd: root, env });
  return JSON.parse(stdout) as Record<string, unknown>;
}

/**
 * The flow, written as an integrator would write it against the hey-api SDK (compiled with it in
 * step 2, run with tsx in step 4). Reads `BASE_URL` and `API_TOKEN`; prints one line per step and
 * exits 1 on an unexpected answer or value.
 */
const flowSource = `
import { client } from './client.gen';
import { createPass, createPassTemplate, getLoyalty, getPass, getPassTemplate, updateLoyalty } from './sdk.gen';
import type { PassCreateRequest, PassTemplateCreate } from './types.gen';

// The consumer's program has no Node types (tsconfig types: []); it needs only this of them.
declare const process: { env: Record<string, string | undefined> };

function check(condition: boolean, what: string, actual: unknown): void {
  if (!condition) throw new Error(\`\${what}: got \${JSON.stringify(actual)}\`);
}

client.setConfig({ baseUrl: process.env.BASE_URL, auth: process.env.API_TOKEN });

const template: PassTemplateCreate = {
  name: 'Consumer check card',
  centralTitle: 'Consumer check',
  templateType: 'loyalty',
  // Solid-colour PNGs (120 × 120 and 320 × 100), as data: URLs: Apple passes need an icon.
  images: {
    icon: 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAHgAAAB4CAMAAAAOusbgAAAAA1BMVEUaKzzv1JqSAAAACXBIWXMAAAPoAAAD6AG1e1JrAAAAJUlEQVRo3u3BMQEAAADCoPVPbQlPoAAAAAAAAAAAAAAAAAAAPgY4uAABqfMnWwAAAABJRU5ErkJggg==',
    logo: 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAUAAAABkCAMAAADABBkMAAAAA1BMVEX1125wBpNmAAAACXBIWXMAAAPoAAAD6AG1e1JrAAAANklEQVR42u3BMQEAAADCoPVPbQsvoAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAB+Bn1kAAHqOJiNAAAAAElFTkSuQmCC',
  },
  fields: {
    header: { one: { id: 'points', label: 'Points', defaultValue: '0' } },
    central: { one: { id: 'member', label: 'Member', defaultValue: 'Guest' } },
  },
};
const created = await createPassTemplate({ throwOnError: true, body: { passTemplate: template } });
const templateId = created.data.id;
console.log(\`  template \${templateId}: \${created.data.attributes.processingStatus}\`);

const deadline = Date.now() + 30_000;
for (;;) {
  const { data } = await getPassTemplate({ throwOnError: true, path: { id: templateId } });
  const attributes = data.data.attributes;
  const status = 'processingStatus' in attributes ? attributes.processingStatus : 'processed';
  if (status === 'processed') break;
  check(status === 'processing' && Date.now() < deadline, 'template processing status', attributes);
  await new Promise((done) => setTimeout(done, 200));
}
console.log('  template processed');

// Field values next to the reserved members in one map: what the typed PassInput must allow.
const body: PassCreateRequest = {
  pass: { member: 'Ada', points: { value: '120' }, nfc: true, barcode: { enabled: true, type: 'qr', source: 'uuid' } },
};
const issued = await createPass({ throwOnError: true, query: { passTemplate: templateId, extId: 'consumer-check-1' }, body });
const passId = issued.data.data.id;
console.log(\`  pass \${passId} issued\`);

const changed = await updateLoyalty({ throwOnError: true, path: { id: passId }, body: { balance: 25, message: 'Thanks for your visit' } });
check(changed.data.meta.loyalty.balance === 145, 'balance after adding 25 to 120', changed.data.meta.loyalty.balance);

const pass = await getPass({ throwOnError: true, path: { id: passId } });
const content = pass.data.data.attributes.passContent;
check(content.member === 'Ada' && content.points === '145', 'passContent read back', content);
check(pass.data.data.attributes.extId === 'consumer-check-1', 'extId read back', pass.data.data.attributes.extId);
const loyalty = await getLoyalty({ throwOnError: true, path: { id: passId } });
check(loyalty.data.meta.loyalty.balance === 145, 'balance read back', loyalty.data.meta.loyalty.balance);
console.log('  loyalty +25 → 145, read back from the pass and the balance');
`;

/**
 * Runs the flow (compiled in `dir` with the hey-api client) against the server.
 * @throws CheckFailed with its output when it exits non-zero.
 */
async function runFlow(dir: string, server: Server, token: string): Promise<void> {
  const env = { ...process.env, BASE_URL: server.baseUrl, API_TOKEN: token };
  try {
    const { stdout } = await run(process.execPath, ['--import', tsxLoader, join(dir, 'flow.ts')], { cwd: dir, env, timeout: 120_000 });
    process.stdout.write(stdout);
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string; message: string };
    throw new CheckFailed('the flow with the hey-api client failed', `${failed.stdout ?? ''}${failed.stderr ?? ''}`.trim() || failed.message);
  }
}

/** The last `lines` lines of a file, or '' when it cannot be read. */
async function tail(path: string, lines = 40): Promise<string> {
  const text = await readFile(path, 'utf8').catch(() => '');
  return text.trimEnd().split('\n').slice(-lines).join('\n');
}

async function main(argv: string[]): Promise<number> {
  let keep: boolean;
  try {
    keep = Boolean(parseArgs({ args: argv, options: { keep: { type: 'boolean' } } }).values.keep);
  } catch (error) {
    console.error(`${(error as Error).message}\nusage: npm run contract:consumers [-- --keep]`);
    return 2;
  }
  const started = Date.now();
  const scratch = await mkdtemp(join(tmpdir(), 'wps-contract-consumers-'));
  const heyDir = join(scratch, 'hey-api');
  const orvalDir = join(scratch, 'orval');
  const dataDir = join(scratch, 'data');
  await Promise.all([mkdir(heyDir), mkdir(orvalDir), mkdir(dataDir)]);
  // An ES module project, as the consumer's would be (the flow awaits at top level).
  await writeFile(join(scratch, 'package.json'), JSON.stringify({ private: true, type: 'module' }));
  let server: Server | undefined;
  try {
    console.log(`contract:consumers: clients of generated/openapi.json in ${scratch}`);
    await step('@hey-api/openapi-ts generated the SDK', () => generateHeyApi(heyDir));
    await step('orval generated the fetch client', () => generateOrval(orvalDir));
    await writeFile(join(heyDir, 'flow.ts'), flowSource);
    // One after the other: the machine running CI may have few cores.
    await step('the hey-api client and the flow compile under tsc --strict', () => compile('hey-api', heyDir));
    await step('the orval client compiles under tsc --strict', () => compile('orval', orvalDir));

    const running = await launchServer(dataDir, join(scratch, 'server.log'));
    server = running;
    await step(`server ready on ${running.baseUrl} with an empty data directory`, () => waitReady(running));
    const created = await step('account and entity created with the admin CLI', async () => {
      const account = await admin(running, dataDir, ['account', 'create', '--name', 'Consumer check']);
      const accountId = (account.account as { id: string }).id;
      await admin(running, dataDir, ['entity', 'create', '--account', accountId, '--name', 'Consumer check shop']);
      return account;
    });
    await step('flow with the hey-api SDK: template → pass → loyalty change → read back', () => runFlow(heyDir, running, String(created.token)));
    console.log(`contract:consumers: passed (${((Date.now() - started) / 1000).toFixed(1)} s)`);
    return 0;
  } catch (error) {
    const detail = error instanceof CheckFailed ? error.detail : ((error as Error).stack ?? String(error));
    if (detail) console.error(detail);
    if (server) console.error(`--- last lines of the server log ---\n${await tail(server.logPath)}`);
    console.error(`contract:consumers: FAILED: ${(error as Error).message}`);
    return 1;
  } finally {
    if (server) await stopChild(server.child);
    if (keep) console.log(`contract:consumers: kept ${scratch}`);
    else await rm(scratch, { recursive: true, force: true });
  }
}

process.exitCode = await main(process.argv.slice(2));
