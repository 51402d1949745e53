/**
 * Publishable keys (`wps_pk_…`) in web pages: CORS for the origins they name, and a rate limit of
 * their own per origin and client address. What such a key may call (`createPass` from its
 * templates, with an `Idempotency-Key`) is src/http/authorize.ts's check.
 *
 * CORS (Fetch Standard, https://fetch.spec.whatwg.org/#http-cors-protocol):
 * - a preflight (`OPTIONS` with `Origin` and `Access-Control-Request-Method`) of the publishable
 *   operation carries no key: it is the contract's operation `preflightCreatePass`
 *   (src/api/passes/preflightCreatePass.ts, answered by {@link answerPreflight}), answered for an
 *   origin that some live publishable key names: `204` with `Access-Control-Allow-Origin` (that
 *   origin), `-Allow-Methods`, `-Allow-Headers` (`Authorization`, `Content-Type`,
 *   `Idempotency-Key`) and `-Max-Age`; any other origin gets `403 origin_not_allowed` and no CORS
 *   header, so the browser sends nothing;
 * - a request with a publishable key and an `Origin` the key does not name is refused the same
 *   way; from an origin it names, the answer — an error too — carries
 *   `Access-Control-Allow-Origin` and exposes the headers a page reads (`Idempotent-Replayed`,
 *   the rate-limit headers). A request without `Origin` is not a browser's cross-origin request
 *   and passes (a server may hold a publishable key like any other).
 *
 * Rate limit: {@link PublishableOptions.perMinute} requests per minute per origin and client
 * address, preflights included (rate-limiter-flexible, shared by every process as the API's
 * limit is, src/db/rateLimiters.ts), on top of the account's per-operation limit
 * (src/http/rateLimit.ts): one page cannot spend its account's limit for everyone.
 *
 * @module http/publishableKeys
 */
import type { RequestHandler } from 'express';
import { type RateLimiterAbstract, RateLimiterRes } from 'rate-limiter-flexible';
import type { Clock } from '../clock.ts';
import { isPublishableOrigin } from '../db/apiTokenStore.ts';
import type { Database } from '../db/database.ts';
import { createRateLimiter } from '../db/rateLimiters.ts';
import { ValidationError } from '../errors.ts';
import { HttpError, RateLimitError } from './errors.ts';

/** 403: the request's `Origin` is not one a publishable key names; `headers` go out with it (the rate-limit headers of a preflight). */
export class OriginNotAllowedError extends HttpError {
  override name = 'OriginNotAllowedError';
  constructor(origin: string, headers: Record<string, string> = {}) {
    super(
      403,
      'origin_not_allowed',
      'Origin not allowed',
      [{ detail: `The origin ${origin} is not one of the publishable key's allowed origins.`, source: { header: 'Origin' } }],
      headers,
    );
  }
}

/** The request headers a page sends with a publishable key. */
const ALLOWED_HEADERS = 'Authorization, Content-Type, Idempotency-Key';
/** The response headers a page may read. */
const EXPOSED_HEADERS = 'Idempotent-Replayed, Retry-After, x-rate-limit-limit, x-rate-limit-remaining, x-rate-limit-reset, x-rate-limit-retry-after';
/** How long a browser keeps a preflight's answer, in seconds. */
const PREFLIGHT_MAX_AGE_S = 600;
/** The method of the publishable operation (createPass, `POST /api/v1/passes`), the one a preflight may ask for. */
const PUBLISHABLE_METHOD = 'POST';

/** The limiter of each database and limit: the preflight handler and the request middleware count in the same one (in memory on PGlite). */
const limiters = new WeakMap<Database, Map<number, RateLimiterAbstract>>();

function limiterOf(db: Database, perMinute: number): RateLimiterAbstract {
  const byLimit = limiters.get(db) ?? new Map<number, RateLimiterAbstract>();
  limiters.set(db, byLimit);
  const limiter = byLimit.get(perMinute) ?? createRateLimiter(db, { keyPrefix: 'publishable', points: perMinute, durationSeconds: 60 });
  byLimit.set(perMinute, limiter);
  return limiter;
}

/**
 * Counts one request (or preflight) of `origin` from `address` against the publishable keys'
 * limit of `perMinute` a minute (0: no limit).
 * @returns The `x-rate-limit-*` headers of the answer (none without a limit).
 * @throws RateLimitError past the limit, with `Retry-After` and the same headers.
 */
