/**
 * Throw-away databases for tests: an in-memory PGlite (or, when it must survive a restart, one
 * in a temporary directory), or a fresh database created on the PostgreSQL server of
 * TEST_DATABASE_URL and dropped afterwards (no other database is touched but the migrated
 * template below).
 *
 * A database that is to be migrated anyway is copied from a migrated one instead. On PostgreSQL
 * from a template database (`CREATE DATABASE … TEMPLATE`,
 * https://www.postgresql.org/docs/current/manage-ag-templatedbs.html): ≈ 0.3 s instead of
 * ≈ 3 s of migrations for each of the suite's ≈ 70 test databases (measured on the loaded
 * two-core machine). The template is named by a hash of the migration files, made once by
 * whichever worker needs it first (under an advisory lock) and kept on the server for later runs;
 * a changed migration makes a new one. On PGlite (in memory) from a dump of a migrated database
 * (`dumpDataDir`, loaded with `loadDataDir`: ≈ 3 s instead of ≈ 5 s of migrations, same machine),
 * kept in the system's temporary directory under the same hash.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { openDatabase, pgliteDirOf, type Database } from '../../src/db/database.ts';
import { applyMigrations, DEFAULT_MIGRATIONS_DIR } from '../../src/db/migrate.ts';

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

/** Advisory lock key serialising the making of the template (any number unlikely to clash). */
const TEMPLATE_LOCK_KEY = 7_270_731;
/** What the template's comment says once every migration is applied (a half-made one lacks it). */
const TEMPLATE_DONE = 'wallet-pass-service test template: migrated';
let template: Promise<string> | undefined;
let pgliteDump: Promise<Blob> | undefined;

/** The first 16 hex digits of a SHA-256 of the migrations (names and SQL): names the migrated copies. */
async function migrationsHash(): Promise<string> {
  const hash = createHash('sha256');
  const migrations = (await readdir(DEFAULT_MIGRATIONS_DIR, { withFileTypes: true })).filter((entry) => entry.isDirectory()).map((entry) => entry.name);
  for (const name of migrations.sort()) hash.update(name).update(await readFile(join(DEFAULT_MIGRATIONS_DIR, name, 'migration.sql')));
  return hash.digest('hex').slice(0, 16);
}

/** A dump of a migrated in-memory PGlite database, read from the temporary directory or made (and written there) if missing. */
function migratedPgliteDump(): Promise<Blob> {
  pgliteDump ??= (async () => {
    const file = join(tmpdir(), `wps-test-pglite-migrated-${await migrationsHash()}.tar`);
    const saved = await readFile(file).catch(() => undefined);
    if (saved) return new Blob([saved]);
    const db = await openDatabase({ pgliteDir: null });
    try {
      await applyMigrations(db);
      const dump = await (db.driver as { pglite: { dumpDataDir(compression: 'none'): Promise<Blob> } }).pglite.dumpDataDir('none');
      // Written whole under another name first: a reader never sees half a file.
      const partial = `${file}.${randomBytes(4).toString('hex')}`;
      await writeFile(partial, Buffer.from(await dump.arrayBuffer()));
      await rename(partial, file);
      return dump;
    } finally {
      await db.close();
    }
  })();
  return pgliteDump;
}

/** The name of the migrated template database of these migrations on `serverUrl`, made if missing. */
function migratedTemplate(serverUrl: string): Promise<string> {
  template ??= (async () => {
    const name = `wps_template_${await migrationsHash()}`;
    const admin = new pg.Client({ connectionString: serverUrl });
    await admin.connect();
    try {
      await admin.query('SELECT pg_advisory_lock($1)', [TEMPLATE_LOCK_KEY]);
      const { rows } = await admin.query<{ done: string | null }>("SELECT shobj_description(oid, 'pg_database') AS done FROM pg_database WHERE datname = $1", [
        name,
      ]);
      if (rows[0]?.done !== TEMPLATE_DONE) {
        if (rows.length) await admin.query(`DROP DATABASE ${name} WITH (FORCE)`);
        await admin.query(`CREATE DATABASE ${name}`);
        const url = new URL(serverUrl);
        url.pathname = `/${name}`;
        const db = await openDatabase({ databaseUrl: url.toString(), poolSize: 1 });
        try {
          await applyMigrations(db);
        } finally {
          await db.close();
        }
        await admin.query(`COMMENT ON DATABASE ${name} IS '${TEMPLATE_DONE}'`);
      }
    } finally {
      await admin.end();
    }
    return name;
  })();
  return template;
}

/**
 * Creates a database of the project's kind, empty (migrations not applied) unless `migrated`.
 * @param options.persistent On PGlite, keep the database in a temporary directory (removed by
 *   `drop()`) so that it can be closed and reopened, as a restarted server would.
 * @param options.migrated Start from a migrated copy (see the module): on PostgreSQL from the
 *   template database, on PGlite (in memory or `persistent`) from the dump, which a persistent
 *   database writes into its directory (≈ 1 s instead of ≈ 3 s of initdb and ≈ 2–5 s of
 *   migrations). Either way the caller applies the migrations (none are pending on a copy).
 */
export async function createTestDatabase(options: { persistent?: boolean; migrated?: boolean } = {}): Promise<TestDatabase> {
  if (testDatabaseKind() === 'pglite') {
    if (!options.persistent) {
      const db = await openDatabase({ pgliteDir: null, ...(options.migrated ? { pgliteLoadDataDir: await migratedPgliteDump() } : {}) });
      return { db, url: undefined, reopen: () => Promise.reject(new Error('PGlite has one handle')), drop: () => db.close() };
    }
    const dataDir = await mkdtemp(join(tmpdir(), 'wps-test-pglite-'));
    const dir = pgliteDirOf(dataDir);
    const handles: Database[] = [];
    // The first handle writes the migrated copy into the directory; later ones open what is there.
    let load = options.migrated ? await migratedPgliteDump() : undefined;
    const open = async () => {
      const db = await openDatabase({ pgliteDir: dir, ...(load ? { pgliteLoadDataDir: load } : {}) });
      load = undefined;
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
  const from = options.migrated ? ` TEMPLATE ${await migratedTemplate(serverUrl)}` : '';
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}${from}`);
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

/**
 * A new server data directory (`DATA_DIR`) whose embedded database is a migrated copy (see the
 * module), for tests of the server process that are not about its first start: the process opens
 * it at once instead of running initdb and every migration (≈ 5–15 s on a busy two-core machine).
 * The secrets key and the administration token are not there: the server makes them as on any
 * first start. The caller removes the directory (or leaves it to the system's temporary folder).
 * @returns The directory's absolute path.
 */
export async function migratedDataDir(): Promise<string> {
  const dataDir = await mkdtemp(join(tmpdir(), 'wps-data-'));
  const db = await openDatabase({ pgliteDir: pgliteDirOf(dataDir), pgliteLoadDataDir: await migratedPgliteDump() });
  await db.close();
  return dataDir;
}
