/**
 * `npm run db:migrate`: applies pending migrations to the configured database and exits.
 * `npm run db:migrate -- --rolled-back <name>` marks a failed migration as rolled back (what
 * `prisma migrate resolve --rolled-back <name>` does) so that the next run can apply it again.
 *
 * Reads `DATABASE_URL` and `DATA_DIR` like the server; on the embedded database it takes the lock
 * of `DATA_DIR` first, so it refuses to run while a server has the database open. Exit codes: 0
 * done, 1 failed (or `DATA_DIR` in use), 2 usage.
 *
 * @module db/migrateCli
 */
import { parseArgs } from 'node:util';
import { loadConfig } from '../config.ts';
import { DataDirLockedError, lockDataDir, type DataDirLock } from './dataDirLock.ts';
import { openDatabase, pgliteDirOf } from './database.ts';
import { applyMigrations, markRolledBack } from './migrate.ts';

let args: ReturnType<typeof parseArgs<{ options: { 'rolled-back': { type: 'string' }; help: { type: 'boolean'; short: 'h' } } }>>;
try {
  args = parseArgs({ options: { 'rolled-back': { type: 'string' }, help: { type: 'boolean', short: 'h' } } });
} catch (error) {
  console.error(`${(error as Error).message}\nUsage: npm run db:migrate [-- --rolled-back <migration name>]`);
  process.exit(2);
}
if (args.values.help) {
  console.log('Usage: npm run db:migrate [-- --rolled-back <migration name>]');
  process.exit(0);
}
const config = loadConfig(process.env);
// One process per embedded database (src/db/dataDirLock.ts): refused while a server runs on it.
let lock: DataDirLock | undefined;
try {
  lock = config.databaseUrl ? undefined : lockDataDir(config.dataDir);
} catch (error) {
  if (!(error instanceof DataDirLockedError)) throw error;
  console.error(error.message);
  process.exit(1);
}
const db = await openDatabase({ databaseUrl: config.databaseUrl, pgliteDir: pgliteDirOf(config.dataDir) });
try {
  const name = args.values['rolled-back'];
  if (name) {
    await markRolledBack(db, name);
    console.log(`Marked ${name} as rolled back.`);
  } else {
    const report = await applyMigrations(db);
    for (const warning of report.warnings) console.warn(`warning: ${warning}`);
    console.log(report.applied.length ? `Applied: ${report.applied.join(', ')}` : 'No pending migrations.');
  }
  process.exitCode = 0;
} catch (error) {
  console.error((error as Error).message);
  process.exitCode = 1;
} finally {
  await db.close();
  lock?.release();
}
