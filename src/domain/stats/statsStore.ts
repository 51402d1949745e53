/**
 * Database access for an account's statistics (the stats operation): counts per UTC day of
 * passes issued, added to Apple and Google Wallet, removed, scans, failed wallet deliveries and
 * failed webhook requests, plus the failures of the last 24 hours. All counting happens in SQL.
 *
 * Each count is one day's range of an index that starts with the account, counted without
 * reading the rows (an index-only scan where the index holds every column the count reads,
 * https://www.postgresql.org/docs/current/indexes-index-only-scans.html):
 * passes (account_id, created_at, id), (account_id, added_at, device_type), (account_id, removed_at);
 * scans (account_id, scanned_at, id); delivery_attempts (account_id, created_at);
 * webhook_delivery_attempts (subscription_id, created_at) for each of the account's subscriptions.
 * Nothing is computed per row: the day's bounds are compared with the indexed timestamps, so no
 * row is converted to a day, formatted or hashed. Measured with `npm run bench -- accountStats`
 * (1,000,000 passes, PostgreSQL 15, a 2-core machine under a load of ≈ 7): the earlier form — one
 * statement per series grouping each row by `to_char((x AT TIME ZONE 'UTC')::date, …)` — answered
 * the default 30 days in 176 ms p50 / 216 ms p95 (366 days: 1.10 s / 1.25 s); this one in
 * 32–41 ms / 44–63 ms over two runs (366 days: 337–347 ms / 367–428 ms, which counts every row);
 * on the quiet machine 14–19 ms / 21–25 ms (366 days: p95 162–168 ms).
 *
 * Days are UTC calendar days: a day's bounds are its midnight and the next, taken `AT TIME ZONE
 * 'UTC'` (https://www.postgresql.org/docs/current/functions-datetime.html#FUNCTIONS-DATETIME-ZONECONVERT),
 * whatever the session's time zone.
 *
 * @module domain/stats/statsStore
 */
import { Prisma } from '../../../generated/prisma/client.ts';
import type { SqlExecutor } from '../../db/database.ts';
import { queryRow, queryRows } from '../../db/rows.ts';

/** What happened on one UTC day (the contract's AccountStatsDay). */
export interface StatsDay {
  /** `YYYY-MM-DD`. */
  date: string;
  passesIssued: number;
  passesInstalledApple: number;
  passesInstalledGoogle: number;
  passesRemoved: number;
  scans: number;
  deliveryFailures: number;
  webhookFailures: number;
}

/** Failed deliveries in a window (the contract's AccountStatsFailures). */
export interface StatsFailures {
  deliveryFailures: number;
  webhookFailures: number;
}

const DAY_MS = 86_400_000;

/**
 * Counts per day from `from` to `to`, both inclusive, every day listed (zeros where nothing
 * happened), in order. Two statements run side by side on the pool (PostgreSQL runs each on one
 * core): the passes' series, and scans with the failures; each has one row per day
 * (`generate_series` of day numbers, so the planner knows how many), each column one count over
 * that day's index range. Measured on 1,000,000 passes, 30 days: one statement for all series
 * spent ≈ 46 ms in the database on a loaded 2-core machine, the passes' series ≈ 26 ms of it.
 * @param executor The Prisma client or the driver ({@link SqlExecutor}).
 * @param from First day, `YYYY-MM-DD` (UTC).
 * @param to Last day, `YYYY-MM-DD` (UTC), not before `from`.
 * @throws Whatever the database throws.
 */
export async function selectStatsDays(executor: Pick<SqlExecutor, '$queryRaw'>, accountId: string, from: string, to: string): Promise<StatsDay[]> {
  const days = (Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS + 1;
  const account = Prisma.sql`${accountId}::uuid`;
  const range = Prisma.sql`generate_series(0, ${days - 1}::int) AS n,
    LATERAL (SELECT ${from}::date::timestamp + n * interval '1 day' AS day) AS d,
    LATERAL (SELECT day AT TIME ZONE 'UTC' AS lo, (day + interval '1 day') AT TIME ZONE 'UTC' AS hi) AS bounds`;
  const [passes, others] = await Promise.all([
    queryRows<Pick<StatsDay, 'date' | 'passesIssued' | 'passesInstalledApple' | 'passesInstalledGoogle' | 'passesRemoved'>>(
      executor,
      Prisma.sql`
        SELECT to_char(day, 'YYYY-MM-DD') AS date,
          (SELECT count(*)::int FROM passes WHERE account_id = ${account} AND created_at >= lo AND created_at < hi) AS passes_issued,
          installed.apple AS passes_installed_apple,
          installed.google AS passes_installed_google,
          (SELECT count(*)::int FROM passes WHERE account_id = ${account} AND removed_at >= lo AND removed_at < hi) AS passes_removed
        FROM ${range},
          LATERAL (
            SELECT count(*) FILTER (WHERE device_type = 'iphone')::int AS apple, count(*) FILTER (WHERE device_type = 'android')::int AS google
            FROM passes WHERE account_id = ${account} AND added_at >= lo AND added_at < hi) AS installed
        ORDER BY n`,
    ),
    queryRows<Pick<StatsDay, 'scans' | 'deliveryFailures' | 'webhookFailures'>>(
      executor,
      Prisma.sql`
        SELECT
          (SELECT count(*)::int FROM scans WHERE account_id = ${account} AND scanned_at >= lo AND scanned_at < hi) AS scans,
          (SELECT count(*)::int FROM delivery_attempts
            WHERE account_id = ${account} AND created_at >= lo AND created_at < hi AND outcome <> 'delivered') AS delivery_failures,
          (SELECT count(*)::int FROM webhook_delivery_attempts
            WHERE subscription_id = ANY (ARRAY(SELECT id FROM webhook_subscriptions WHERE account_id = ${account}))
              AND created_at >= lo AND created_at < hi AND outcome <> 'delivered') AS webhook_failures
        FROM ${range}
        ORDER BY n`,
    ),
  ]);
  return passes.map((day, i) => ({ ...day, ...others[i]! }));
}

/**
 * Failed wallet deliveries (outcome other than `delivered`) and webhook requests (outcome other
 * than `delivered`) made at or after `since`.
 * @param executor The Prisma client or the driver ({@link SqlExecutor}).
 * @throws Whatever the database throws.
 */
export async function selectStatsFailures(executor: Pick<SqlExecutor, '$queryRaw'>, accountId: string, since: Date): Promise<StatsFailures> {
  const row = await queryRow<StatsFailures>(
    executor,
    Prisma.sql`
      SELECT
        (SELECT count(*)::int FROM delivery_attempts
          WHERE account_id = ${accountId}::uuid AND created_at >= ${since} AND outcome <> 'delivered') AS delivery_failures,
        (SELECT count(*)::int FROM webhook_delivery_attempts w JOIN webhook_subscriptions ws ON ws.id = w.subscription_id
          WHERE ws.account_id = ${accountId}::uuid AND w.created_at >= ${since} AND w.outcome <> 'delivered') AS webhook_failures`,
  );
  return row!;
}
