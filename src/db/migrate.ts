/**
 * Applies the SQL migrations under `prisma/migrations` the way `prisma migrate deploy` does, so
 * that Prisma's own CLI, on a machine that has its schema engine, sees the same history.
 *
 * Bookkeeping follows Prisma's migration engine (sql-schema-connector, PostgreSQL flavour):
 * - table `_prisma_migrations` with Prisma's columns; `checksum` is the lowercase hex SHA-256 of
 *   the `migration.sql` bytes;
 * - a row is inserted when a migration starts and gets `finished_at` and
 *   `applied_steps_count = 1` when it succeeds; on failure `logs` holds the error and
 *   `finished_at` stays NULL — a *failed* migration, which blocks every later run until it is
 *   marked rolled back (`rolled_back_at`), as `prisma migrate resolve --rolled-back` does;
 * - the whole run holds the advisory lock 72707369 on one dedicated session, waiting at most
 *   10 s for it.
 * Unlike Prisma, each script runs inside a transaction, so a failing migration leaves no
 * half-applied schema behind.
 *
 * @module db/migrate
 */
import { createHash, randomUUID } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Database, SessionConnection } from './database.ts';
import { packageRoot } from '../packageRoot.ts';

/** Prisma's advisory lock key for migrations. */
export const PRISMA_MIGRATION_LOCK_KEY = 72707369;
/** How long to wait for another migrator, in ms (Prisma: 10 s). */
export const LOCK_TIMEOUT_MS = 10_000;
/** The migrations shipped with the service. */
export const DEFAULT_MIGRATIONS_DIR = resolve(packageRoot, 'prisma/migrations');

const CREATE_TABLE = `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
    "id"                    VARCHAR(36) PRIMARY KEY NOT NULL,
    "checksum"              VARCHAR(64) NOT NULL,
    "finished_at"           TIMESTAMPTZ,
    "migration_name"        VARCHAR(255) NOT NULL,
    "logs"                  TEXT,
    "rolled_back_at"        TIMESTAMPTZ,
    "started_at"            TIMESTAMPTZ NOT NULL DEFAULT now(),
    "applied_steps_count"   INTEGER NOT NULL DEFAULT 0
)`;

/** Thrown when migrations cannot be applied; the message says what to do. */
export class MigrationError extends Error {
  override name = 'MigrationError';
}

/** A migration found on disk. */
export interface MigrationFile {
  name: string;
  sql: string;
  checksum: string;
}

/** What a run did. */
export interface MigrationReport {
  /** Names applied by this run, in order. */
  applied: string[];
  /** Names already applied before. */
  alreadyApplied: string[];
  /** Warnings worth logging (edited or missing migrations). */
  warnings: string[];
}

interface MigrationRow {
  migration_name: string;
  checksum: string;
  finished_at: Date | null;
  rolled_back_at: Date | null;
  logs: string | null;
}

/** Lowercase hex SHA-256 of a migration script, as Prisma stores it. */
export function migrationChecksum(sql: string): string {
  return createHash('sha256').update(sql, 'utf8').digest('hex');
}

/** Reads `<dir>/<name>/migration.sql` for every migration folder, sorted by name. */
export async function readMigrations(dir: string): Promise<MigrationFile[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const names = entries
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
  return Promise.all(
    names.map(async (name) => {
      const sql = await readFile(join(dir, name, 'migration.sql'), 'utf8');
      return { name, sql, checksum: migrationChecksum(sql) };
    }),
  );
}

