/**
 * Request URLs as they may be logged: the value of every query parameter whose name looks like a
 * credential (`apiKey`, `api_key`, `token`, `access_token`, `secret`, `password`, `signature`,
 * `auth`, `session`, `code` …) is replaced by `[redacted]`, so that a key sent in a query string
 * by mistake never reaches a log line (OWASP Logging Cheat Sheet: "access tokens … passwords …
 * should not be recorded directly"). The path and the other parameters are kept as sent.
 *
 * @module http/redact
 */

/** Names of query parameters whose values are never logged (matched anywhere in the name, any case). */
export const SECRET_PARAMETER = /key|token|secret|passw|pwd|auth|sig|session|credential|cookie|^code$/i;

/**
 * `url` (path and query, as in `req.url`) with secret-looking query values redacted.
 * Parameters are the `&`-separated `name=value` pairs as sent; names are compared
 * percent-decoded, and an undecodable name is redacted too.
 */
export function redactUrl(url: string): string {
  const queryAt = url.indexOf('?');
  if (queryAt < 0) return url;
  const pairs = url
    .slice(queryAt + 1)
    .split('&')
    .map((pair) => {
      const equals = pair.indexOf('=');
      const rawName = equals < 0 ? pair : pair.slice(0, equals);
      let name: string;
      try {
        name = decodeURIComponent(rawName.replace(/\+/g, ' '));
      } catch {
        return `${rawName}=[redacted]`;
      }
      return SECRET_PARAMETER.test(name) && equals >= 0 ? `${rawName}=[redacted]` : pair;
    });
  return `${url.slice(0, queryAt)}?${pairs.join('&')}`;
}
