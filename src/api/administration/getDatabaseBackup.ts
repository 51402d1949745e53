import type { OperationHandler } from '../../http/operation.ts';
import { ConflictError } from '../../errors.ts';
import { dumpEmbeddedDatabase } from '../../db/embeddedBackup.ts';

/** What a backup's file is called: `pglite-<UTC time, ISO 8601 basic>.tar.gz`. */
function fileName(now: Date): string {
  return `pglite-${now.toISOString().replace(/[-:]/g, '').replace(/\.\d+/, '')}.tar.gz`;
}

/**
 * `GET /admin/v1/database-backup`: a consistent copy of the embedded database, taken while the
 * service runs (src/db/embeddedBackup.ts).
 * @throws ConflictError (`backup_not_embedded`) on PostgreSQL.
 */
export const getDatabaseBackup: OperationHandler<'getDatabaseBackup'> = async ({ ctx }) => {
  if (ctx.db.kind !== 'pglite') {
    throw new ConflictError('This service runs on PostgreSQL (DATABASE_URL); back it up with pg_dump (README, "Backups").', undefined, 'backup_not_embedded');
  }
  const archive = await dumpEmbeddedDatabase(ctx.db);
  return {
    status: 200,
    headers: {
      'Content-Type': 'application/gzip',
      'Content-Disposition': `attachment; filename="${fileName(ctx.clock.now())}"`,
      'Cache-Control': 'no-store',
    },
    body: archive,
  };
};
