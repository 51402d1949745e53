import { setTotpSecret } from '../../domain/people/peopleStore.ts';
import { takePersonChallenge } from '../../domain/people/signInChallengeStore.ts';
import { ConflictError, ValidationError } from '../../errors.ts';
import type { OperationHandler } from '../../http/operation.ts';
import { personOf } from '../../http/personRequests.ts';
import { totpSecretContext } from '../../security/secretContexts.ts';
import { totpCodeMatches } from '../../security/totp.ts';

/**
 * `POST /api/v1/me/totp/confirm`: a current code of the secret createTotpEnrollment gave makes it
 * the person's second factor.
 * @throws ConflictError (409) when no enrolment is waiting (none started, or over 10 minutes ago);
 *   ValidationError (400, pointer `/code`) for a wrong code (the enrolment waits for another try).
 */
export const confirmTotpEnrollment: OperationHandler<'confirmTotpEnrollment'> = async ({ body, ctx, write }) => {
  const person = personOf(ctx);
  const now = ctx.clock.now();
  await write(async (tx) => {
    const pending = await takePersonChallenge(tx, person.id, 'totp_enrollment', now);
    if (!pending) throw new ConflictError('No second factor is being enrolled: start again.', { pointer: '/code' });
    const sealed = Buffer.from(String(pending.data.sealed), 'base64');
    const secret = ctx.secrets.decrypt(sealed, totpSecretContext(person.id));
    if (!(await totpCodeMatches(secret, body.code)))
      throw new ValidationError({ detail: 'The code is not right; try the next one.', source: { pointer: '/code' } });
    await setTotpSecret(tx, person.id, new Uint8Array(sealed), now);
  });
  return { status: 204, body: undefined };
};
