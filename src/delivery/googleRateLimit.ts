/**
 * Google Wallet's quota, 20 requests per second per issuer
 * (https://developers.google.com/wallet/generic/resources/faq), kept as Google counts it: in
 * every sliding second at Google's end, across every worker, with a margin for the time each
 * call takes from being let through to reaching Google.
 *
 * The calls of an issuer are paced: one every `1/B` s, where the budget `B` is `⌊Q/1.25⌋` (at
 * least 1; 16/s for Google's 20). Each call takes the next free slot and waits for it, in
 * the order the calls asked. Why this holds at the receiver: slots are at least `1/B` s apart, so
 * any half-open stretch of `L` seconds holds at most `⌈B·L⌉` of them. A call granted at `g`
 * arrives at `g + d`, with `d` between `dmin` and `dmax` (the sender's scheduling, then the
 * network); the calls arriving within one second were granted within `1 + (dmax − dmin)` s, so
 * at most `⌈B·(1 + J)⌉` arrive in any second, where `J = dmax − dmin` is the jitter. That is at
 * most `Q` while `J ≤ Q/B − 1` s: at least 250 ms (the tolerance `throttleSpacing` answers). Windows that let several calls through at once (the earlier design: 2 calls per
 * 1/9 s window) allow `Q` calls in one second with no jitter at all, and more with any.
 *
 * With PostgreSQL the slots are kept in `google_rate_limits`, a row per issuer, by one atomic
 * statement that reads the database's clock, so all workers and servers share one pacing. The
 * row holds a run of back-to-back slots: `expire` is when its first slot starts, `points` how
 * many slots it has handed out; the next slot is `expire + points/B`. A call that finds the run
 * over (its last slot is past) starts a new run at the database's current time. (A caller's own
 * clock is not used: rate-limiter-flexible's PostgreSQL and Prisma stores stamp windows with it,
 * taken before the query waits for a pooled connection, and 28 calls passed in one second of a
 * 20/s budget under load.) The embedded database has one process, which keeps the next free slot
 * of each issuer in memory.
 *
 * @module delivery/googleRateLimit
 */
import type { Database } from '../db/database.ts';
import { takeGoogleSlot } from '../db/googleRateLimitStore.ts';

/**
 * The spread of delays between letting a call through and Google receiving it that the pacing
 * absorbs, in seconds: the budget is `Q/(1 + 0.25)`. 250 ms covers the network and a loaded
 * sender (its database round trip and timers): with a 90 % budget (111 ms) two workers sharing
 * PostgreSQL on a busy two-core machine, with 0–100 ms of network jitter, put 21 calls in one
 * second at a 20/s receiver.
 */
const JITTER_TOLERANCE_S = 0.25;

/** Slots of one run before the next run starts where it ends (keeps `points` far from int4's limit). */
const MAX_RUN = 100_000;

/** The pacing of a per-second quota, see the module's comment. */
export interface ThrottleSpacing {
  /** Calls per second let through (`B`): `⌊Q/1.25⌋`, at least 1. */
  perSecond: number;
  /** Time between two calls of one issuer, in ms (`1000/B`). */
  intervalMs: number;
  /** The largest spread of delays between a call's grant and its arrival for which no sliding second at the receiver holds more than the quota, in ms (`1000·(Q/B − 1)`). */
  jitterToleranceMs: number;
}

/**
 * The pacing of `quota` calls per second, see the module's comment.
 * @param quota Calls per second allowed per issuer (`GOOGLE_WALLET_REQUESTS_PER_SECOND`, at least 1).
 */
export function throttleSpacing(quota: number): ThrottleSpacing {
  const perSecond = Math.max(1, Math.floor(quota / (1 + JITTER_TOLERANCE_S)));
  return { perSecond, intervalMs: 1000 / perSecond, jitterToleranceMs: 1000 * (quota / perSecond - 1) };
}

const sleep = (ms: number) => (ms > 0 ? new Promise((r) => setTimeout(r, ms)) : Promise.resolve());

/**
 * Makes the throttle of the Google Wallet client.
 * @param quota Calls per second per issuer (`GOOGLE_WALLET_REQUESTS_PER_SECOND`).
 * @returns A function that resolves when the issuer's next call may be sent (at its slot).
 */
export function createGoogleThrottle(db: Pick<Database, 'kind' | 'prisma'>, quota: number): (issuerId: string) => Promise<void> {
  const { intervalMs } = throttleSpacing(quota);
  if (db.kind === 'postgresql') {
    return async (issuerId) => {
      // Takes the issuer's next slot and answers how long until it starts (src/db/googleRateLimitStore.ts).
      const waitMs = await takeGoogleSlot(db.prisma, issuerId, intervalMs, MAX_RUN);
      await sleep(waitMs ?? intervalMs);
    };
  }
  /** Each issuer's next free slot, in `performance.now()` ms. */
  const nextSlot = new Map<string, number>();
  return async (issuerId) => {
    const now = performance.now();
    const slot = Math.max(now, nextSlot.get(issuerId) ?? now);
    nextSlot.set(issuerId, slot + intervalMs);
    await sleep(slot - now);
  };
}