async function acquireLock(session: SessionConnection): Promise<void> {
  const deadline = Date.now() + LOCK_TIMEOUT_MS;
  for (;;) {
    const [row] = await session.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1) AS locked', [PRISMA_MIGRATION_LOCK_KEY]);
    if (row?.locked) return;
    if (Date.now() > deadline) {
      throw new MigrationError(
        `Timed out after ${LOCK_TIMEOUT_MS / 1000} s waiting for the migration lock ` +
          `(advisory lock ${PRISMA_MIGRATION_LOCK_KEY}); another process is migrating this database.`,
      );
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Applies every pending migration.
 * @param db The open database.
 * @param dir The migrations directory (default: the service's own).
 * @returns What was applied.
 * @throws MigrationError when a failed migration blocks the run, the lock is not obtained in
 *   10 s, or a migration fails (it is rolled back and recorded as failed).
 */
export async function applyMigrations(db: Database, dir = DEFAULT_MIGRATIONS_DIR): Promise<MigrationReport> {
  const files = await readMigrations(dir);
  const session = await db.openSession();
  const report: MigrationReport = { applied: [], alreadyApplied: [], warnings: [] };
  try {
    await acquireLock(session);
    await session.exec(CREATE_TABLE);
    const rows = await session.query<MigrationRow>(
      'SELECT migration_name, checksum, finished_at, rolled_back_at, logs FROM "_prisma_migrations" ORDER BY started_at',
    );
    const failed = rows.find((r) => r.finished_at === null && r.rolled_back_at === null);
    if (failed) {
      throw new MigrationError(
        `Migration ${failed.migration_name} failed earlier and blocks all later migrations.\n` +
          `Its error: ${failed.logs ?? '(none recorded)'}\n` +
          `Fix the cause, then mark it rolled back with ` +
          `\`npm run db:migrate -- --rolled-back ${failed.migration_name}\` ` +
          `(or \`prisma migrate resolve --rolled-back ${failed.migration_name}\`) and start again.`,
      );
    }
    const applied = new Map(rows.filter((r) => r.finished_at !== null && r.rolled_back_at === null).map((r) => [r.migration_name, r]));
    const onDisk = new Set(files.map((f) => f.name));
    for (const name of applied.keys()) {
      if (!onDisk.has(name)) report.warnings.push(`Migration ${name} is applied but missing from ${dir}.`);
    }
    for (const file of files) {
      const row = applied.get(file.name);
      if (row) {
        report.alreadyApplied.push(file.name);
        if (row.checksum !== file.checksum) {
          report.warnings.push(`Migration ${file.name} was edited after it was applied (checksum differs).`);
        }
        continue;
      }
      await applyOne(session, file);
      report.applied.push(file.name);
    }
    return report;
  } finally {
    await session.query('SELECT pg_advisory_unlock($1)', [PRISMA_MIGRATION_LOCK_KEY]).catch(() => {});
    await session.close();
  }
}

async function applyOne(session: SessionConnection, file: MigrationFile): Promise<void> {
  const id = randomUUID();
  await session.query('INSERT INTO "_prisma_migrations" (id, checksum, migration_name, started_at) VALUES ($1, $2, $3, now())', [id, file.checksum, file.name]);
  try {
    await session.exec('BEGIN');
    await session.exec(file.sql);
    await session.exec('COMMIT');
  } catch (error) {
    await session.exec('ROLLBACK').catch(() => {});
    const message = error instanceof Error ? error.message : String(error);
    const logs = `Migration ${file.name} failed and was rolled back: ${message}`;
    await session.query('UPDATE "_prisma_migrations" SET logs = $1 WHERE id = $2', [logs, id]);
    throw new MigrationError(`${logs}\nNothing of it was applied; later migrations are blocked until it is resolved.`);
  }
  await session.query('UPDATE "_prisma_migrations" SET finished_at = now(), applied_steps_count = applied_steps_count + 1 WHERE id = $1', [id]);
}

/**
 * Marks a failed migration as rolled back, like `prisma migrate resolve --rolled-back`.
 * @throws MigrationError when no failed migration of that name exists.
 */
export async function markRolledBack(db: Database, name: string): Promise<void> {
  const session = await db.openSession();
  try {
    await acquireLock(session);
    await session.exec(CREATE_TABLE);
    const rows = await session.query(
      `UPDATE "_prisma_migrations" SET rolled_back_at = now()
        WHERE migration_name = $1 AND finished_at IS NULL AND rolled_back_at IS NULL RETURNING id`,
      [name],
    );
    if (rows.length === 0) throw new MigrationError(`No failed migration named ${name}.`);
  } finally {
    await session.query('SELECT pg_advisory_unlock($1)', [PRISMA_MIGRATION_LOCK_KEY]).catch(() => {});
    await session.close();
  }
}
