/**
 * Accepting an invitation: the person joins the account with the invitation's role and
 * is signed in. The invitation is used once: of two requests with one token, one wins (the other
 * gets 404), and nothing of the loser is kept (one transaction).
 *
 * A new person brings a way to sign in: a passkey registered against the challenge of
 * createInvitationAcceptanceOptions (whose user handle becomes their id, so the authenticator's
 * record and the person agree), or a password (Argon2id). A person already signed in joins as
 * themselves. The join is written to the account's audit log with the person as actor.
 *
 * @module domain/people/acceptInvitation
 */
import { v7 as uuidv7 } from 'uuid';
import type { components } from '../../../generated/api.d.ts';
import type { Runtime } from '../../deps.ts';
import { ConflictError, NotFoundError, ValidationError } from '../../errors.ts';
import { verifyRegistration } from '../../security/passkeys.ts';
import { hashPersonPassword } from '../../security/personPasswords.ts';
import type { Role } from '../../security/roles.ts';
import { sessionTokenHash } from '../../security/sessions.ts';
import { appendAuditEvent } from '../audit/auditStore.ts';
import { findPendingInvitation, markInvitationAccepted } from './invitationStore.ts';
import { insertPasskey } from './passkeyStore.ts';
import { createPerson, findPerson, findPersonByEmail, normalEmail, roleIn, upsertMembership } from './peopleStore.ts';
import { openSession, type SignInClient } from './personSessions.ts';
import { setSessionAccount } from './personSessionStore.ts';
import { takeChallenge } from './signInChallengeStore.ts';

type AcceptRequest = components['schemas']['InvitationAcceptRequest'];

/** What accepting needs of the request. */
interface AcceptingRequest extends Pick<Runtime, 'db' | 'config' | 'clock'> {
  baseUrl: string;
  requestId: string;
}

/** A person who wants to sign in with what the body brings, verified (before any write). */
async function newPersonCredentials(ctx: AcceptingRequest, body: AcceptRequest, invitationId: string, now: Date) {
  if (body.passkey && body.password !== undefined)
    throw new ValidationError({ detail: 'Bring a passkey or a password, not both.', source: { pointer: '/password' } });
  if (body.passkey) {
    const challenge = await takeChallenge(ctx.db.prisma, body.passkey.challengeId, 'invitation_passkey', now);
    if (!challenge || challenge.data.invitationId !== invitationId)
      throw new ValidationError({
        detail: 'The passkey challenge is unknown, used, expired or of another invitation: open the link again.',
        source: { pointer: '/passkey/challengeId' },
      });
    const passkey = await verifyRegistration(ctx.baseUrl, challenge.challenge, body.passkey.credential);
    if (!passkey) throw new ValidationError({ detail: 'The passkey answer did not verify.', source: { pointer: '/passkey/credential' } });
    return { personId: String(challenge.data.personId), passkey: { ...passkey, name: body.passkey.name }, passwordHash: null, method: 'passkey' as const };
  }
  if (body.password === undefined)
    throw new ValidationError({ detail: 'Bring a way to sign in: a passkey (recommended) or a password.', source: { pointer: '/passkey' } });
  return { personId: uuidv7(), passkey: undefined, passwordHash: await hashPersonPassword(body.password), method: 'password' as const };
}

/**
 * Accepts the invitation of `body.token`, as `signedInPersonId` when given, else as a new person.
 * @returns The session to sign the browser in with (a new one, or the signed-in person's own
 *   token, moved to the account) and who joined where.
 * @throws NotFoundError (404, `/token`) for an unknown, used, revoked or expired invitation;
 *   ValidationError (400) for a missing name, address or way to sign in, an address other than
 *   the invitation's, a passkey that does not verify; ConflictError (409) when the address
 *   belongs to a person already (who must sign in to accept) or the person is a member already.
 */
