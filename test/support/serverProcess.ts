/**
 * The server as a child process (`src/server.ts` through tsx), for tests of the process itself:
 * start and wait until it listens, stop with SIGTERM, or run a start that must fail.
 */
import { spawn, type ChildProcess } from 'node:child_process';

/** A server process that logged `listening`. */
export interface Started {
  child: ChildProcess;
  url: string;
  output: () => string;
  exited: Promise<number | null>;
}

/** Runs the server until it exits (for starts that must fail); returns its exit code and output. */
export async function failedStart(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], { env: { PATH: process.env.PATH, PORT: '0', ...env } });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  return { code, output };
}

/**
 * Starts `src/server.ts` with `PORT=0` (unless `env` sets it) and the given environment; resolves
 * once it logs its URL.
 * @param options.timeoutMs How long to wait for it (default 120 s: a start on a fresh embedded database, on a two-core machine running two test files and their servers, took over 60 s).
 * @throws Error with its output when it exits first or does not start in time (a loaded machine
 *   takes a while to migrate PGlite and compile the validators); the process is killed then.
 */
export function startServer(env: Record<string, string>, options: { timeoutMs?: number } = {}): Promise<Started> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
    env: { PATH: process.env.PATH, PORT: '0', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`server did not start:\n${output}`));
    }, options.timeoutMs ?? 120_000);
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

/** SIGTERM; resolves with the exit code. */
export async function stopServer(server: Started): Promise<number | null> {
  server.child.kill('SIGTERM');
  return server.exited;
}

/** A JSON request to a started server with a bearer token; returns status and parsed body. */
export async function call(server: Started, token: string, method: string, path: string, body?: unknown) {
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}
