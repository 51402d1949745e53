/**
 * Backups of the embedded database (PGlite): a consistent copy of its data directory taken by
 * the process that has it open, and the loading of such a copy into a new data directory.
 *
 * The copy is PGlite's `dumpDataDir('gzip')` (https://pglite.dev/docs/api#dumpdatadir), a
 * gzip-compressed tar of the PostgreSQL data directory. It is taken inside a PGlite transaction
 * (`pglite.transaction`, which every write of the service waits for: Prisma's interactive
 * transactions through pglite-prisma-adapter and `Database.writeSql` open theirs the same way),
 * after a `CHECKPOINT` that writes every committed page to the files: so the tar holds exactly
 * the transactions committed before it, and no half of one. Loading is PGlite's `loadDataDir`
 * option (the same page).
 *
 * @module db/embeddedBackup
 */
import { PGlite } from '@electric-sql/pglite';
import type { Database } from './database.ts';

/** The database is not the embedded one (PostgreSQL has `pg_dump`). */
export class NotEmbeddedDatabaseError extends Error {
  override name = 'NotEmbeddedDatabaseError';
}

/**
 * Copies the open embedded database.
 * @returns The gzip-compressed tar of its data directory.
 * @throws NotEmbeddedDatabaseError on PostgreSQL.
 */
export async function dumpEmbeddedDatabase(db: Database): Promise<Uint8Array> {
  if (db.driver.kind !== 'pglite') throw new NotEmbeddedDatabaseError('This service runs on PostgreSQL (DATABASE_URL); back it up with pg_dump.');
  const pglite = db.driver.pglite;
  const archive = await pglite.transaction(async (tx) => {
    await tx.exec('CHECKPOINT');
    return pglite.dumpDataDir('gzip');
  });
  return new Uint8Array(await archive.arrayBuffer());
}

/**
 * Writes a copy made by {@link dumpEmbeddedDatabase} into `pgliteDir` (which must not hold a
 * database), opening it once so that PGlite checks it, then closing it.
 * @throws The error of PGlite when the archive is not a PostgreSQL data directory it can open.
 */
export async function loadEmbeddedDatabase(pgliteDir: string, archive: Uint8Array): Promise<void> {
  const pglite = new PGlite(pgliteDir, { loadDataDir: new Blob([Buffer.from(archive)], { type: 'application/x-gzip' }) });
  try {
    await pglite.waitReady;
    await pglite.query('SELECT 1');
  } finally {
    await pglite.close();
  }
}
