/**
 * Domain and HTTP failures. Handlers and services throw these; the error handler
 * (src/http/errorHandler.ts) is the one place that turns them into JSON:API error documents.
 *
 * @module http/errors
 */

/** Where in the request a problem is (JSON:API error `source`). */
export type ErrorSource = { pointer: string } | { parameter: string } | { header: string };

/** One problem, before it becomes a JSON:API error object. */
export interface Problem {
  detail: string;
  source?: ErrorSource;
}

/** Base class: an HTTP status, a stable `code`, a `title` and one or more problems. */
export class AppError extends Error {
  override name = 'AppError';
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

/** 400: the input is invalid. */
export class ValidationError extends AppError {
  constructor(problems: Problem[] | Problem) {
    super(400, 'validation_failed', 'Invalid request', Array.isArray(problems) ? problems : [problems]);
  }
}

/** 401: no valid credentials. Carries `WWW-Authenticate: Bearer` (RFC 6750 §3). */
export class UnauthorizedError extends AppError {
  constructor(detail: string, error: 'invalid_request' | 'invalid_token' = 'invalid_token') {
    super(401, 'unauthorized', 'Authentication required', [{ detail, source: { header: 'Authorization' } }], {
      'WWW-Authenticate': `Bearer realm="wallet-pass-service", error="${error}"`,
    });
  }
}

/** 404: no such resource in this account (another tenant's resource is reported the same way). */
export class NotFoundError extends AppError {
  constructor(detail: string, source?: ErrorSource) {
    super(404, 'not_found', 'Resource not found', [{ detail, ...(source ? { source } : {}) }]);
  }
}

/** 409: the request conflicts with the current state (duplicate, forbidden transition). */
export class ConflictError extends AppError {
  constructor(detail: string, source?: ErrorSource) {
    super(409, 'conflict', 'Conflict', [{ detail, ...(source ? { source } : {}) }]);
  }
}

/**
 * 422: the request is well-formed but cannot be processed as sent (e.g. an `Idempotency-Key`
 * reused for a different request, src/http/idempotency.ts).
 */
export class UnprocessableContentError extends AppError {
  constructor(code: string, detail: string, source?: ErrorSource) {
    super(422, code, 'Unprocessable content', [{ detail, ...(source ? { source } : {}) }]);
  }
}

/** 429: rate limit reached. */
export class RateLimitError extends AppError {
  constructor(detail: string, headers: Record<string, string>) {
    super(429, 'rate_limited', 'Too many requests', [{ detail }], headers);
  }
}
