import { endOtherSessions } from '../../domain/people/personSessionStore.ts';
import type { OperationHandler } from '../../http/operation.ts';
import { personOf } from '../../http/personRequests.ts';

/** `DELETE /api/v1/me/sessions`: "sign out everywhere" — every session of the person but this one ends. */
export const endAllSessions: OperationHandler<'endAllSessions'> = async ({ ctx, write }) => {
  const person = personOf(ctx);
  const ended = await write((tx) => endOtherSessions(tx, person.id, person.sessionId));
  ctx.log.info({ personId: person.id, ended }, 'signed out everywhere');
  return { status: 204, body: undefined };
};
