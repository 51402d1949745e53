/**
 * Authentication before anything else of a request is read. For an operation whose contract
 * requires credentials (its `security`, or the document's), the `Authorization` header is checked
 * before the body is parsed, so an anonymous or wrongly authenticated request gets 401 without its
 * body being read, whatever the body holds. The contract's security handlers in the validator
 * then only confirm what this middleware found (src/app.ts).
 *
 * Failed authentications are counted per client address (Express `req.ip`, which honours
 * `TRUST_PROXY`): after `failuresPerMinute` of them within a minute, every request from that
 * address to an authenticated operation is refused with 429 until the minute is over, valid
 * credentials or not, so that guessing keys costs time (OWASP Authentication Cheat Sheet,
 * "Protect against automated attacks"). The 429 carries `Retry-After` (RFC 9110 §10.2.3, whole
 * seconds) and the `x-rate-limit-*` headers of PassEntry's rate limit. The failures are counted
 * where every process and node shares them (src/db/rateLimiters.ts). What the shared count says
 * of an address is remembered by the process for up to a second (a block until it ends), so that
 * a busy client costs one read of the count per second, not one per request (the hot
 * path): a block counted by another process or node reaches this one within a second, one set
 * here at once.
 *
 * @module http/authenticate
 */
import type { Request, RequestHandler } from 'express';
import { LRUCache } from 'lru-cache';
import { RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Clock } from '../clock.ts';
import type { Database } from '../db/database.ts';
import { createRateLimiter } from '../db/rateLimiters.ts';
import { AuthenticationError } from '../errors.ts';
import { verifyAdminToken } from '../security/adminToken.ts';
import type { ApiTokenCache } from '../security/apiTokenCache.ts';
import { authenticateApiToken, bearerCredential } from '../security/apiTokens.ts';
import { applePassCredential } from '../security/applePassCredential.ts';
import type { ApiKeyPrincipal } from '../security/principal.ts';
import ipaddr from 'ipaddr.js';
import { resolveSession } from '../domain/people/personSessions.ts';
import { CSRF_HEADER, csrfTokenMatches, SECURE_SESSION_COOKIE, sessionTokenOf } from '../security/sessions.ts';
import type { Config } from '../config.ts';
import { HttpError, RateLimitError } from './errors.ts';
import type { OpenApiDocument, PathMatch } from './routes.ts';
import { isWarmUpRequest } from './validatorWarmUp.ts';

/** The security schemes of the contract. */
export type SecurityScheme = 'bearerAuth' | 'adminAuth' | 'applePass' | 'sessionCookie';

/** Requests authenticated with the administration token. */
const admins = new WeakSet<Request>();
/**
 * Requests with a well-formed `ApplePass` credential: which pass the token must belong to is in
 * the path, which the operation's handler checks
 * (src/domain/appleDevices/applePassAuthentication.ts).
 */
const applePassRequests = new WeakSet<Request>();

/** Whether {@link authenticateFirst} authenticated `req` with `scheme` (for the validator's security handlers). */
export function authenticatedWith(req: Request, scheme: SecurityScheme): boolean {
  if (isWarmUpRequest(req)) return true;
  if (scheme === 'adminAuth') return admins.has(req);
  if (scheme === 'applePass') return applePassRequests.has(req);
  if (scheme === 'sessionCookie') return req.ctx.principal?.type === 'person';
  return req.ctx.principal?.type === 'api_key';
}

/** What {@link authenticateFirst} needs. */
export interface AuthenticationOptions {
  document: OpenApiDocument;
  /** The app's path matcher over `document` (src/http/routes.ts). */
  match: (path: string) => PathMatch | undefined;
  db: Database;
  clock: Clock;
  /** The administration token; undefined refuses every administration request. */
  adminToken: string | undefined;
  /** Failed authentications allowed per client address per minute; 0 = no limit. */
  failuresPerMinute: number;
  /** API keys verified lately (src/security/apiTokenCache.ts); subscribed to revocations on the first request. */
  apiTokens: ApiTokenCache;
  /** The session timeouts. */
  config: Config;
}

const WINDOW_S = 60;

const ADMINISTRATOR = { type: 'administrator' } as const;

/**
 * @throws AuthenticationError when `principal` names client address ranges and `address` is in
 *   none of them (IPv4-mapped IPv6 addresses compared as IPv4; ipaddr.js).
 */
function refuseAddress(principal: ApiKeyPrincipal, address: string): void {
  if (!principal.allowedCidrs.length) return;
  const client = ipaddr.isValid(address) ? ipaddr.process(address) : undefined;
  const allowed =
    client !== undefined &&
    principal.allowedCidrs.some((cidr) => {
      const [range, bits] = ipaddr.parseCIDR(cidr);
      return range.kind() === client.kind() && client.match(range, bits);
    });
  if (!allowed) throw new AuthenticationError('The API key is not accepted from this client address.');
}

