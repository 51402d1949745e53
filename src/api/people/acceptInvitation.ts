import { acceptInvitationAs } from '../../domain/people/acceptInvitation.ts';
import { resolveSession } from '../../domain/people/personSessions.ts';
import type { OperationHandler } from '../../http/operation.ts';
import { refuseCrossSite, signedIn } from '../../http/personRequests.ts';
import { csrfTokenMatches, sessionTokenOf } from '../../security/sessions.ts';
import { HttpError } from '../../http/errors.ts';

/**
 * `POST /api/v1/invitation-acceptances`: joins the account and signs in. A browser with a session
 * (cookie and its `X-CSRF-Token`) joins as that person; otherwise a new person is made with the
 * passkey or password the body brings (src/domain/people/acceptInvitation.ts).
 * @throws HttpError 403 (cross-site, or a session without its CSRF token); ValidationError 400;
 *   NotFoundError 404 (invitation); ConflictError 409.
 */
export const acceptInvitation: OperationHandler<'acceptInvitation'> = async ({ body, headers, ctx }) => {
  refuseCrossSite(headers);
  const token = sessionTokenOf(headers.cookie);
  let signedInPerson: { personId: string; token: string; sessionId: string } | undefined;
  if (token) {
    const person = await resolveSession(ctx.db.prisma, ctx.config, token, ctx.clock.now()).catch(() => undefined);
    if (person) {
      if (!csrfTokenMatches(token, headers['x-csrf-token'] as string | undefined))
        throw new HttpError(403, 'csrf_refused', 'Cross-site request refused', [
          { detail: "Signed in, send the session's X-CSRF-Token to accept as yourself.", source: { header: 'X-CSRF-Token' } },
        ]);
      signedInPerson = { personId: person.id, token, sessionId: person.sessionId };
    }
  }
  const client = { clientAddress: ctx.clientAddress, userAgent: headers['user-agent'] ?? null };
  const session = await acceptInvitationAs(ctx, body, signedInPerson, client);
  ctx.log.info({ personId: session.personId, accountId: session.accountId }, 'invitation accepted');
  return signedIn(ctx, session.token);
};
