/**
 * Google Wallet's quota, 20 requests per second per issuer
 * (https://developers.google.com/wallet/generic/resources/faq), kept across every worker: a
 * fixed one-second window per issuer counted by rate-limiter-flexible. With PostgreSQL the
 * counter is a row of `google_rate_limits` (its Prisma store: an atomic increment per call, so
 * all workers and servers share one budget); the embedded database has one process, whose
 * memory counts. A call over the budget waits for the next window instead of failing.
 *
 * @module delivery/googleRateLimit
 */
import { RateLimiterMemory, RateLimiterPrisma, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Database } from '../db/database.ts';

/**
 * Makes the throttle of the Google Wallet client.
 * @param perSecond Calls per second per issuer (`GOOGLE_WALLET_REQUESTS_PER_SECOND`).
 * @returns A function that resolves when the issuer may make one more call.
 */
export function createGoogleThrottle(db: Pick<Database, 'kind' | 'prisma'>, perSecond: number): (issuerId: string) => Promise<void> {
  const limiter: RateLimiterAbstract =
    db.kind === 'postgresql'
      ? new RateLimiterPrisma({ storeClient: db.prisma, tableName: 'googleRateLimit', points: perSecond, duration: 1, keyPrefix: 'google', clearExpiredByTimeout: false })
      : new RateLimiterMemory({ points: perSecond, duration: 1, keyPrefix: 'google' });
  return async (issuerId) => {
    for (;;) {
      try {
        await limiter.consume(issuerId);
        return;
      } catch (rejection) {
        // Over the budget: wait for the window to end. A store error (two first calls creating
        // the row at once): try again shortly.
        const wait = rejection instanceof RateLimiterRes ? rejection.msBeforeNext : 20;
        await new Promise((r) => setTimeout(r, Math.max(1, wait)));
      }
    }
  };
}
