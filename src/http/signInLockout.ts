/**
 * Lockout of sign-ins after repeated failures (OWASP Authentication Cheat Sheet, "Account
 * Lockout", https://cheatsheetseries.owasp.org/cheatsheets/Authentication_Cheat_Sheet.html#account-lockout):
 *
 * - per address signed in to (the e-mail, known or not, so the lockout tells nothing about who
 *   exists): {@link PERSON_FAILURES} failures within {@link PERSON_WINDOW_S} seconds lock it for
 *   the rest of the window;
 * - per client address: `AUTH_FAILURES_PER_MINUTE` failures a minute (the limit API keys have,
 *   src/http/authenticate.ts).
 *
 * Counted where every process and node shares them (src/db/rateLimiters.ts). A locked sign-in
 * gets 429 with `Retry-After`, before its password is even checked.
 *
 * @module http/signInLockout
 */
import { RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Database } from '../db/database.ts';
import { createRateLimiter } from '../db/rateLimiters.ts';
import { throttleHeaders } from './authenticate.ts';
import { RateLimitError } from './errors.ts';
import type { RequestContext } from './operation.ts';

/** Failures allowed per e-mail address per window. */
export const PERSON_FAILURES = 10;
/** The window of {@link PERSON_FAILURES}, in seconds. */
export const PERSON_WINDOW_S = 15 * 60;

interface Limiters {
  person: RateLimiterAbstract;
  address: RateLimiterAbstract | undefined;
  addressLimit: number;
}
const byDatabase = new WeakMap<Database, Limiters>();

function limitersOf(ctx: RequestContext): Limiters {
  let limiters = byDatabase.get(ctx.db);
  if (!limiters) {
    const addressLimit = ctx.config.authFailuresPerMinute;
    limiters = {
      person: createRateLimiter(ctx.db, { keyPrefix: 'sign-in-failures', points: PERSON_FAILURES, durationSeconds: PERSON_WINDOW_S }),
      address: addressLimit > 0 ? createRateLimiter(ctx.db, { keyPrefix: 'sign-in-address-failures', points: addressLimit, durationSeconds: 60 }) : undefined,
      addressLimit,
    };
    byDatabase.set(ctx.db, limiters);
  }
  return limiters;
}

/**
 * @throws RateLimitError (429) when the e-mail address (if any) or the client address is locked.
 */
export async function refuseLockedSignIn(ctx: RequestContext, email: string | undefined): Promise<void> {
  const { person, address, addressLimit } = limitersOf(ctx);
  const checks: [RateLimiterAbstract | undefined, string | undefined, number][] = [
    [person, email, PERSON_FAILURES],
    [address, ctx.clientAddress, addressLimit],
  ];
  for (const [limiter, key, limit] of checks) {
    if (!limiter || key === undefined) continue;
    const counted = await limiter.get(key);
    if (counted && counted.consumedPoints >= limit)
      throw new RateLimitError(
        `Too many failed sign-ins; retry after ${Math.ceil(counted.msBeforeNext / 1000)} s.`,
        throttleHeaders(limit, counted.msBeforeNext),
      );
  }
}

/** Counts a failed sign-in of the e-mail address (if any) and the client address. */
export async function countFailedSignIn(ctx: RequestContext, email: string | undefined): Promise<void> {
  const { person, address } = limitersOf(ctx);
  const ignoreLimit = (rejection: unknown) => {
    if (!(rejection instanceof RateLimiterRes)) throw rejection;
  };
  if (email !== undefined) await person.penalty(email, 1).catch(ignoreLimit);
  if (address) await address.penalty(ctx.clientAddress, 1).catch(ignoreLimit);
}

/** Forgets the failures of an e-mail address after a sign-in that succeeded. */
export async function forgetFailedSignIns(ctx: RequestContext, email: string): Promise<void> {
  await limitersOf(ctx).person.delete(email);
}
