import { insertPasskey } from '../../domain/people/passkeyStore.ts';
import { serializePasskey } from '../../domain/people/serializePasskey.ts';
import { takeChallenge } from '../../domain/people/signInChallengeStore.ts';
import { ValidationError } from '../../errors.ts';
import type { OperationHandler } from '../../http/operation.ts';
import { personOf } from '../../http/personRequests.ts';
import { verifyRegistration } from '../../security/passkeys.ts';

/**
 * `POST /api/v1/me/passkeys`: verifies the browser's answer to the person's registration
 * challenge (taken once) and stores the passkey under its name.
 * @throws ValidationError (400, pointer `/credential`) when the challenge is not the person's,
 *   unknown, used or expired, or the answer does not verify; ConflictError (409) for a passkey
 *   registered already.
 */
export const registerPasskey: OperationHandler<'registerPasskey'> = async ({ body, ctx, write }) => {
  const person = personOf(ctx);
  const challenge = await takeChallenge(ctx.db.prisma, body.challengeId, 'passkey_registration', ctx.clock.now());
  if (!challenge || challenge.data.personId !== person.id)
    throw new ValidationError({ detail: 'The challenge is unknown, used, expired or not yours: start again.', source: { pointer: '/challengeId' } });
  const verified = await verifyRegistration(ctx.baseUrl, challenge.challenge, body.credential);
  if (!verified) throw new ValidationError({ detail: 'The passkey answer did not verify.', source: { pointer: '/credential' } });
  const row = await write((tx) => insertPasskey(tx, { personId: person.id, name: body.name, ...verified }));
  return { status: 201, body: { data: serializePasskey(row) } };
};
