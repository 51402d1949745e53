/**
 * Database access for an account's statistics (the stats operation): counts per UTC day of
 * passes issued, added to Apple and Google Wallet, removed, scans, failed wallet deliveries and
 * failed webhook requests, plus the failures of the last 24 hours. All counting happens in SQL,
 * each series a range scan of an index that starts with the account:
 * passes (account_id, created_at, id), (account_id, added_at, device_type), (account_id, removed_at);
 * scans (account_id, scanned_at, id); delivery_attempts (account_id, created_at);
 * webhook_delivery_attempts (subscription_id, created_at) through the account's subscriptions.
 * Days are UTC calendar days (`AT TIME ZONE 'UTC'`, https://www.postgresql.org/docs/current/functions-datetime.html#FUNCTIONS-DATETIME-ZONECONVERT),
 * whatever the session's time zone.
 *
 * @module domain/stats/statsStore
 */
import type { PrismaExecutor } from '../../db/database.ts';

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

/**
 * Counts per day from `from` to `to`, both inclusive, every day listed (zeros where nothing
 * happened), in order.
 * @param from First day, `YYYY-MM-DD` (UTC).
 * @param to Last day, `YYYY-MM-DD` (UTC), not before `from`.
 */
export function selectStatsDays(prisma: PrismaExecutor, accountId: string, from: string, to: string): Promise<StatsDay[]> {
  return prisma.$queryRaw<StatsDay[]>`
    WITH bounds AS (
      SELECT (${from}::date)::timestamp AT TIME ZONE 'UTC' AS lo, (${to}::date + 1)::timestamp AT TIME ZONE 'UTC' AS hi
    ),
    days AS (
      SELECT d::date AS day FROM generate_series(${from}::date, ${to}::date, interval '1 day') AS d
    ),
    issued AS (
      SELECT (p.created_at AT TIME ZONE 'UTC')::date AS day, count(*)::int AS n
      FROM passes p, bounds b
      WHERE p.account_id = ${accountId}::uuid AND p.created_at >= b.lo AND p.created_at < b.hi GROUP BY 1
    ),
    installed AS (
      SELECT (p.added_at AT TIME ZONE 'UTC')::date AS day,
        count(*) FILTER (WHERE p.device_type = 'iphone')::int AS apple,
        count(*) FILTER (WHERE p.device_type = 'android')::int AS google
      FROM passes p, bounds b
      WHERE p.account_id = ${accountId}::uuid AND p.added_at >= b.lo AND p.added_at < b.hi GROUP BY 1
    ),
    removed AS (
      SELECT (p.removed_at AT TIME ZONE 'UTC')::date AS day, count(*)::int AS n
      FROM passes p, bounds b
      WHERE p.account_id = ${accountId}::uuid AND p.removed_at >= b.lo AND p.removed_at < b.hi GROUP BY 1
    ),
    scanned AS (
      SELECT (s.scanned_at AT TIME ZONE 'UTC')::date AS day, count(*)::int AS n
      FROM scans s, bounds b
      WHERE s.account_id = ${accountId}::uuid AND s.scanned_at >= b.lo AND s.scanned_at < b.hi GROUP BY 1
    ),
    delivery AS (
      SELECT (a.created_at AT TIME ZONE 'UTC')::date AS day, count(*)::int AS n
      FROM delivery_attempts a, bounds b
      WHERE a.account_id = ${accountId}::uuid AND a.created_at >= b.lo AND a.created_at < b.hi AND a.outcome <> 'delivered' GROUP BY 1
    ),
    webhook AS (
      SELECT (w.created_at AT TIME ZONE 'UTC')::date AS day, count(*)::int AS n
      FROM webhook_delivery_attempts w
      JOIN webhook_subscriptions ws ON ws.id = w.subscription_id, bounds b
      WHERE ws.account_id = ${accountId}::uuid AND w.created_at >= b.lo AND w.created_at < b.hi AND w.outcome <> 'delivered' GROUP BY 1
    )
    SELECT to_char(days.day, 'YYYY-MM-DD') AS "date",
      coalesce(issued.n, 0) AS "passesIssued",
      coalesce(installed.apple, 0) AS "passesInstalledApple",
      coalesce(installed.google, 0) AS "passesInstalledGoogle",
      coalesce(removed.n, 0) AS "passesRemoved",
      coalesce(scanned.n, 0) AS "scans",
      coalesce(delivery.n, 0) AS "deliveryFailures",
      coalesce(webhook.n, 0) AS "webhookFailures"
    FROM days
    LEFT JOIN issued USING (day)
    LEFT JOIN installed USING (day)
    LEFT JOIN removed USING (day)
    LEFT JOIN scanned USING (day)
    LEFT JOIN delivery USING (day)
    LEFT JOIN webhook USING (day)
    ORDER BY days.day`;
}

/**
 * Failed wallet deliveries (outcome other than `delivered`) and webhook requests (outcome other
 * than `delivered`) made at or after `since`.
 */
export async function selectStatsFailures(prisma: PrismaExecutor, accountId: string, since: Date): Promise<StatsFailures> {
  const [row] = await prisma.$queryRaw<StatsFailures[]>`
    SELECT
      (SELECT count(*)::int FROM delivery_attempts
        WHERE account_id = ${accountId}::uuid AND created_at >= ${since} AND outcome <> 'delivered') AS "deliveryFailures",
      (SELECT count(*)::int FROM webhook_delivery_attempts w JOIN webhook_subscriptions ws ON ws.id = w.subscription_id
        WHERE ws.account_id = ${accountId}::uuid AND w.created_at >= ${since} AND w.outcome <> 'delivered') AS "webhookFailures"`;
  return row!;
}
