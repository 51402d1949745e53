/**
 * The per-issuer throttle of Google Wallet calls (src/delivery/googleRateLimit.ts) as Google
 * counts it: at the receiver, in every sliding second, after each call's own delay between its
 * grant and its arrival (the sender's scheduling plus the network's jitter).
 *
 * The in-process throttle (the embedded database's) runs here in simulated time (Jest's fake
 * timers fake `setTimeout`, `Date` and `performance`), so that arrival patterns and delays are
 * exact and the same on every run: seeded pseudo-random callers, each call delayed by 0–100 ms
 * (at random, or less the later it was granted in its second) before a receiver stand-in stamps it. The throttle shared through PostgreSQL runs against the
 * database's clock in test/googleWallet.test.ts.
 */
import { jest } from '@jest/globals';
import { createGoogleThrottle, throttleSpacing } from '../src/delivery/googleRateLimit.ts';
import type { Database } from '../src/db/database.ts';

/** Google's quota per issuer (https://developers.google.com/wallet/generic/resources/faq). */
const QUOTA = 20;
/** The largest delay a call may take from its grant to Google's receipt in these runs, in ms. */
const MAX_DELAY_MS = 100;

/** mulberry32: a small seeded generator, so that a failing run can be replayed. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The most timestamps (ms) within any half-open second [t, t + 1000). */
function busiestSecond(times: number[]): number {
  const sorted = [...times].sort((a, b) => a - b);
  let most = 0;
  for (let i = 0, j = 0; j < sorted.length; j++) {
    while (sorted[j]! - sorted[i]! >= 1000) i++;
    most = Math.max(most, j - i + 1);
  }
  return most;
}

beforeEach(() => jest.useFakeTimers({ now: 0 }));
afterEach(() => jest.useRealTimers());

const inProcess = { kind: 'pglite' } as Pick<Database, 'kind' | 'prisma'>;

/**
 * One simulated run: `calls` callers arrive in bursts and lulls over `spreadMs` (so that some
 * are granted at once and others queue), each granted call reaches the receiver after a delay
 * drawn from [0, MAX_DELAY_MS]; answers the receiver's busiest second.
 */
async function simulate(seed: number, calls: number, spreadMs: number, delay: 'random' | 'sawtooth'): Promise<number> {
  const random = seeded(seed);
  // Random: any delay in the range. Sawtooth: the later in its second a call is granted, the
  // shorter its delay, which packs a second and a tenth of grants into one second of arrivals.
  const delayOf = (granted: number) => (delay === 'random' ? random() * MAX_DELAY_MS : MAX_DELAY_MS * (1 - (granted % 2000) / 2000));
  const throttle = createGoogleThrottle(inProcess, QUOTA);
  const received: number[] = [];
  for (let i = 0; i < calls; i++) {
    // Half the callers come in bursts, the others alone at random times.
    const arrival = random() < 0.5 ? Math.floor(random() * 8) * (spreadMs / 8) : random() * spreadMs;
    setTimeout(() => {
      void throttle('issuer').then(() => {
        setTimeout(() => received.push(Date.now()), delayOf(Date.now()));
      });
    }, arrival);
  }
  // Long enough for every call at the budget, whatever the arrivals.
  await jest.advanceTimersByTimeAsync(spreadMs + (calls / (QUOTA * 0.8)) * 1000 + 2 * MAX_DELAY_MS);
  expect(received).toHaveLength(calls);
  return busiestSecond(received);
}

it('keeps every sliding second at the receiver within the quota when each call takes 0–100 ms to arrive', async () => {
  let most = 0;
  for (let seed = 1; seed <= 40; seed++) {
    for (const delay of ['random', 'sawtooth'] as const) most = Math.max(most, await simulate(seed, 80, 6000, delay));
  }
  expect(most).toBeLessThanOrEqual(QUOTA);
});

it('still sends at close to its budget when callers queue', async () => {
  const { perSecond } = throttleSpacing(QUOTA);
  const throttle = createGoogleThrottle(inProcess, QUOTA);
  let granted = 0;
  for (let i = 0; i < 100; i++) void throttle('issuer').then(() => granted++);
  await jest.advanceTimersByTimeAsync(5000);
  // 5 s at the budget, the first call at once.
  expect(granted).toBe(Math.floor(5 * perSecond) + 1);
  expect(perSecond).toBeGreaterThanOrEqual(QUOTA * 0.8);
  expect(perSecond).toBeLessThan(QUOTA);
});
