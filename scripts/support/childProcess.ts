/**
 * Helpers for the development scripts that run servers as child processes (benchmarks, the Prism
 * contract check): a free loopback port, and stopping a child for certain.
 *
 * @module scripts/support/childProcess
 */
import type { ChildProcess } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';

/** A port on 127.0.0.1 that was free a moment ago (another process may take it first). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done, fail) => server.once('error', fail).listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  await new Promise((done) => server.close(done));
  return port;
}

/**
 * Stops a child process: SIGTERM (so a server shuts down gracefully), then SIGKILL when it has
 * not exited after `killAfterMs` (default 5,000 ms). Resolves once it has exited; at once when
 * it already had.
 */
export async function stopChild(child: ChildProcess, killAfterMs = 5000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((done) => child.once('exit', done));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), killAfterMs);
  await exited;
  clearTimeout(timer);
}
