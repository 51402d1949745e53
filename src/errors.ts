/**
 * Business errors: what services, stores, jobs and protocol modules throw when a rule of the
 * domain refuses a request — something does not exist, conflicts with the current state, is
 * invalid or cannot be processed, or the caller is not authenticated. They know nothing of HTTP:
 * the HTTP edge (src/http/errors.ts) maps each kind to a status and a JSON:API error document
 * (https://jsonapi.org/format/#errors), the one place that does. Modelled on Backstage's
 * `@backstage/errors` ("intentionally analogous to HTTP errors, they are not intended to be
 * thrown by the request handling layer").
 *
 * Every error carries one or more {@link Problem}s: a sentence for the caller and, when the
 * problem is in one place of the request, its JSON:API `source` (a JSON Pointer into the body,
 * RFC 6901, a query or path parameter, or a header).
 *
 * @module errors
 */

/** Where in the request a problem is (JSON:API error object `source`). */
export type ErrorSource = { pointer: string } | { parameter: string } | { header: string };

/** One problem: a sentence for the caller and where it is. */
export interface Problem {
  detail: string;
  source?: ErrorSource;
}

/** The kinds of business failure; the HTTP edge gives each its status. */
export type DomainErrorKind = 'invalid' | 'notFound' | 'gone' | 'conflict' | 'unprocessable' | 'unauthenticated' | 'unavailable';

const problemsOf = (problems: Problem[] | Problem): Problem[] => (Array.isArray(problems) ? problems : [problems]);
const problem = (detail: string, source?: ErrorSource): Problem => ({ detail, ...(source ? { source } : {}) });

/** Base class of business errors: a kind, a stable machine-readable `code` and the problems. */
export abstract class DomainError extends Error {
  abstract readonly kind: DomainErrorKind;
  constructor(
    readonly code: string,
    readonly problems: Problem[],
  ) {
    super(problems.map((p) => p.detail).join(' '));
  }
}

/** The input breaks a rule (HTTP 400). One problem per rule broken. */
export class ValidationError extends DomainError {
  override name = 'ValidationError';
  readonly kind = 'invalid';
  constructor(problems: Problem[] | Problem) {
    super('validation_failed', problemsOf(problems));
  }
}

/** No such resource for this caller; another tenant's resource is reported the same way (HTTP 404). */
export class NotFoundError extends DomainError {
  override name = 'NotFoundError';
  readonly kind = 'notFound';
  constructor(detail: string, source?: ErrorSource) {
    super('not_found', [problem(detail, source)]);
  }
}

/** The resource existed and is gone for good, e.g. a nullified pass's download (HTTP 410). */
export class GoneError extends DomainError {
  override name = 'GoneError';
  readonly kind = 'gone';
  constructor(code: string, detail: string, source?: ErrorSource) {
    super(code, [problem(detail, source)]);
  }
}

/**
 * The request conflicts with the current state: a duplicate, a refused transition, something to
 * set up first (HTTP 409).
 * @param code A stable code when the caller can act on the reason (default `conflict`).
 */
export class ConflictError extends DomainError {
  override name = 'ConflictError';
  readonly kind = 'conflict';
  constructor(detail: string, source?: ErrorSource, code = 'conflict') {
    super(code, [problem(detail, source)]);
  }
}

/**
 * The request is well-formed but cannot be processed as sent (HTTP 422): an `Idempotency-Key`
 * reused for another request, a certificate that is not what it claims to be.
 * @param code A stable code naming the reason, e.g. `idempotency_key_reused`.
 */
export class UnprocessableError extends DomainError {
  override name = 'UnprocessableError';
  readonly kind = 'unprocessable';
  constructor(code: string, detail: string, source?: ErrorSource) {
    super(code, [problem(detail, source)]);
  }
}

/**
 * No valid credentials (HTTP 401). `reason` follows RFC 6750 §3.1: `invalid_request` when the
 * credential is missing or malformed, `invalid_token` when it is unknown, revoked or wrong.
 * `scheme` is the authentication scheme the caller should use (`Bearer` for API keys, `ApplePass`
 * for Apple Wallet's web service calls).
 */
export class AuthenticationError extends DomainError {
  override name = 'AuthenticationError';
  readonly kind = 'unauthenticated';
  constructor(
    detail: string,
    readonly reason: 'invalid_request' | 'invalid_token' = 'invalid_token',
    source: ErrorSource = { header: 'Authorization' },
    readonly scheme: 'Bearer' | 'ApplePass' = 'Bearer',
  ) {
    super('unauthorized', [problem(detail, source)]);
  }
}

/**
 * A sign-in failed (HTTP 401 `sign_in_failed`): wrong address, password or code, an unknown
 * passkey or signature, an unknown or used challenge, a refused single sign-on. One answer for
 * all, so that it does not tell which part was wrong (OWASP Authentication Cheat Sheet,
 * "Authentication and Error Messages").
 */
export class SignInFailedError extends DomainError {
  override name = 'SignInFailedError';
  readonly kind = 'unauthenticated';
  constructor(detail = 'The e-mail address, password or code is not right.') {
    super('sign_in_failed', [problem(detail)]);
  }
}

/**
 * Something the work depends on is away for now (HTTP 503 with `Retry-After`, RFC 9110 §15.6.4):
 * e.g. Google's signing keys of Wallet callbacks cannot be fetched. Nothing was changed.
 * @param retryAfterSeconds Seconds the caller is asked to wait.
 */
export class UnavailableError extends DomainError {
  override name = 'UnavailableError';
  readonly kind = 'unavailable';
  constructor(
    detail: string,
    readonly retryAfterSeconds: number,
  ) {
    super('service_unavailable', [problem(detail)]);
  }
}
