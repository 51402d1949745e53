/**
 * Telling "the database is not there" from every other database error, so that the HTTP edge can
 * answer 503 with `Retry-After` (RFC 9110 §15.6.4) — a condition that passes — instead of 500,
 * and readiness can report it.
 *
 * Recognised, anywhere in an error's `cause` chain or Prisma's `meta`:
 * - Prisma's connection errors (Prisma docs, error reference): P1001 can't reach the server,
 *   P1002 timed out, P1008 operation timed out, P1017 server closed the connection, P2024 timed
 *   out waiting for a pooled connection;
 * - PostgreSQL SQLSTATEs (PostgreSQL docs, Appendix A): class 08 connection exception, class 53
 *   insufficient resources (e.g. 53300 too many connections), 57P01–57P03 (administrator or crash
 *   shutdown, cannot connect now);
 * - Node.js socket errors (ECONNREFUSED, ECONNRESET, ETIMEDOUT, EPIPE, ENOTFOUND, EAI_AGAIN,
 *   EHOSTUNREACH, ENETUNREACH);
 * - a closed handle: node-postgres's ended pool or terminated connection, a closed PGlite.
 *
 * @module db/unavailable
 */

const PRISMA_CODES = new Set(['P1001', 'P1002', 'P1008', 'P1017', 'P2024']);
const NODE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);
const SQLSTATE = /^(08[0-9A-Z]{3}|53[0-9A-Z]{3}|57P0[123])$/;
const MESSAGES =
  /PGlite is closed|Cannot use a pool after calling end|Connection terminated|Client has encountered a connection error|Can't reach database server|timeout exceeded when trying to connect|server closed the connection/i;

interface ErrorLike {
  code?: unknown;
  message?: unknown;
  cause?: unknown;
  meta?: { code?: unknown; message?: unknown };
}

/** True when `error` says the database cannot be reached or has gone away (see the module comment). */
export function isDatabaseUnavailable(error: unknown): boolean {
  const seen = new Set<unknown>();
  for (let current = error as ErrorLike | undefined; current && typeof current === 'object' && !seen.has(current); current = current.cause as ErrorLike) {
    seen.add(current);
    const code = typeof current.code === 'string' ? current.code : undefined;
    if (code && (PRISMA_CODES.has(code) || NODE_CODES.has(code) || SQLSTATE.test(code))) return true;
    const metaCode = typeof current.meta?.code === 'string' ? current.meta.code : undefined;
    if (metaCode && SQLSTATE.test(metaCode)) return true;
    for (const text of [current.message, current.meta?.message]) if (typeof text === 'string' && MESSAGES.test(text)) return true;
  }
  return false;
}
