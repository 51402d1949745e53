/**
 * Google Wallet's quota, 20 requests per second per issuer
 * (https://developers.google.com/wallet/generic/resources/faq), kept across every worker and
 * in every second, not only on average: each issuer's calls are counted in short fixed windows —
 * a tenth of the per-second budget per window of 1/9 s (for 20/s: 2 calls per 111 ms) — so that
 * any one-second interval, which overlaps at most 10 such windows, holds at most the budget
 * (sustained: 90 % of it). A call over the budget waits for the next window instead of failing.
 *
 * With PostgreSQL the windows are rows of `google_rate_limits`, one per issuer, counted by one
 * atomic statement that stamps windows with the database's clock, so all workers and servers
 * share one budget. (rate-limiter-flexible's PostgreSQL and Prisma stores stamp a window with
 * the caller's clock taken before the query waits for a pooled connection: under load a window
 * opened late is already partly over, and 28 calls passed in one second of a 20/s budget.) The
 * embedded database has one process, whose memory counts, with rate-limiter-flexible's memory
 * store.
 *
 * @module delivery/googleRateLimit
 */
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import type { Database } from '../db/database.ts';

/**
 * The window of a per-second budget: `points` calls per `duration` seconds such that no
 * one-second interval holds more than `perSecond` calls. Windows per second k and calls per
 * window p with p·(k+1) ≤ perSecond (a second overlaps at most k+1 consecutive windows); p is a
 * tenth of the budget (at least 1), k as large as that allows.
 */
export function throttleWindow(perSecond: number): { points: number; duration: number } {
  const points = Math.max(1, Math.floor(perSecond / 10));
  const windows = Math.max(1, Math.floor(perSecond / points) - 1);
  return { points, duration: 1 / windows };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, Math.max(1, ms)));

/**
 * Makes the throttle of the Google Wallet client.
 * @param perSecond Calls per second per issuer (`GOOGLE_WALLET_REQUESTS_PER_SECOND`, at least 2).
 * @returns A function that resolves when the issuer may make one more call.
 */
export function createGoogleThrottle(db: Pick<Database, 'kind' | 'prisma'>, perSecond: number): (issuerId: string) => Promise<void> {
  const { points, duration } = throttleWindow(perSecond);
  if (db.kind === 'postgresql') {
    const windowMs = Math.round(duration * 1000);
    return async (issuerId) => {
      for (;;) {
        // Opens a new window when the issuer's has ended, else counts the call in it; answers the
        // count and how long the window still runs, by the database's clock.
        const [row] = await db.prisma.$queryRaw<{ points: number; remainingMs: number }[]>`
          INSERT INTO google_rate_limits AS l (key, points, expire)
          VALUES (${issuerId}, 1, clock_timestamp() + make_interval(secs => ${windowMs / 1000}::float8))
          ON CONFLICT (key) DO UPDATE SET
            points = CASE WHEN l.expire <= clock_timestamp() THEN 1 ELSE l.points + 1 END,
            expire = CASE WHEN l.expire <= clock_timestamp() THEN clock_timestamp() + make_interval(secs => ${windowMs / 1000}::float8) ELSE l.expire END
          RETURNING l.points, (EXTRACT(EPOCH FROM l.expire - clock_timestamp()) * 1000)::int AS "remainingMs"`;
        if (row && row.points <= points) return;
        await sleep(row?.remainingMs ?? windowMs);
      }
    };
  }
  const limiter = new RateLimiterMemory({ points, duration, keyPrefix: 'google' });
  return async (issuerId) => {
    for (;;) {
      try {
        await limiter.consume(issuerId);
        return;
      } catch (rejection) {
        if (!(rejection instanceof RateLimiterRes)) throw rejection;
        await sleep(rejection.msBeforeNext);
      }
    }
  };
}
