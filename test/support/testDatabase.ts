/**
 * Throw-away databases for tests: an in-memory PGlite (or, when it must survive a restart, one
 * in a temporary directory), or a fresh database created on the PostgreSQL server of
 * TEST_DATABASE_URL and dropped afterwards (no other database is touched).
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { openDatabase, pgliteDirOf, type Database } from '../../src/db/database.ts';

/** Which database this Jest project runs on. */
export function testDatabaseKind(): 'pglite' | 'postgresql' {
  return process.env.TEST_DB_KIND === 'postgresql' ? 'postgresql' : 'pglite';
}

/** A database made for one test file. */
export interface TestDatabase {
  db: Database;
  /** Connection string of the throw-away PostgreSQL database (undefined on PGlite). */
  url: string | undefined;
  /**
   * The data directory of a `persistent` PGlite database (which is `<dataDir>/pglite`, as
   * src/db/database.ts `pgliteDirOf` has it), for a process given it as `DATA_DIR`.
   */
  dataDir?: string;
  /**
   * Opens another, independent handle on the same database. PostgreSQL: any time. PGlite: only a
   * `persistent` one, after closing the previous handle (one process, one handle).
   */
  reopen(): Promise<Database>;
  /** Closes every handle and drops the database. */
  drop(): Promise<void>;
}

/**
 * Creates an empty database of the project's kind (migrations not applied).
 * @param options.persistent On PGlite, keep the database in a temporary directory (removed by
 *   `drop()`) so that it can be closed and reopened, as a restarted server would.
 */
export async function createTestDatabase(options: { persistent?: boolean } = {}): Promise<TestDatabase> {
  if (testDatabaseKind() === 'pglite') {
    if (!options.persistent) {
      const db = await openDatabase({ pgliteDir: null });
      return { db, url: undefined, reopen: () => Promise.reject(new Error('PGlite has one handle')), drop: () => db.close() };
    }
    const dataDir = await mkdtemp(join(tmpdir(), 'wps-test-pglite-'));
    const dir = pgliteDirOf(dataDir);
    const handles: Database[] = [];
    const open = async () => {
      const db = await openDatabase({ pgliteDir: dir });
      handles.push(db);
      return db;
    };
    return {
      db: await open(),
      url: undefined,
      dataDir,
      reopen: open,
      async drop() {
        for (const handle of handles) await handle.close();
        await rm(dataDir, { recursive: true, force: true });
      },
    };
  }
  const serverUrl = process.env.TEST_DATABASE_URL;
  if (!serverUrl) throw new Error('TEST_DATABASE_URL is not set');
  const name = `wps_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const handles: Database[] = [];
  const open = async () => {
    const db = await openDatabase({ databaseUrl: url.toString(), poolSize: 20 });
    handles.push(db);
    return db;
  };
  const db = await open();
  return {
    db,
    url: url.toString(),
    reopen: open,
    async drop() {
      await Promise.all(handles.map((h) => h.close()));
      const client = new pg.Client({ connectionString: serverUrl });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    },
  };
}
