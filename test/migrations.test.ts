/**
 * Migrations: applied like `prisma migrate deploy` (bookkeeping in `_prisma_migrations`), safe
 * to run twice or concurrently, atomic on failure, and exactly the schema Prisma derives from
 * prisma/schema.prisma.
 */
import { cp, mkdtemp, readFile, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Database } from '../src/db/database.ts';
import { applyMigrations, DEFAULT_MIGRATIONS_DIR, markRolledBack, migrationChecksum, readMigrations } from '../src/db/migrate.ts';
import { migrationSql } from '../scripts/migrationSql.ts';
import { createTestDatabase, testDatabaseKind, type TestDatabase } from './support/testDatabase.ts';

const databases: TestDatabase[] = [];
/**
 * A database for one test: empty, or (`migrated`) a copy of one the suite's own `applyMigrations`
 * migrated (test/support/testDatabase.ts), for tests about what comes after today's migrations.
 */
async function freshDatabase(options: { migrated?: boolean } = {}): Promise<TestDatabase> {
  const database = await createTestDatabase(options);
  databases.push(database);
  return database;
}
afterAll(() => Promise.all(databases.map((d) => d.drop())));

interface Row {
  migration_name: string;
  checksum: string;
  finished_at: Date | null;
  rolled_back_at: Date | null;
  applied_steps_count: number;
  logs: string | null;
}
async function history(db: Database): Promise<Row[]> {
  const session = await db.openSession();
  try {
    return await session.query<Row>('SELECT * FROM "_prisma_migrations" ORDER BY started_at, migration_name');
  } finally {
    await session.close();
  }
}

it('applies every migration once and records it as Prisma does', async () => {
  const { db } = await freshDatabase();
  const files = await readMigrations(DEFAULT_MIGRATIONS_DIR);
  const report = await applyMigrations(db);
  expect(report.applied).toEqual(files.map((f) => f.name));
  const rows = await history(db);
  expect(rows.map((r) => r.migration_name)).toEqual(files.map((f) => f.name));
  for (const [i, row] of rows.entries()) {
    const sql = await readFile(join(DEFAULT_MIGRATIONS_DIR, row.migration_name, 'migration.sql'), 'utf8');
    expect(row.checksum).toBe(migrationChecksum(sql));
    expect(row.checksum).toMatch(/^[0-9a-f]{64}$/);
    expect(row.checksum).toBe(files[i]!.checksum);
    expect(row.finished_at).not.toBeNull();
    expect(row.rolled_back_at).toBeNull();
    expect(row.applied_steps_count).toBe(1);
  }
  // A second run is a no-op.
  const again = await applyMigrations(db);
  expect(again.applied).toEqual([]);
  expect(again.alreadyApplied).toEqual(files.map((f) => f.name));
  expect(await history(db)).toHaveLength(files.length);
});

it('applies each migration once when two processes migrate at the same time', async () => {
  const database = await freshDatabase();
  const second = testDatabaseKind() === 'postgresql' ? await database.reopen() : database.db;
  const [a, b] = await Promise.all([applyMigrations(database.db), applyMigrations(second)]);
  const files = await readMigrations(DEFAULT_MIGRATIONS_DIR);
  expect([...a.applied, ...b.applied].sort()).toEqual(files.map((f) => f.name).sort());
  expect(await history(database.db)).toHaveLength(files.length);
});

it('rolls a failing migration back, records it, blocks later runs until resolved', async () => {
  // Today's migrations are applied already (the first test applies them to an empty database).
  const { db } = await freshDatabase({ migrated: true });
  const dir = await mkdtemp(join(tmpdir(), 'wps-migrations-'));
  await cp(DEFAULT_MIGRATIONS_DIR, dir, { recursive: true });
  const broken = join(dir, '29990101000000_broken');
  await mkdir(broken);
  await writeFile(join(broken, 'migration.sql'), 'CREATE TABLE "half_done" ("id" INTEGER);\nSELECT 1 / 0;\n');

  await expect(applyMigrations(db, dir)).rejects.toThrow(/29990101000000_broken failed and was rolled back: division by zero/);
  const session = await db.openSession();
  const tables = await session.query("SELECT 1 FROM information_schema.tables WHERE table_name = 'half_done'");
  await session.close();
  expect(tables).toEqual([]);
  const failed = (await history(db)).find((r) => r.migration_name === '29990101000000_broken')!;
  expect(failed).toMatchObject({ finished_at: null, rolled_back_at: null, applied_steps_count: 0 });
  expect(failed.logs).toContain('division by zero');

  await expect(applyMigrations(db, dir)).rejects.toThrow(
    /29990101000000_broken failed earlier and blocks all later migrations[\s\S]*--rolled-back 29990101000000_broken/,
  );

  await writeFile(join(broken, 'migration.sql'), 'CREATE TABLE "half_done" ("id" INTEGER);\n');
  await markRolledBack(db, '29990101000000_broken');
  const report = await applyMigrations(db, dir);
  expect(report.applied).toEqual(['29990101000000_broken']);
  const rows = (await history(db)).filter((r) => r.migration_name === '29990101000000_broken');
  expect(rows.map((r) => [r.rolled_back_at !== null, r.finished_at !== null])).toEqual([
    [true, false],
    [false, true],
  ]);
  await expect(markRolledBack(db, 'nope')).rejects.toThrow('No failed migration named nope.');
});

