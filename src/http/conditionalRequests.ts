/**
 * Conditional GET (RFC 9110 §13): whether a representation the client holds is still current.
 *
 * @module http/conditionalRequests
 */
import type { IncomingHttpHeaders } from 'node:http';

/**
 * True when the client's copy is current: `If-None-Match` lists the entity tag (or `*`), or —
 * only when `If-None-Match` is absent (RFC 9110 §13.1.3) — `If-Modified-Since` is not before the
 * last modification, compared at whole seconds as HTTP dates carry them.
 */
export function notModified(headers: IncomingHttpHeaders, current: { etag?: string; lastModified: Date }): boolean {
  const ifNoneMatch = headers['if-none-match'];
  if (ifNoneMatch !== undefined && current.etag !== undefined) {
    return ifNoneMatch.split(',').some((tag) => {
      const trimmed = tag.trim();
      return trimmed === '*' || trimmed.replace(/^W\//, '') === current.etag;
    });
  }
  const ifModifiedSince = headers['if-modified-since'];
  if (ifModifiedSince === undefined) return false;
  const since = Date.parse(ifModifiedSince);
  return !Number.isNaN(since) && Math.floor(current.lastModified.getTime() / 1000) <= Math.floor(since / 1000);
}
