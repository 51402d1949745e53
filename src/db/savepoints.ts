/**
 * Savepoints inside the caller's transaction (PostgreSQL documentation, SAVEPOINT and ROLLBACK TO
 * SAVEPOINT: https://www.postgresql.org/docs/current/sql-savepoint.html): a statement that fails
 * after {@link setSavepoint} aborts only what followed it once {@link rollbackToSavepoint} ran,
 * and the transaction goes on. For work that stores many items in one transaction and records
 * the one the database refuses instead of losing them all (CSV batches, message batches).
 *
 * @module db/savepoints
 */
import type { PrismaExecutor } from './database.ts';

/** A savepoint's name: an SQL identifier the code chooses (never input). */
type SavepointName = 'chunk' | 'pass' | 'delivery';

/** Sets (or moves) the savepoint `name` in the transaction `tx`. */
export async function setSavepoint(tx: Pick<PrismaExecutor, '$executeRawUnsafe'>, name: SavepointName): Promise<void> {
  await tx.$executeRawUnsafe(`SAVEPOINT ${name}`);
}

/**
 * Rolls the transaction `tx` back to the savepoint `name`, which stays set.
 * @throws The database's error when no such savepoint is set.
 */
export async function rollbackToSavepoint(tx: Pick<PrismaExecutor, '$executeRawUnsafe'>, name: SavepointName): Promise<void> {
  await tx.$executeRawUnsafe(`ROLLBACK TO SAVEPOINT ${name}`);
}
