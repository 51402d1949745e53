import { roleIn } from '../../domain/people/peopleStore.ts';
import { sessionResource } from '../../domain/people/personSessions.ts';
import { setSessionAccount } from '../../domain/people/personSessionStore.ts';
import { NotFoundError } from '../../errors.ts';
import type { OperationHandler } from '../../http/operation.ts';
import { personOf } from '../../http/personRequests.ts';
import { sessionTokenOf } from '../../security/sessions.ts';

/**
 * `PATCH /api/v1/session`: the session works in another of the person's accounts (null: in none).
 * @throws NotFoundError (404, pointer `/session/accountId`) for an account they are not a member of.
 */
export const updateSession: OperationHandler<'updateSession'> = async ({ body, headers, ctx, write }) => {
  const person = personOf(ctx);
  const { accountId } = body.session;
  // A single sign-on session stays in the account whose issuer signed it in (src/domain/people/singleSignOn.ts).
  if (person.singleSignOn && accountId !== person.accountId)
    throw new NotFoundError('Signed in through single sign-on, you work in that account only: sign in again for another.', { pointer: '/session/accountId' });
  if (accountId !== null && !(await roleIn(ctx.db.prisma, person.id, accountId)))
    throw new NotFoundError(`You are not a member of account ${accountId}.`, { pointer: '/session/accountId' });
  await write((tx) => setSessionAccount(tx, person.sessionId, accountId));
  const data = await sessionResource(ctx.db.prisma, ctx.config, sessionTokenOf(headers.cookie)!);
  return { status: 200, body: { data }, headers: { 'Cache-Control': 'no-store' } };
};
