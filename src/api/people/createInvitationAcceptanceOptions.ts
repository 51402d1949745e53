import { findPendingInvitation } from '../../domain/people/invitationStore.ts';
import { insertChallenge } from '../../domain/people/signInChallengeStore.ts';
import { toTimestamp } from '../../domain/serialize.ts';
import { NotFoundError } from '../../errors.ts';
import type { OperationHandler } from '../../http/operation.ts';
import { refuseCrossSite } from '../../http/personRequests.ts';
import { CHALLENGE_TTL_MS, registrationOptions } from '../../security/passkeys.ts';
import { sessionTokenHash } from '../../security/sessions.ts';
import { randomUUID } from 'node:crypto';

/**
 * `POST /api/v1/invitation-acceptances/options`: what a pending invitation offers, and a passkey
 * registration challenge for the person who will accept it (a new user handle; the person is
 * made when they accept).
 * @throws HttpError 403 cross-site; NotFoundError (404, pointer `/token`) for an unknown, used,
 *   revoked or expired invitation.
 */
export const createInvitationAcceptanceOptions: OperationHandler<'createInvitationAcceptanceOptions'> = async ({ body, headers, ctx, write }) => {
  refuseCrossSite(headers);
  const now = ctx.clock.now();
  const invitation = await findPendingInvitation(ctx.db.prisma, sessionTokenHash(body.token), now);
  if (!invitation) throw new NotFoundError('The invitation is unknown, used, revoked or expired: ask for a new one.', { pointer: '/token' });
  const personId = randomUUID();
  const label = invitation.email ?? `${invitation.accountName} ${invitation.role}`;
  const options = await registrationOptions(ctx.baseUrl, { id: personId, email: label, name: label }, []);
  const expiresAt = new Date(now.getTime() + CHALLENGE_TTL_MS);
  const id = await write((tx) =>
    insertChallenge(tx, { purpose: 'invitation_passkey', challenge: options.challenge, data: { invitationId: invitation.id, personId }, expiresAt }, now),
  );
  return {
    status: 201,
    body: {
      data: {
        id,
        type: 'invitationAcceptanceOptions',
        attributes: {
          accountName: invitation.accountName,
          role: invitation.role as never,
          email: invitation.email,
          publicKey: options as never,
          expiresAt: toTimestamp(expiresAt),
        },
      },
    },
    headers: { 'Cache-Control': 'no-store' },
  };
};