async function countRequest(db: Database, perMinute: number, origin: string, address: string): Promise<Record<string, string>> {
  if (perMinute <= 0) return {};
  const headers = (result: RateLimiterRes) => ({
    'x-rate-limit-limit': String(perMinute),
    'x-rate-limit-remaining': String(Math.max(result.remainingPoints, 0)),
    'x-rate-limit-reset': String(Math.ceil((Date.now() + result.msBeforeNext) / 1000)),
  });
  try {
    return headers(await limiterOf(db, perMinute).consume(`${origin} ${address}`));
  } catch (rejection) {
    if (!(rejection instanceof RateLimiterRes)) throw rejection;
    const retryAfter = (rejection.msBeforeNext / 1000).toFixed(3);
    throw new RateLimitError(`The limit of ${perMinute} requests per minute for a publishable key from ${origin} and this address was reached.`, {
      ...headers(rejection),
      'x-rate-limit-retry-after': retryAfter,
      'Retry-After': String(Math.max(1, Math.ceil(rejection.msBeforeNext / 1000))),
    });
  }
}

/** A CORS preflight of the publishable operation (see the module comment). */
export interface Preflight {
  db: Database;
  clock: Clock;
  /** `PUBLISHABLE_RATE_LIMIT_PER_MINUTE`; 0 = no limit. */
  perMinute: number;
  /** The `Origin` header. */
  origin: string;
  /** The `Access-Control-Request-Method` header. */
  requestedMethod: string;
  /** The client's address (Express `req.ip`). */
  address: string;
}

/**
 * Answers a CORS preflight of createPass: counts it against the publishable keys' limit of its
 * origin and address, then allows the origin when a live publishable key names it.
 * @returns The headers of the `204`: the CORS headers and the rate-limit headers.
 * @throws ValidationError (`source.header` `Access-Control-Request-Method`) for a method other
 *   than createPass's; RateLimitError past the limit; OriginNotAllowedError for an origin no
 *   live publishable key names.
 */
export async function answerPreflight(preflight: Preflight): Promise<Record<string, string>> {
  const method = preflight.requestedMethod.toUpperCase();
  if (method !== PUBLISHABLE_METHOD) {
    throw new ValidationError({
      detail: `A web page may only ${PUBLISHABLE_METHOD} (issue passes with a publishable key) here, not ${preflight.requestedMethod}.`,
      source: { header: 'Access-Control-Request-Method' },
    });
  }
  const limit = await countRequest(preflight.db, preflight.perMinute, preflight.origin, preflight.address);
  if (!(await isPublishableOrigin(preflight.db.prisma, preflight.origin, preflight.clock.now()))) throw new OriginNotAllowedError(preflight.origin, limit);
  return {
    ...limit,
    'Access-Control-Allow-Origin': preflight.origin,
    'Access-Control-Allow-Methods': method,
    'Access-Control-Allow-Headers': ALLOWED_HEADERS,
    'Access-Control-Max-Age': String(PREFLIGHT_MAX_AGE_S),
    Vary: 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers',
  };
}

/** What the middleware needs. */
export interface PublishableOptions {
  db: Database;
  /** Requests per minute per origin and client address (`PUBLISHABLE_RATE_LIMIT_PER_MINUTE`); 0 = no limit. */
  perMinute: number;
}

/**
 * The middleware, after authentication: CORS and the rate limit of requests made with a
 * publishable key (see the module comment).
 */
export function publishableRequests(options: PublishableOptions): RequestHandler {
  return async (req, res, next) => {
    const principal = req.ctx.principal;
    if (principal?.type !== 'api_key' || principal.kind !== 'publishable') return next();
    const origin = req.headers.origin;
    try {
      if (origin !== undefined) {
        if (!principal.allowedOrigins.includes(origin)) throw new OriginNotAllowedError(origin);
        res.set({ 'Access-Control-Allow-Origin': origin, 'Access-Control-Expose-Headers': EXPOSED_HEADERS, Vary: 'Origin' });
      }
      res.set(await countRequest(options.db, options.perMinute, origin ?? '(no origin)', req.ip ?? req.socket.remoteAddress ?? ''));
      next();
    } catch (error) {
      next(error);
    }
  };
}
