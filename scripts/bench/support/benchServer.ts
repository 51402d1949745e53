/**
 * Shared by the benchmarks in scripts/bench/ (this folder is not run as one): start the real
 * server in a child process on a fresh temporary DATA_DIR, wait until it listens, call it, and
 * stop it. `BENCH_RUNTIME` picks how the server runs: `tsx` (default: the TypeScript sources
 * through tsx's loader, as the tests run it) or `dist` (the compiled output of `npm run build`
 * with source maps, as `npm start` runs it). `BENCH_SERVICE_NODE_ARGS` adds Node.js arguments to the
 * server's (e.g. `--cpu-prof --cpu-prof-dir=/tmp/profiles` to profile it under a benchmark's load).
 *
 * @module scripts/bench/support/benchServer
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { stopChild } from '../../support/childProcess.ts';

const root = resolve(fileURLToPath(import.meta.url), '../../../..');

/** How a benchmark runs the server: its TypeScript sources through tsx, or the compiled `dist/`. */
export type BenchRuntime = 'tsx' | 'dist';

/**
 * The runtimes BENCH_RUNTIME names (comma-separated; `tsx` when unset).
 * @throws Error for an unknown name, or `dist` before `npm run build`.
 */
export function benchRuntimes(): BenchRuntime[] {
  const names = (process.env.BENCH_RUNTIME || 'tsx').split(',').map((name) => name.trim());
  for (const name of names) {
    if (name !== 'tsx' && name !== 'dist') throw new Error(`BENCH_RUNTIME: unknown runtime ${name} (tsx or dist)`);
    if (name === 'dist' && !existsSync(join(root, 'dist/src/server.js'))) throw new Error('BENCH_RUNTIME=dist: run npm run build first');
  }
  return names as BenchRuntime[];
}

/** The Node.js arguments that run the server with `runtime` (what `npm start` and the tests run). */
export function serverArguments(runtime: BenchRuntime): string[] {
  return runtime === 'dist' ? ['--enable-source-maps', join(root, 'dist/src/server.js')] : ['--import', 'tsx', join(root, 'src/server.ts')];
}

/** A server started for a benchmark. */
export interface BenchServer {
  /** Base URL, e.g. `http://127.0.0.1:41234`. */
  base: string;
  /** The administration token it runs with. */
  adminToken: string;
  /** The server's process id (with `WEB_CONCURRENCY=1` the one process that serves and works). */
  pid: number;
  /** Stops the server (SIGTERM, waiting for it to exit) and removes its DATA_DIR. */
  stop(): Promise<void>;
}

/**
 * Starts the server with `PORT=0`, an administration token, no rate limit and the embedded
 * database unless `env` says otherwise (e.g. `DATABASE_URL`, `SECRETS_KEY`).
 * @throws Error when the server exits before it logs `listening`.
 */
export async function startBenchServer(env: Record<string, string> = {}): Promise<BenchServer> {
  const dataDir = await mkdtemp(join(tmpdir(), 'wps-bench-'));
  const adminToken = `wpa_${randomBytes(24).toString('base64url')}`;
  const nodeArgs = (process.env.BENCH_SERVICE_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const server = spawn(process.execPath, [...nodeArgs, ...serverArguments(benchRuntimes()[0]!)], {
    cwd: root,
    env: { ...process.env, DATA_DIR: dataDir, PORT: '0', ADMIN_TOKEN: adminToken, DATABASE_URL: '', RATE_LIMIT_PER_SECOND: '0', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const stop = async () => {
    await stopChild(server);
    await rm(dataDir, { recursive: true, force: true });
  };
  try {
    const base = await new Promise<string>((resolveUrl, reject) => {
      server.once('exit', (code) => reject(new Error(`The server exited with code ${code} before listening.`)));
      createInterface({ input: server.stdout! }).on('line', (line) => {
        try {
          const entry = JSON.parse(line) as { msg?: string; url?: string };
          if (entry.msg === 'listening' && entry.url) resolveUrl(entry.url);
        } catch {
          // not a log line
        }
      });
    });
    return { base, adminToken, pid: server.pid!, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/**
 * Sends a JSON request with a bearer token and returns the parsed body.
 * @throws Error with the status and body when the answer is not 2xx.
 */
export async function benchRequest(url: string, init: { method?: string; token: string; body?: unknown }): Promise<Record<string, any>> {
  const res = await fetch(url, {
    method: init.method ?? 'GET',
    headers: { Authorization: `Bearer ${init.token}`, 'Content-Type': 'application/json' },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const body = (await res.json()) as Record<string, any>;
  if (!res.ok) throw new Error(`${init.method ?? 'GET'} ${url} answered ${res.status}: ${JSON.stringify(body)}`);
  return body;
}
