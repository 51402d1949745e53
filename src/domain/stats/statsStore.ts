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

type Series = Exclude<keyof StatsDay, 'date'>;
/** One series' counts: `YYYY-MM-DD` → count, for the days that have any. */
type DayCounts = { day: string; n: number; google?: number }[];

const DAY_MS = 86_400_000;

/**
 * Counts per day from `from` to `to`, both inclusive, every day listed (zeros where nothing
 * happened), in order. Each series is its own statement (run side by side on a pool) over its
 * index's range, so that each is planned with its own bounds.
 * @param from First day, `YYYY-MM-DD` (UTC).
 * @param to Last day, `YYYY-MM-DD` (UTC), not before `from`.
 */
export async function selectStatsDays(prisma: PrismaExecutor, accountId: string, from: string, to: string): Promise<StatsDay[]> {
  const lo = new Date(`${from}T00:00:00Z`);
  const hi = new Date(Date.parse(`${to}T00:00:00Z`) + DAY_MS);
  const [issued, installed, removed, scanned, delivery, webhook] = await Promise.all([
    prisma.$queryRaw<DayCounts>`
      SELECT to_char((created_at AT TIME ZONE 'UTC')::date, 'YYYY-MM-DD') AS day, count(*)::int AS n FROM passes
      WHERE account_id = ${accountId}::uuid AND created_at >= ${lo} AND created_at < ${hi} GROUP BY 1`,
    prisma.$queryRaw<DayCounts>`
      SELECT to_char((added_at AT TIME ZONE 'UTC')::date, 'YYYY-MM-DD') AS day,
        count(*) FILTER (WHERE device_type = 'iphone')::int AS n, count(*) FILTER (WHERE device_type = 'android')::int AS google FROM passes
      WHERE account_id = ${accountId}::uuid AND added_at >= ${lo} AND added_at < ${hi} GROUP BY 1`,
    prisma.$queryRaw<DayCounts>`
      SELECT to_char((removed_at AT TIME ZONE 'UTC')::date, 'YYYY-MM-DD') AS day, count(*)::int AS n FROM passes
      WHERE account_id = ${accountId}::uuid AND removed_at >= ${lo} AND removed_at < ${hi} GROUP BY 1`,
    prisma.$queryRaw<DayCounts>`
      SELECT to_char((scanned_at AT TIME ZONE 'UTC')::date, 'YYYY-MM-DD') AS day, count(*)::int AS n FROM scans
      WHERE account_id = ${accountId}::uuid AND scanned_at >= ${lo} AND scanned_at < ${hi} GROUP BY 1`,
    prisma.$queryRaw<DayCounts>`
      SELECT to_char((created_at AT TIME ZONE 'UTC')::date, 'YYYY-MM-DD') AS day, count(*)::int AS n FROM delivery_attempts
      WHERE account_id = ${accountId}::uuid AND created_at >= ${lo} AND created_at < ${hi} AND outcome <> 'delivered' GROUP BY 1`,
    prisma.$queryRaw<DayCounts>`
      SELECT to_char((w.created_at AT TIME ZONE 'UTC')::date, 'YYYY-MM-DD') AS day, count(*)::int AS n
      FROM webhook_delivery_attempts w JOIN webhook_subscriptions ws ON ws.id = w.subscription_id
      WHERE ws.account_id = ${accountId}::uuid AND w.created_at >= ${lo} AND w.created_at < ${hi} AND w.outcome <> 'delivered' GROUP BY 1`,
  ]);
  const days = new Map<string, StatsDay>();
  for (let at = lo.getTime(); at < hi.getTime(); at += DAY_MS) {
    const date = new Date(at).toISOString().slice(0, 10);
    days.set(date, {
      date,
      passesIssued: 0,
      passesInstalledApple: 0,
      passesInstalledGoogle: 0,
      passesRemoved: 0,
      scans: 0,
      deliveryFailures: 0,
      webhookFailures: 0,
    });
  }
  const put = (rows: DayCounts, series: Series, google?: Series) => {
    for (const row of rows) {
      const day = days.get(row.day)!;
      day[series] = row.n;
      if (google) day[google] = row.google ?? 0;
    }
  };
  put(issued, 'passesIssued');
  put(installed, 'passesInstalledApple', 'passesInstalledGoogle');
  put(removed, 'passesRemoved');
  put(scanned, 'scans');
  put(delivery, 'deliveryFailures');
  put(webhook, 'webhookFailures');
  return [...days.values()];
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