/** The schemes an operation takes, in the contract's order (empty when it requires none, `security: []`). */
export function schemesOf(document: OpenApiDocument, operation: Record<string, unknown>): SecurityScheme[] {
  const security = (operation.security ?? document.security ?? []) as Record<string, unknown>[];
  return security.flatMap((requirement) => Object.keys(requirement)) as SecurityScheme[];
}

/** The first scheme an operation takes, or undefined when it requires none (`security: []`). */
export function schemeOf(document: OpenApiDocument, operation: Record<string, unknown>): SecurityScheme | undefined {
  return schemesOf(document, operation)[0];
}

/**
 * The scheme a request is authenticated with: the first the operation takes, except that an
 * operation taking both an API key and the session cookie is authenticated by the cookie when
 * the request has no `Authorization` header and has the cookie.
 */
function schemeOfRequest(schemes: SecurityScheme[], req: Request): SecurityScheme | undefined {
  if (schemes.includes('sessionCookie') && req.headers.authorization === undefined && (schemes[0] === 'sessionCookie' || sessionTokenOf(req.headers.cookie)))
    return 'sessionCookie';
  return schemes[0];
}

/** The `x-rate-limit-*` and `Retry-After` headers of a refusal that ends in `msBeforeNext`. */
export function throttleHeaders(limit: number, msBeforeNext: number): Record<string, string> {
  return {
    'Retry-After': String(Math.max(1, Math.ceil(msBeforeNext / 1000))),
    'x-rate-limit-limit': String(limit),
    'x-rate-limit-remaining': '0',
    'x-rate-limit-reset': String(Math.ceil((Date.now() + msBeforeNext) / 1000)),
    'x-rate-limit-retry-after': (msBeforeNext / 1000).toFixed(3),
  };
}

/** How long a process trusts what it read of an address's failure count, in ms. */
const FAILURE_COUNT_MEMORY_MS = 1_000;

/**
 * The failed authentications per address, read from the shared limiter and remembered per
 * process: an address under the limit for {@link FAILURE_COUNT_MEMORY_MS}, a blocked one until
 * its block ends. At most 10,000 addresses are remembered (the least recent are forgotten and
 * read again).
 */
class FailureCounts {
  readonly #limiter: RateLimiterAbstract;
  readonly #limit: number;
  /** Per address: when its block ends (ms since the epoch), or 0 when it is not blocked. */
  readonly #known = new LRUCache<string, { blockedUntil: number }>({ max: 10_000, ttl: FAILURE_COUNT_MEMORY_MS });

  constructor(limiter: RateLimiterAbstract, limit: number) {
    this.#limiter = limiter;
    this.#limit = limit;
  }

  /** When the address's block ends (ms since the epoch), or 0 when it is not blocked. */
  async blockedUntil(address: string): Promise<number> {
    const known = this.#known.get(address);
    if (known && (known.blockedUntil === 0 || known.blockedUntil > Date.now())) return known.blockedUntil;
    const counted = await this.#limiter.get(address);
    const blockedUntil = counted && counted.consumedPoints >= this.#limit ? Date.now() + counted.msBeforeNext : 0;
    this.#known.set(address, { blockedUntil }, blockedUntil ? { ttl: blockedUntil - Date.now() } : {});
    return blockedUntil;
  }

  /** Counts one failure of the address (and forgets what was known of it, so the next request reads the count). */
  async fail(address: string): Promise<void> {
    this.#known.delete(address);
    await this.#limiter.penalty(address, 1).catch((rejection: unknown) => {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
    });
  }
}

/**
 * Express middleware; runs before the body parser. Requests to paths or methods the contract does
 * not have, and operations without security, pass untouched (the validator answers 404/405).
 * @throws (through `next`) AuthenticationError (401), RateLimitError (429), or a database error.
 */
