/**
 * One process per embedded data directory. PGlite does not lock its directory, and two
 * processes on one directory each believe they own the database: acknowledged writes are lost
 * and indexes corrupted. So the server, `npm run db:migrate` and anything else that opens the
 * embedded database take an exclusive lock on `DATA_DIR` first (src/runtime.ts, src/db/migrateCli.ts).
 *
 * The lock is an operating-system lock on the file `<DATA_DIR>/lock`, taken with
 * `fs-native-extensions` (open file description locks on Linux, `flock(2)` on macOS,
 * `LockFileEx` on Windows). The kernel releases it when the process ends in any way, a
 * `kill -9` included, so no stale lock can block a restart — unlike lock files or directories
 * whose staleness is guessed from their age (proper-lockfile) or from a PID that may have been
 * reused. The holder writes its PID, start time and command into the file, so that a refused
 * process can name it. The file is never deleted: locks belong to the file, and deleting it
 * would let a second process lock a new file of the same name.
 *
 * @module db/dataDirLock
 */
import { closeSync, ftruncateSync, mkdirSync, openSync, readFileSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { tryLock } from 'fs-native-extensions';

/** The name of the lock file inside the data directory. */
export const LOCK_FILE = 'lock';

/** What the holder of a data directory writes into its lock file (JSON). */
export interface LockHolder {
  pid: number;
  /** When the holder took the lock, ISO 8601. */
  since: string;
  hostname: string;
  /** The holder's command line, for the operator. */
  command: string;
}

/** Thrown when another process holds the data directory; the message names it. */
export class DataDirLockedError extends Error {
  override name = 'DataDirLockedError';
  constructor(
    readonly dataDir: string,
    readonly holder: LockHolder | undefined,
  ) {
    super(
      `The data directory ${dataDir} is in use by ${
        holder ? `process ${holder.pid} (${holder.command}, on ${holder.hostname} since ${holder.since})` : 'another process'
      }. Only one process may open an embedded database: stop that process first, or give this one another DATA_DIR.`,
    );
  }
}

/** A held lock. */
export interface DataDirLock {
  readonly dataDir: string;
  /** Releases the lock (closes the file). Idempotent. */
  release(): void;
}

function readHolder(path: string): LockHolder | undefined {
  try {
    const holder = JSON.parse(readFileSync(path, 'utf8')) as LockHolder;
    return typeof holder.pid === 'number' ? holder : undefined;
  } catch {
    return undefined; // not written yet (the holder is between locking and writing), or unreadable
  }
}

/**
 * Takes the exclusive lock of `dataDir` (created if missing) without waiting.
 * @throws DataDirLockedError naming the holder when another process (or another open in this
 *   process) holds it; the file system's error when the directory cannot be created or the file
 *   opened.
 */
export function lockDataDir(dataDir: string): DataDirLock {
  mkdirSync(dataDir, { recursive: true });
  const path = join(dataDir, LOCK_FILE);
  const fd = openSync(path, 'a+', 0o600);
  let locked = false;
  try {
    locked = tryLock(fd);
  } finally {
    if (!locked) closeSync(fd);
  }
  if (!locked) throw new DataDirLockedError(dataDir, readHolder(path));
  const holder: LockHolder = {
    pid: process.pid,
    since: new Date().toISOString(),
    hostname: hostname(),
    command: process.argv.slice(1).join(' ').slice(0, 200),
  };
  ftruncateSync(fd, 0);
  writeSync(fd, `${JSON.stringify(holder)}\n`, 0);
  let released = false;
  return {
    dataDir,
    release() {
      if (released) return;
      released = true;
      closeSync(fd);
    },
  };
}
