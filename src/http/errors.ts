/**
 * Failures as HTTP answers. {@link HttpError} is an error with its status, stable `code`,
 * `title`, problems and response headers; {@link httpErrorOf} is the one mapping of business
 * errors (src/errors.ts) to it. The error handler (src/http/errorHandler.ts) renders either as a
 * JSON:API error document (https://jsonapi.org/format/#errors).
 *
 * @module http/errors
 */
import { AuthenticationError, UnavailableError, type DomainError, type DomainErrorKind, type Problem } from '../errors.ts';

/** An error with everything its HTTP answer needs. */
export class HttpError extends Error {
  override name = 'HttpError';
  constructor(
    readonly status: number,
    readonly code: string,
    readonly title: string,
    readonly problems: Problem[],
    readonly headers: Record<string, string> = {},
  ) {
    super(problems.map((p) => p.detail).join(' '));
  }
}

/** 429: rate limit reached (RFC 6585 §4), with the limiter's headers. */
export class RateLimitError extends HttpError {
  override name = 'RateLimitError';
  constructor(detail: string, headers: Record<string, string>) {
    super(429, 'rate_limited', 'Too many requests', [{ detail }], headers);
  }
}

/** Seconds a client is asked to wait (`Retry-After`) when the database is unavailable. */
export const UNAVAILABLE_RETRY_AFTER_S = 5;

/**
 * 503: the service cannot answer for now — the database is unavailable (RFC 9110 §15.6.4), with
 * `Retry-After` in whole seconds (RFC 9110 §10.2.3).
 */
export class ServiceUnavailableError extends HttpError {
  override name = 'ServiceUnavailableError';
  constructor(detail: string, retryAfterSeconds = UNAVAILABLE_RETRY_AFTER_S) {
    super(503, 'service_unavailable', 'Service unavailable', [{ detail }], { 'Retry-After': String(retryAfterSeconds) });
  }
}

/** Status and title of each kind of business error. */
const STATUS: Record<DomainErrorKind, { status: number; title: string }> = {
  invalid: { status: 400, title: 'Invalid request' },
  unauthenticated: { status: 401, title: 'Authentication required' },
  notFound: { status: 404, title: 'Resource not found' },
  gone: { status: 410, title: 'Gone' },
  conflict: { status: 409, title: 'Conflict' },
  unprocessable: { status: 422, title: 'Unprocessable content' },
  unavailable: { status: 503, title: 'Service unavailable' },
};

/** The realm of `WWW-Authenticate` challenges. */
const REALM = 'wallet-pass-service';

/**
 * The HTTP answer of a business error. A 401 carries a `WWW-Authenticate` challenge (RFC 9110,
 * section 11.6.1) of the error's scheme, with the RFC 6750 §3 error code.
 */
export function httpErrorOf(error: DomainError): HttpError {
  const { status, title } = STATUS[error.kind];
  const headers: Record<string, string> = {};
  if (error instanceof AuthenticationError) {
    headers['WWW-Authenticate'] = `${error.scheme} realm="${REALM}", error="${error.reason}"`;
  }
  if (error instanceof UnavailableError) headers['Retry-After'] = String(error.retryAfterSeconds);
  return new HttpError(status, error.code, title, error.problems, headers);
}
