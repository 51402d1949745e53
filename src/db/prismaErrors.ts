/**
 * Recognising database errors where a store turns them into domain errors (the error handler
 * maps the ones left over generically).
 *
 * @module db/prismaErrors
 */

/**
 * True for a unique constraint violation, however it arrived: Prisma's `P2002` (a model query),
 * Prisma's `P2010` (a raw query) whose driver adapter error carries PostgreSQL's SQLSTATE
 * `23505`, or the driver's own error with that SQLSTATE (`Database.sql`, `Database.writeSql`).
 * SQLSTATE codes: https://www.postgresql.org/docs/current/errcodes-appendix.html
 */
export function isUniqueViolation(error: unknown): boolean {
  const known = error as { code?: unknown; meta?: { driverAdapterError?: { cause?: { originalCode?: unknown } } } } | null;
  if (known?.code === 'P2002' || known?.code === '23505') return true;
  return known?.code === 'P2010' && known.meta?.driverAdapterError?.cause?.originalCode === '23505';
}
