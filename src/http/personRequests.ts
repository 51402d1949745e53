/**
 * What the handlers of people and sign-in share: the signed-in person of a request,
 * the refusal of sign-ins another site sends, and the answer that signs a browser in.
 *
 * @module http/personRequests
 */
import type { IncomingHttpHeaders } from 'node:http';
import { type SessionResource, sessionResource } from '../domain/people/personSessions.ts';
import type { PersonPrincipal } from '../security/principal.ts';
import { clearedSessionCookie, sessionCookie } from '../security/sessions.ts';
import { HttpError } from './errors.ts';
import type { RequestContext } from './operation.ts';

/**
 * The person signed in (an operation of the `sessionCookie` scheme).
 * @throws Error when the request was not authenticated by the cookie (a programming error).
 */
export function personOf(ctx: RequestContext): PersonPrincipal {
  const principal = ctx.principal;
  if (principal?.type !== 'person') throw new Error('personOf() called on an operation without the session cookie');
  return principal;
}

/**
 * Refuses a sign-in another site sent (`Sec-Fetch-Site: cross-site`, Fetch Metadata,
 * https://www.w3.org/TR/fetch-metadata/): login CSRF would sign the victim in as the attacker.
 * @throws HttpError 403 `csrf_refused`.
 */
export function refuseCrossSite(headers: IncomingHttpHeaders): void {
  if (headers['sec-fetch-site'] === 'cross-site')
    throw new HttpError(403, 'csrf_refused', 'Cross-site request refused', [
      { detail: 'The request came from another site.', source: { header: 'Sec-Fetch-Site' } },
    ]);
}

/** Whether the service is reached over HTTPS (the cookie's `Secure` flag and `__Host-` name). */
export function servedSecurely(ctx: RequestContext): boolean {
  return ctx.baseUrl.startsWith('https:');
}

/** The `201` that signs a browser in: the new session's cookie and the session resource. */
export async function signedIn(ctx: RequestContext, token: string): Promise<{ status: 201; body: { data: SessionResource }; headers: Record<string, string> }> {
  return {
    status: 201,
    body: { data: await sessionResource(ctx.db.prisma, ctx.config, token) },
    headers: { 'Set-Cookie': sessionCookie(token, servedSecurely(ctx)), 'Cache-Control': 'no-store' },
  };
}

/** The headers that clear the session cookie. */
export function signedOutHeaders(ctx: RequestContext): Record<string, string> {
  return { 'Set-Cookie': clearedSessionCookie(servedSecurely(ctx)), 'Cache-Control': 'no-store' };
}
