import { deleteSession } from '../../domain/people/personSessionStore.ts';
import type { OperationHandler } from '../../http/operation.ts';
import { personOf, signedOutHeaders } from '../../http/personRequests.ts';

/** `DELETE /api/v1/session`: the session ends (its row goes) and the cookie is cleared. */
export const signOut: OperationHandler<'signOut'> = async ({ ctx, write }) => {
  const person = personOf(ctx);
  await write((tx) => deleteSession(tx, person.sessionId));
  return { status: 204, body: undefined, headers: signedOutHeaders(ctx) };
};
