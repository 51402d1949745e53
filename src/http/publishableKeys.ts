/**
 * Publishable keys (`wps_pk_…`) in web pages: CORS for the origins they name, and a rate limit of
 * their own per origin and client address. What such a key may call (`createPass` from its
 * templates, with an `Idempotency-Key`) is src/http/authorize.ts's check.
 *
 * CORS (Fetch Standard, https://fetch.spec.whatwg.org/#http-cors-protocol):
 * - a preflight (`OPTIONS` with `Origin` and `Access-Control-Request-Method`) of the publishable
 *   operation's path and method carries no key, so it is answered for an origin that some live
 *   publishable key names: `204` with `Access-Control-Allow-Origin` (that origin),
 *   `-Allow-Methods`, `-Allow-Headers` (`Authorization`, `Content-Type`, `Idempotency-Key`) and
 *   `-Max-Age`; any other origin gets `403 origin_not_allowed` and no CORS header, so the
 *   browser sends nothing;
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
import type { Request, RequestHandler, Response } from 'express';
import { RateLimiterRes } from 'rate-limiter-flexible';
import type { Clock } from '../clock.ts';
import { isPublishableOrigin } from '../db/apiTokenStore.ts';
import type { Database } from '../db/database.ts';
import { createRateLimiter } from '../db/rateLimiters.ts';
import { PUBLISHABLE_OPERATION } from '../security/principal.ts';
import { HttpError, RateLimitError } from './errors.ts';
import type { PathMatch } from './routes.ts';

/** 403: the request's `Origin` is not one a publishable key names. */
export class OriginNotAllowedError extends HttpError {
  override name = 'OriginNotAllowedError';
  constructor(origin: string) {
    super(403, 'origin_not_allowed', 'Origin not allowed', [
      { detail: `The origin ${origin} is not one of the publishable key's allowed origins.`, source: { header: 'Origin' } },
    ]);
  }
}

/** What the middlewares need. */
export interface PublishableOptions {
  db: Database;
  clock: Clock;
  match: (path: string) => PathMatch | undefined;
  /** Requests per minute per origin and client address (`PUBLISHABLE_RATE_LIMIT_PER_MINUTE`); 0 = no limit. */
  perMinute: number;
}

/** The request headers a page sends with a publishable key. */
const ALLOWED_HEADERS = 'Authorization, Content-Type, Idempotency-Key';
/** The response headers a page may read. */
const EXPOSED_HEADERS = 'Idempotent-Replayed, Retry-After, x-rate-limit-limit, x-rate-limit-remaining, x-rate-limit-reset, x-rate-limit-retry-after';
/** How long a browser keeps a preflight's answer, in seconds. */
const PREFLIGHT_MAX_AGE_S = 600;

/** The method (upper-case) of `path` that serves the publishable operation, if any. */
function publishableMethod(match: PublishableOptions['match'], path: string, method: string): boolean {
  return match(path)?.operation(method)?.operation.operationId === PUBLISHABLE_OPERATION;
}

/**
 * The two middlewares: `preflight` before authentication (answers the CORS preflights of the
 * publishable operation), `requests` after it (CORS and the rate limit of requests made with a
 * publishable key). See the module comment.
 */
export function publishableKeys(options: PublishableOptions): { preflight: RequestHandler; requests: RequestHandler } {
  const limiter = options.perMinute > 0 ? createRateLimiter(options.db, { keyPrefix: 'publishable', points: options.perMinute, durationSeconds: 60 }) : null;

  /** Counts a request of `origin` from the client's address; rejects with RateLimitError past the limit. */
  const limit = async (req: Request, res: Response, origin: string) => {
    if (!limiter) return;
    const headers = (result: RateLimiterRes) => ({
      'x-rate-limit-limit': String(options.perMinute),
      'x-rate-limit-remaining': String(Math.max(result.remainingPoints, 0)),
      'x-rate-limit-reset': String(Math.ceil((Date.now() + result.msBeforeNext) / 1000)),
    });
    try {
      res.set(headers(await limiter.consume(`${origin} ${req.ip ?? req.socket.remoteAddress ?? ''}`)));
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      const retryAfter = (rejection.msBeforeNext / 1000).toFixed(3);
      throw new RateLimitError(`The limit of ${options.perMinute} requests per minute for a publishable key from ${origin} and this address was reached.`, {
        ...headers(rejection),
        'x-rate-limit-retry-after': retryAfter,
        'Retry-After': String(Math.max(1, Math.ceil(rejection.msBeforeNext / 1000))),
      });
    }
  };

  const preflight: RequestHandler = async (req, res, next) => {
    const origin = req.headers.origin;
    const requested = req.headers['access-control-request-method'];
    if (req.method !== 'OPTIONS' || !origin || typeof requested !== 'string') return next();
    if (!publishableMethod(options.match, req.path, requested.toUpperCase())) return next();
    try {
      await limit(req, res, origin);
      if (!(await isPublishableOrigin(options.db.prisma, origin, options.clock.now()))) throw new OriginNotAllowedError(origin);
      res.set({
        'Access-Control-Allow-Origin': origin,
        'Access-Control-Allow-Methods': requested.toUpperCase(),
        'Access-Control-Allow-Headers': ALLOWED_HEADERS,
        'Access-Control-Max-Age': String(PREFLIGHT_MAX_AGE_S),
        Vary: 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers',
      });
      res.status(204).end();
    } catch (error) {
      next(error);
    }
  };

  const requests: RequestHandler = async (req, res, next) => {
    const principal = req.ctx.principal;
    if (principal?.type !== 'api_key' || principal.kind !== 'publishable') return next();
    const origin = req.headers.origin;
    try {
      if (origin !== undefined) {
        if (!principal.allowedOrigins.includes(origin)) throw new OriginNotAllowedError(origin);
        res.set({ 'Access-Control-Allow-Origin': origin, 'Access-Control-Expose-Headers': EXPOSED_HEADERS, Vary: 'Origin' });
      }
      await limit(req, res, origin ?? '(no origin)');
      next();
    } catch (error) {
      next(error);
    }
  };

  return { preflight, requests };
}
