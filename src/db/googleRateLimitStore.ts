/**
 * The shared pacing of Google Wallet calls on PostgreSQL (`google_rate_limits`, one row per
 * issuer): src/delivery/googleRateLimit.ts explains the run of slots a row holds and why the
 * database's clock, not the caller's, stamps it.
 *
 * @module db/googleRateLimitStore
 */
import { Prisma } from '../../generated/prisma/client.ts';
import type { PrismaClient } from './database.ts';
import { queryRow } from './rows.ts';

/**
 * Takes the issuer's next slot in one atomic statement and answers how long until it starts. A
 * run whose last slot is past (or that holds `maxRun` slots) is replaced by a new one starting at
 * the later of now and its end, rounded up to the column's millisecond. `expire` may be NULL in
 * a row of the earlier design: a new run then starts now.
 * @param intervalMs Time between two slots, in ms.
 * @returns The wait in ms (0 or more), or undefined when the statement returned no row.
 */
export async function takeGoogleSlot(prisma: PrismaClient, issuerId: string, intervalMs: number, maxRun: number): Promise<number | undefined> {
  const intervalS = intervalMs / 1000;
  const row = await queryRow<{ waitMs: number }>(
    prisma,
    Prisma.sql`
      WITH c AS (SELECT clock_timestamp() AS now)
      INSERT INTO google_rate_limits AS l (key, points, expire)
      SELECT ${issuerId}, 1, date_trunc('milliseconds', c.now) + interval '1 millisecond' FROM c
      ON CONFLICT (key) DO UPDATE SET
        points = CASE
          WHEN COALESCE(l.expire, '-infinity') + make_interval(secs => l.points * ${intervalS}::float8) <= (SELECT now FROM c)
            OR l.points >= ${maxRun}::int THEN 1
          ELSE l.points + 1 END,
        expire = CASE
          WHEN COALESCE(l.expire, '-infinity') + make_interval(secs => l.points * ${intervalS}::float8) <= (SELECT now FROM c)
            OR l.points >= ${maxRun}::int
          THEN date_trunc('milliseconds', GREATEST(COALESCE(l.expire, '-infinity') + make_interval(secs => l.points * ${intervalS}::float8), (SELECT now FROM c))) + interval '1 millisecond'
          ELSE l.expire END
      RETURNING GREATEST(0, EXTRACT(EPOCH FROM l.expire - (SELECT now FROM c)) * 1000 + (l.points - 1) * ${intervalMs}::float8)::float8 AS wait_ms`,
  );
  return row?.waitMs;
}
