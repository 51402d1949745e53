import { findPerson, setPasswordHash } from '../../domain/people/peopleStore.ts';
import { endOtherSessions } from '../../domain/people/personSessionStore.ts';
import { ValidationError } from '../../errors.ts';
import type { OperationHandler } from '../../http/operation.ts';
import { personOf } from '../../http/personRequests.ts';
import { hashPersonPassword, verifyPersonPassword } from '../../security/personPasswords.ts';

/**
 * `PUT /api/v1/me/password`: sets or changes the person's password (Argon2id); the person's
 * other sessions end.
 * @throws ValidationError (400, pointer `/currentPassword`) when changing one without the right current password.
 */
export const setPassword: OperationHandler<'setPassword'> = async ({ body, ctx, write }) => {
  const person = personOf(ctx);
  const stored = await findPerson(ctx.db.prisma, person.id);
  if (stored?.passwordHash && !(body.currentPassword !== undefined && (await verifyPersonPassword(stored.passwordHash, body.currentPassword))))
    throw new ValidationError({ detail: 'To change your password, give the current one.', source: { pointer: '/currentPassword' } });
  const hash = await hashPersonPassword(body.password);
  await write(async (tx) => {
    await setPasswordHash(tx, person.id, hash);
    await endOtherSessions(tx, person.id, person.sessionId);
  });
  return { status: 204, body: undefined };
};
