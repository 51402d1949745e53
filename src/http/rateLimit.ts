/**
 * Per-account, per-operation rate limiting of `/api/v1` (PassEntry: 10 requests per second per
 * endpoint and method), with PassEntry's `x-rate-limit-*` headers. Counting is done by
 * rate-limiter-flexible with fixed one-second windows, in the counters every process and node
 * share (src/db/rateLimiters.ts), so N processes behind a balancer allow the limit once. A 429
 * also carries the standard `Retry-After` in whole seconds (RFC 9110 §10.2.3), rounded up.
 *
 * @module http/rateLimit
 */
import type { RequestHandler } from 'express';
import { RateLimiterRes } from 'rate-limiter-flexible';
import type { Database } from '../db/database.ts';
import { createRateLimiter } from '../db/rateLimiters.ts';
import { RateLimitError } from './errors.ts';

/**
 * Creates the middleware. It must run after the validator (for the route template) and after
 * authentication (for the account).
 * @param perSecond Requests allowed per second per operation and account; 0 disables limiting.
 * @param db Where the counters are shared.
 */
export function rateLimit(perSecond: number, db: Database): RequestHandler {
  if (perSecond <= 0) return (_req, _res, next) => next();
  const limiter = createRateLimiter(db, { keyPrefix: 'api', points: perSecond, durationSeconds: 1 });
  return async (req, res, next) => {
    const accountId = req.ctx?.accountId;
    const route = (req as { openapi?: { openApiRoute?: string } }).openapi?.openApiRoute;
    if (!accountId || !route) return next();
    const operation = `${req.method} ${route}`;
    const headers = (result: RateLimiterRes): Record<string, string> => ({
      'x-rate-limit-limit': String(perSecond),
      'x-rate-limit-remaining': String(Math.max(result.remainingPoints, 0)),
      'x-rate-limit-reset': String(Math.ceil((Date.now() + result.msBeforeNext) / 1000)),
      'x-rate-limit-url': operation,
    });
    try {
      const result = await limiter.consume(`${accountId} ${operation}`);
      res.set(headers(result));
      next();
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) return next(rejection);
      const retryAfter = (rejection.msBeforeNext / 1000).toFixed(3);
      next(
        new RateLimitError(`The limit of ${perSecond} requests per second for ${operation} was reached; retry after ${retryAfter} s.`, {
          ...headers(rejection),
          'x-rate-limit-retry-after': retryAfter,
          'Retry-After': String(Math.max(1, Math.ceil(rejection.msBeforeNext / 1000))),
        }),
      );
    }
  };
}
