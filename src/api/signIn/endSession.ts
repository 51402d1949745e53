import { endPersonSession } from '../../domain/people/personSessionStore.ts';
import type { OperationHandler } from '../../http/operation.ts';
import { personOf } from '../../http/personRequests.ts';

/**
 * `DELETE /api/v1/me/sessions/{id}`: ends one of the person's sessions, on every process.
 * @throws NotFoundError for another person's or an unknown session.
 */
export const endSession: OperationHandler<'endSession'> = async ({ params, ctx, write }) => {
  const person = personOf(ctx);
  await write((tx) => endPersonSession(tx, person.id, params.id));
  return { status: 204, body: undefined };
};
