/**
 * nginx in front of the service, configured with what README.md's "Deploying" section prints:
 * its ```nginx block is read from the README, not copied here, so a change to the README is what
 * the field suite runs. Only what a deployer fills in is replaced — the server name and the
 * certificate paths (`/etc/letsencrypt/live/wallet.example.com/{fullchain,privkey}.pem`, here
 * the test CA's certificate for the service's name) — and the block is placed in `http { }`
 * with the paths of a throw-away prefix, as Debian's `/etc/nginx/sites-enabled/` file would be.
 *
 * @module test/field/reverseProxy
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The nginx server blocks README.md's "Deploying" section prints. */
export function readmeNginxBlock(readme: string): string {
  const deploying = readme.slice(readme.indexOf('\n## Deploying'), readme.indexOf('\n## ', readme.indexOf('\n## Deploying') + 1));
  const match = /```nginx\n([\s\S]*?)```/.exec(deploying);
  if (!match) throw new Error('README.md\'s "Deploying" section has no ```nginx block.');
  return match[1]!;
}

/** A running nginx. */
export interface ReverseProxy {
  /** The configuration nginx runs with. */
  config: string;
  /** What nginx wrote to its error log. */
  errorLog(): string;
  stop(): Promise<void>;
}

/**
 * Writes the configuration, checks it (`nginx -t`) and starts nginx in the namespace.
 * @param options.serverName The name the README's `wallet.example.com` becomes.
 * @throws Error with nginx's own message when the configuration is refused or nginx exits.
 */
export async function startReverseProxy(options: {
  namespace: string;
  readmePath: string;
  serverName: string;
  certFile: string;
  keyFile: string;
  dir: string;
}): Promise<ReverseProxy> {
  const prefix = join(options.dir, 'nginx');
  mkdirSync(prefix, { recursive: true });
  const block = readmeNginxBlock(readFileSync(options.readmePath, 'utf8'))
    .replaceAll('/etc/letsencrypt/live/wallet.example.com/fullchain.pem', options.certFile)
    .replaceAll('/etc/letsencrypt/live/wallet.example.com/privkey.pem', options.keyFile)
    .replaceAll('wallet.example.com', options.serverName);
  const config = [
    'user root;',
    'worker_processes 1;',
    `pid ${prefix}/nginx.pid;`,
    `error_log ${prefix}/error.log warn;`,
    'events { worker_connections 512; }',
    'http {',
    ...['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((kind) => `  ${kind}_temp_path ${prefix}/${kind};`),
    block,
    '}',
    '',
  ].join('\n');
  const configFile = join(prefix, 'nginx.conf');
  writeFileSync(configFile, config);
  const args = ['netns', 'exec', options.namespace, 'nginx', '-e', `${prefix}/error.log`, '-p', prefix, '-c', configFile];
  const check = spawnSync('ip', [...args, '-t'], { encoding: 'utf8' });
  if (check.status !== 0) throw new Error(`nginx refuses the README's configuration:\n${check.stderr}\n--- configuration ---\n${config}`);
  const child: ChildProcess = spawn('ip', [...args, '-g', 'daemon off;'], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const errorLog = () => {
    try {
      return `${stderr}${readFileSync(`${prefix}/error.log`, 'utf8')}`;
    } catch {
      return stderr;
    }
  };
  return {
    config,
    errorLog,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGQUIT');
      await exited;
    },
  };
}