export function authenticateFirst(options: AuthenticationOptions): RequestHandler {
  const { document, match, db, clock, adminToken, failuresPerMinute, apiTokens } = options;
  const failures =
    failuresPerMinute > 0
      ? new FailureCounts(createRateLimiter(db, { keyPrefix: 'auth-failures', points: failuresPerMinute, durationSeconds: WINDOW_S }), failuresPerMinute)
      : undefined;
  return async (req, _res, next) => {
    const served = match(req.path)?.operation(req.method);
    const scheme = served && schemeOfRequest(schemesOf(document, served.operation), req);
    if (!scheme) return next();
    const address = req.ip ?? req.socket.remoteAddress ?? 'unknown';
    try {
      const blockedUntil = failures ? await failures.blockedUntil(address) : 0;
      if (blockedUntil) {
        const msBeforeNext = Math.max(blockedUntil - Date.now(), 0);
        throw new RateLimitError(
          `Too many failed authentications from this address; retry after ${Math.ceil(msBeforeNext / 1000)} s.`,
          throttleHeaders(failuresPerMinute, msBeforeNext),
        );
      }
      try {
        if (scheme === 'adminAuth') {
          verifyAdminToken(adminToken, req.headers.authorization);
          admins.add(req);
          req.ctx.principal = ADMINISTRATOR;
        } else if (scheme === 'applePass') {
          applePassCredential(req.headers.authorization);
          applePassRequests.add(req);
        } else if (scheme === 'sessionCookie') {
          const token = sessionTokenOf(req.headers.cookie);
          if (!token) throw new AuthenticationError('Sign in first: the session cookie is missing.', 'invalid_request', { header: 'Cookie' });
          const principal = await resolveSession(db.prisma, options.config, token, clock.now());
          // What the validator's cookie check reads (express-openapi-validator looks in
          // req.cookies, which only cookie-parser would fill), under the name the contract gives.
          req.cookies = { [SECURE_SESSION_COOKIE]: token };
          req.ctx.principal = principal;
          req.ctx.accountId = principal.accountId;
          sessionRequests.set(req, token);
        } else {
          await apiTokens.start();
          const principal = await authenticateApiToken(db.prisma, bearerCredential(req.headers.authorization), clock.now(), apiTokens);
          refuseAddress(principal, address);
          req.ctx.principal = principal;
          req.ctx.accountId = principal.accountId;
        }
      } catch (error) {
        if (error instanceof AuthenticationError && failures) await failures.fail(address);
        throw error;
      }
      if (scheme === 'sessionCookie') refuseForgedSessionRequest(req, served!.operation.operationId as string);
      next();
    } catch (error) {
      next(error);
    }
  };
}

/** The session token of a request authenticated by the cookie. */
const sessionRequests = new WeakMap<Request, string>();

/** The session token `req` was authenticated with (src/security/sessions.ts), or undefined. */
export function sessionTokenOfRequest(req: Request): string | undefined {
  return sessionRequests.get(req);
}

/** Methods that change state: with the cookie, they need the CSRF token. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Operations a session of an owner or admin signed in with a password alone may call: seeing the
 * session, signing out, and enrolling a second factor (a TOTP or a passkey).
 */
const SECOND_FACTOR_ENROLMENT = new Set([
  'getSession',
  'signOut',
  'createTotpEnrollment',
  'confirmTotpEnrollment',
  'listPasskeys',
  'createPasskeyRegistrationOptions',
  'registerPasskey',
]);

/**
 * What a single sign-on session may not do: change the person's own credentials and sessions. An
 * account's issuer vouches for the person in that account only (src/domain/people/singleSignOn.ts).
 */
const PERSON_CREDENTIALS = new Set([
  'setPassword',
  'createTotpEnrollment',
  'confirmTotpEnrollment',
  'createPasskeyRegistrationOptions',
  'registerPasskey',
  'deletePasskey',
  'listSessions',
  'endSession',
  'endAllSessions',
]);

/**
 * Refuses a cookie-authenticated request that another site sent (Fetch Metadata,
 * `Sec-Fetch-Site: cross-site`, https://www.w3.org/TR/fetch-metadata/), one that changes state
 * without the session's CSRF token (src/security/sessions.ts), and, for a session that must
 * enrol a second factor first, any other operation.
 * @throws HttpError 403 `csrf_refused` or `second_factor_required`.
 */
function refuseForgedSessionRequest(req: Request, operationId: string): void {
  if (req.headers['sec-fetch-site'] === 'cross-site') throw csrfRefused('The request came from another site.');
  if (!SAFE_METHODS.has(req.method) && !csrfTokenMatches(sessionRequests.get(req)!, req.get(CSRF_HEADER)))
    throw csrfRefused("A request with the session cookie that changes something must send the session's X-CSRF-Token.");
  const principal = req.ctx.principal;
  if (principal?.type === 'person' && principal.singleSignOn && PERSON_CREDENTIALS.has(operationId))
    throw new HttpError(403, 'single_sign_on_session', 'Signed in through single sign-on', [
      {
        detail:
          "Signed in through an account's single sign-on, you cannot change your own sign-in methods or sessions: sign in with a passkey or password for that.",
      },
    ]);
  if (principal?.type === 'person' && principal.secondFactorRequired && !SECOND_FACTOR_ENROLMENT.has(operationId))
    throw new HttpError(403, 'second_factor_required', 'Second factor required', [
      { detail: 'An owner or admin needs a second factor: enrol a TOTP authenticator or a passkey first.' },
    ]);
}

/** 403 `csrf_refused` (openapi/components/responses/CrossSiteRefused.yaml). */
function csrfRefused(detail: string): HttpError {
  return new HttpError(403, 'csrf_refused', 'Cross-site request refused', [{ detail, source: { header: 'X-CSRF-Token' } }]);
}
