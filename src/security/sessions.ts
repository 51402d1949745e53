/**
 * Console sessions: the cookie, its token and the CSRF token bound to it.
 *
 * - The cookie holds 32 random bytes (base64url, 43 characters); the database keeps only their
 *   SHA-256 (src/domain/people/personSessionStore.ts), as for API keys, so a copy of the database
 *   signs nobody in, and ending a session there ends it on every process.
 * - Its name is `__Host-wps_session` with `Secure` when the service is reached over HTTPS (the
 *   `__Host-` prefix pins it to this host and path `/`, draft-ietf-httpbis-rfc6265bis §4.1.3.2,
 *   https://datatracker.ietf.org/doc/html/draft-ietf-httpbis-rfc6265bis#section-4.1.3.2), else
 *   `wps_session` (a browser refuses a `__Host-` cookie without `Secure`). Always `HttpOnly`,
 *   `SameSite=Lax`, `Path=/`, and a session cookie (no `Max-Age`): the server ends sessions.
 * - The CSRF token is HMAC-SHA256(session token, "csrf"), so it needs no storage, differs per
 *   session and cannot be derived without the cookie (a "signed double-submit cookie" bound to
 *   the session, OWASP CSRF Prevention Cheat Sheet,
 *   https://cheatsheetseries.owasp.org/cheatsheets/Cross-Site_Request_Forgery_Prevention_Cheat_Sheet.html).
 *
 * @module security/sessions
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { parse as parseCookies, serialize as serializeCookie } from 'cookie';

/** The cookie's name over HTTPS (the contract's `sessionCookie` scheme names it). */
export const SECURE_SESSION_COOKIE = '__Host-wps_session';
/** The cookie's name over plain HTTP. */
export const PLAIN_SESSION_COOKIE = 'wps_session';
/** The header that carries the CSRF token. */
export const CSRF_HEADER = 'x-csrf-token';
/** Shape of a session token: 43 base64url characters. */
const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

/** A new session token and the hash stored of it. */
export function generateSessionToken(): { token: string; tokenHash: string } {
  const token = randomBytes(32).toString('base64url');
  return { token, tokenHash: sessionTokenHash(token) };
}

/** Lowercase hex SHA-256 of a session (or invitation) token: what the database keeps. */
export function sessionTokenHash(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** The CSRF token of a session token (see the module comment), base64url. */
export function csrfTokenOf(sessionToken: string): string {
  return createHmac('sha256', sessionToken).update('csrf').digest('base64url');
}

/** Whether `sent` is the CSRF token of `sessionToken`, compared in constant time. */
export function csrfTokenMatches(sessionToken: string, sent: string | undefined): boolean {
  if (!sent) return false;
  const expected = Buffer.from(csrfTokenOf(sessionToken));
  const given = Buffer.from(sent);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/**
 * The session token a request's `Cookie` header carries, under either name, or undefined (no
 * cookie, or one not shaped like a token).
 */
export function sessionTokenOf(cookieHeader: string | undefined): string | undefined {
  if (!cookieHeader) return undefined;
  const cookies = parseCookies(cookieHeader);
  const token = cookies[SECURE_SESSION_COOKIE] ?? cookies[PLAIN_SESSION_COOKIE];
  return token && TOKEN_PATTERN.test(token) ? token : undefined;
}

/** The `Set-Cookie` value that gives the browser `token` (`secure`: reached over HTTPS). */
export function sessionCookie(token: string, secure: boolean): string {
  return serializeCookie(secure ? SECURE_SESSION_COOKIE : PLAIN_SESSION_COOKIE, token, { path: '/', httpOnly: true, secure, sameSite: 'lax' });
}

/** The `Set-Cookie` value that clears the session cookie. */
export function clearedSessionCookie(secure: boolean): string {
  return serializeCookie(secure ? SECURE_SESSION_COOKIE : PLAIN_SESSION_COOKIE, '', { path: '/', httpOnly: true, secure, sameSite: 'lax', maxAge: 0 });
}