/** Everything about the public schema that Prisma's DDL decides, in a comparable form. */
async function catalog(db: Database): Promise<unknown> {
  const session = await db.openSession();
  try {
    const q = (sql: string) => session.query(sql);
    return {
      columns: await q(`SELECT table_name, column_name, ordinal_position, data_type, udt_name, character_maximum_length,
                               numeric_precision, numeric_scale, datetime_precision, is_nullable, column_default
                          FROM information_schema.columns
                         WHERE table_schema = 'public' AND table_name <> '_prisma_migrations'
                         ORDER BY table_name, ordinal_position`),
      indexes: await q(`SELECT tablename, indexname, indexdef FROM pg_indexes
                         WHERE schemaname = 'public' AND tablename <> '_prisma_migrations' ORDER BY indexname`),
      constraints: await q(`SELECT conrelid::regclass::text AS table_name, conname, pg_get_constraintdef(oid) AS definition
                              FROM pg_constraint WHERE connamespace = 'public'::regnamespace
                               AND conrelid::regclass::text <> '"_prisma_migrations"' AND conrelid::regclass::text <> '_prisma_migrations'
                             ORDER BY conname`),
      enums: await q(`SELECT t.typname, e.enumlabel FROM pg_type t JOIN pg_enum e ON e.enumtypid = t.oid
                        JOIN pg_namespace n ON n.oid = t.typnamespace WHERE n.nspname = 'public'
                       ORDER BY t.typname, e.enumsortorder`),
    };
  } finally {
    await session.close();
  }
}

/**
 * Indexes migrations add by hand because Prisma's schema language cannot express them
 * (prisma/README.md, "Indexes Prisma cannot express"): name → definition as pg_indexes shows it.
 */
const HAND_MADE_INDEXES: Record<string, string> = {
  passes_account_id_ext_id_live_key:
    "CREATE UNIQUE INDEX passes_account_id_ext_id_live_key ON public.passes USING btree (account_id, ext_id) WHERE (status <> 'nullified'::pass_status)",
  audit_events_unsealed_idx: 'CREATE INDEX audit_events_unsealed_idx ON public.audit_events USING btree (account_id, occurred_at, id) WHERE (hash IS NULL)',
};

it('builds exactly the schema Prisma derives from prisma/schema.prisma', async () => {
  // A copy of a database the migrations built (applyMigrations on an empty one, as above).
  const migrated = await freshDatabase({ migrated: true });
  const expected = await freshDatabase();
  const schema = await readFile(join(DEFAULT_MIGRATIONS_DIR, '../schema.prisma'), 'utf8');
  const session = await expected.db.openSession();
  await session.exec(await migrationSql(null, schema));
  await session.close();
  const actual = (await catalog(migrated.db)) as { columns: { table_name: string }[]; indexes: { indexname: string; indexdef: string }[] };
  expect(actual.columns.map((c) => c.table_name)).toContain('accounts');
  // The documented hand-made indexes, exactly as defined, are the one allowed difference.
  const handMade = actual.indexes.filter((i) => Object.hasOwn(HAND_MADE_INDEXES, i.indexname));
  expect(Object.fromEntries(handMade.map((i) => [i.indexname, i.indexdef]))).toEqual(HAND_MADE_INDEXES);
  actual.indexes = actual.indexes.filter((i) => !Object.hasOwn(HAND_MADE_INDEXES, i.indexname));
  expect(actual).toEqual(await catalog(expected.db));
}, 90_000);
