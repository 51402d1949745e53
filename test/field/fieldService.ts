/**
 * The service as a deployment runs it, in the service's namespace of the simulated internet: the
 * compiled server (`node --enable-source-maps dist/src/server.js`, the README's systemd
 * `ExecStart` and `npm start`), on PostgreSQL, with the environment the README's "Environment
 * checklist" asks for and nothing else — no `*_ALLOW_PRIVATE`, no `APNS_URL` or `GOOGLE_*_URL`
 * pointing at a stand-in, no development certificates, no response validation. Apple, Google,
 * the CDN and the webhook receiver are reached at their real names; the only test-specific
 * setting is `NODE_EXTRA_CA_CERTS`, the test CA, a standard Node.js setting production may use
 * too. The operator's commands run there as well, through the admin CLI on loopback.
 *
 * @module test/field/fieldService
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** Variables that turn the service into a lab: none may be in a field deployment's environment. */
export const LAB_SWITCHES = /^(?:\w+_ALLOW_PRIVATE|APNS_URL|GOOGLE_\w*_URL|APPLE_ALLOW_DEVELOPMENT_CERTIFICATES|VALIDATE_RESPONSES)$/;

export const repositoryRoot = resolve(import.meta.dirname, '../..');

/** The running service. */
export interface FieldService {
  /** The environment it was started with. */
  env: Record<string, string>;
  adminToken: string;
  secretsKey: Buffer;
  /** The server's process id (the cluster's primary). */
  pid: number;
  /** Everything it logged (JSON lines). */
  output(): string;
  /** Runs `npm run -s admin -- <args> --json` as the operator does on the host; resolves with its exit code and output. */
  admin(...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }>;
  stop(): Promise<number | null>;
}

/**
 * Starts the server in `namespace`. It is ready once `/readyz` answers 200 (the caller polls
 * through the proxy).
 */
export function startFieldService(options: { namespace: string; databaseUrl: string; publicBaseUrl: string; caFile: string; dataDir: string }): FieldService {
  const adminToken = `wpa_${randomBytes(24).toString('base64url')}`;
  const secretsKey = randomBytes(32);
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    NODE_ENV: 'production',
    DATA_DIR: options.dataDir,
    DATABASE_URL: options.databaseUrl,
    PUBLIC_BASE_URL: options.publicBaseUrl,
    SECRETS_KEY: secretsKey.toString('base64'),
    ADMIN_TOKEN: adminToken,
    TRUST_PROXY: 'loopback',
    GOOGLE_WALLET_CALLBACKS: 'true',
    APPLE_PASS_TYPE_ID: 'pass.jp.hoshi-coffee.members',
    NODE_EXTRA_CA_CERTS: options.caFile,
    LOG_LEVEL: 'info',
  };
  const child: ChildProcess = spawn('ip', ['netns', 'exec', options.namespace, process.execPath, '--enable-source-maps', 'dist/src/server.js'], {
    cwd: repositoryRoot,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  return {
    env,
    adminToken,
    secretsKey,
    pid: child.pid!,
    output: () => output,
    admin: (...args) =>
      new Promise((resolveRun) => {
        const cli = spawn('ip', ['netns', 'exec', options.namespace, process.execPath, 'bin/wallet-pass-admin.js', ...args, '--json'], {
          cwd: repositoryRoot,
          env: { PATH: env.PATH!, ADMIN_TOKEN: adminToken, DATA_DIR: options.dataDir },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let stdout = '';
        let stderr = '';
        cli.stdout.on('data', (d) => (stdout += d));
        cli.stderr.on('data', (d) => (stderr += d));
        cli.once('exit', (code) => resolveRun({ code, stdout, stderr }));
      }),
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}

/** The environment of a running process and of its children (the cluster's server processes), from /proc. */
export function environmentsOf(pid: number): Record<string, string>[] {
  const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').split(/\s+/).filter(Boolean).map(Number);
  return [pid, ...children].map((id) =>
    Object.fromEntries(
      readFileSync(join('/proc', String(id), 'environ'), 'utf8')
        .split('\0')
        .filter(Boolean)
        .map((entry) => [entry.slice(0, entry.indexOf('=')), entry.slice(entry.indexOf('=') + 1)]),
    ),
  );
}
