/**
 * Rate limiters whose counts every process and node share (rate-limiter-flexible,
 * https://github.com/animir/node-rate-limiter-flexible/wiki/PostgreSQL): on PostgreSQL the
 * counters are rows of `rate_limits` (one upsert per counted request), so N server processes or
 * nodes allow the limit once, not N times; on the embedded database, which one process owns, they
 * are kept in memory.
 *
 * A key that used up its points is then refused from memory until its window ends
 * (`inMemoryBlockOnConsumed`), so a client hammering past its limit costs no database work.
 *
 * @module db/rateLimiters
 */
import { RateLimiterMemory, RateLimiterPostgres, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Database } from './database.ts';

/** A limiter: `points` per `durationSeconds` per key. */
export interface RateLimiterOptions {
  /** Separates the limiters' keys in the shared table (e.g. `api`, `auth-failures`). */
  keyPrefix: string;
  points: number;
  durationSeconds: number;
}

/** The table of the counters (prisma/schema.prisma, `RateLimitCounter`). */
const TABLE = 'rate_limits';

/** Creates a limiter on `db`'s shared store (PostgreSQL) or in memory (PGlite). */
export function createRateLimiter(db: Database, options: RateLimiterOptions): RateLimiterAbstract {
  const common = { keyPrefix: options.keyPrefix, points: options.points, duration: options.durationSeconds };
  if (db.driver.kind === 'pglite') return new RateLimiterMemory(common);
  return new RateLimiterPostgres({
    ...common,
    storeClient: db.driver.pool,
    storeType: 'pool',
    tableName: TABLE,
    tableCreated: true,
    inMemoryBlockOnConsumed: options.points + 1,
    inMemoryBlockDuration: options.durationSeconds,
  });
}