export async function acceptInvitationAs(
  ctx: AcceptingRequest,
  body: AcceptRequest,
  signedIn: { personId: string; token: string; sessionId: string } | undefined,
  client: SignInClient,
): Promise<{ token: string; personId: string; accountId: string }> {
  const now = ctx.clock.now();
  const invitation = await findPendingInvitation(ctx.db.prisma, sessionTokenHash(body.token), now);
  if (!invitation) throw new NotFoundError('The invitation is unknown, used, revoked or expired: ask for a new one.', { pointer: '/token' });
  const role = invitation.role as Role;
  const usedUp = () => new NotFoundError('The invitation was used meanwhile.', { pointer: '/token' });

  if (signedIn) {
    const person = await findPerson(ctx.db.prisma, signedIn.personId);
    if (!person) throw new NotFoundError('You are not signed in any more.');
    if (invitation.email && invitation.email !== person.email)
      throw new ValidationError({ detail: `This invitation is for ${invitation.email}; you are signed in as ${person.email}.`, source: { pointer: '/email' } });
    if (await roleIn(ctx.db.prisma, person.id, invitation.accountId)) throw new ConflictError('You are a member of this account already.');
    await ctx.db.write(async (tx) => {
      if (!(await markInvitationAccepted(tx, invitation.id, person.id, now))) throw usedUp();
      const membershipId = await upsertMembership(tx, invitation.accountId, person.id, role);
      await setSessionAccount(tx, signedIn.sessionId, invitation.accountId);
      await appendAuditEvent(tx, joinEvent(ctx, client, { accountId: invitation.accountId, person, membershipId, role, now }));
    });
    return { token: signedIn.token, personId: person.id, accountId: invitation.accountId };
  }

  if (!body.name) throw new ValidationError({ detail: 'Give your name.', source: { pointer: '/name' } });
  const email = invitation.email ?? (body.email === undefined ? undefined : normalEmail(body.email));
  if (!email) throw new ValidationError({ detail: 'Give your e-mail address.', source: { pointer: '/email' } });
  if (invitation.email && body.email !== undefined && normalEmail(body.email) !== invitation.email)
    throw new ValidationError({ detail: `This invitation is for ${invitation.email}.`, source: { pointer: '/email' } });
  if (await findPersonByEmail(ctx.db.prisma, email))
    throw new ConflictError('A person with this e-mail address exists already: sign in, then open the link again to accept.', { pointer: '/email' });
  const credentials = await newPersonCredentials(ctx, body, invitation.id, now);
  const name = body.name;
  const { token } = await ctx.db.write(async (tx) => {
    const person = await createPerson(tx, { id: credentials.personId, email, name, passwordHash: credentials.passwordHash });
    if (!(await markInvitationAccepted(tx, invitation.id, person.id, now))) throw usedUp();
    const membershipId = await upsertMembership(tx, invitation.accountId, person.id, role);
    if (credentials.passkey) await insertPasskey(tx, { personId: person.id, ...credentials.passkey });
    await appendAuditEvent(tx, joinEvent(ctx, client, { accountId: invitation.accountId, person, membershipId, role, now }));
    return openSession(tx, ctx.config, now, { personId: person.id, method: credentials.method, accountId: invitation.accountId, client });
  });
  return { token, personId: credentials.personId, accountId: invitation.accountId };
}

/** The audit event of a person joining an account. */
function joinEvent(
  ctx: AcceptingRequest,
  client: SignInClient,
  join: { accountId: string; person: { id: string; name: string; email: string }; membershipId: string; role: Role; now: Date },
) {
  return {
    id: uuidv7(),
    accountId: join.accountId,
    occurredAt: join.now,
    actorType: 'person' as const,
    actorId: join.person.id,
    actorName: `${join.person.name} <${join.person.email}>`.slice(0, 200),
    actorKind: null,
    channel: 'console',
    operationId: 'acceptInvitation',
    resourceType: 'members',
    resourceId: join.membershipId,
    changes: { role: { before: null, after: join.role }, email: { before: null, after: join.person.email } },
    requestId: ctx.requestId,
    clientAddress: client.clientAddress,
    userAgent: client.userAgent,
    outcome: 'success' as const,
    status: null,
  };
}
