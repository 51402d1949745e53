/**
 * Request URLs as they may be logged: the value of every query parameter whose name looks like a
 * credential (`apiKey`, `api_key`, `token`, `access_token`, `secret`, `password`, `signature`,
 * `auth`, `session`, `code` …) is replaced by `[redacted]`, so that a key sent in a query string
 * by mistake never reaches a log line (OWASP Logging Cheat Sheet: "access tokens … passwords …
 * should not be recorded directly"), and the pass id in every path that holds one — the holder
 * page and pass files (`/passes/{id}`, `/passes/{id}/apple`, `/passes/{id}/google`), where the
 * pass UUID is the capability, and the API and Apple Wallet web service paths that name the same
 * pass — is shortened to its first characters (src/logger.ts `shortenId`). The rest is kept as sent.
 *
 * @module http/redact
 */
import { shortenId } from '../logger.ts';

/**
 * Paths (as in openapi/paths/) whose second capture group is a pass id: the holder page and pass
 * files, the API's passes and loyalty, and Apple's `serialNumber` (the pass id, src/wallet/apple).
 * Case-insensitive and tolerant of repeated slashes, as Express's router is.
 */
const PASS_ID_IN_PATH = [
  /^(\/+passes\/+)([^/]+)/i,
  /^(\/+api\/+v1\/+(?:passes|loyalty)\/+)([^/]+)/i,
  /^(\/+wallet\/+apple\/+v1\/+passes\/+[^/]+\/+)([^/]+)/i,
  /^(\/+wallet\/+apple\/+v1\/+devices\/+[^/]+\/+registrations\/+[^/]+\/+)([^/]+)/i,
];

/** `path` (no query) with the pass id it holds, if any, shortened. */
export function redactPath(path: string): string {
  for (const pattern of PASS_ID_IN_PATH) {
    const match = pattern.exec(path);
    if (match) return `${match[1]}${shortenId(match[2]!)}${path.slice(match[0].length)}`;
  }
  return path;
}

/** Names of query parameters whose values are never logged (matched anywhere in the name, any case). */
export const SECRET_PARAMETER = /key|token|secret|passw|pwd|auth|sig|session|credential|cookie|^code$/i;

/**
 * `url` (path and query, as in `req.url`) with its pass id shortened ({@link redactPath}) and
 * secret-looking query values redacted.
 * Parameters are the `&`-separated `name=value` pairs as sent; names are compared
 * percent-decoded, and an undecodable name is redacted too.
 */
export function redactUrl(url: string): string {
  const queryAt = url.indexOf('?');
  if (queryAt < 0) return redactPath(url);
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
  return `${redactPath(url.slice(0, queryAt))}?${pairs.join('&')}`;
}
