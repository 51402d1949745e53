import { insertChallenge } from '../../domain/people/signInChallengeStore.ts';
import type { OperationHandler } from '../../http/operation.ts';
import { personOf } from '../../http/personRequests.ts';
import { totpSecretContext } from '../../security/secretContexts.ts';
import { newTotpSecret } from '../../security/totp.ts';

/** How long a new TOTP secret waits for its first code, in ms. */
const ENROLMENT_TTL_MS = 10 * 60_000;

/**
 * `POST /api/v1/me/totp`: a new TOTP secret, shown once, kept sealed as a challenge until a code
 * of it is confirmed (confirmTotpEnrollment); a secret in force stays so until then.
 */
export const createTotpEnrollment: OperationHandler<'createTotpEnrollment'> = async ({ ctx, write }) => {
  const person = personOf(ctx);
  const { secret, uri } = newTotpSecret(person.email);
  const sealed = Buffer.from(ctx.secrets.encrypt(secret, totpSecretContext(person.id))).toString('base64');
  const now = ctx.clock.now();
  await write((tx) =>
    insertChallenge(
      tx,
      { purpose: 'totp_enrollment', challenge: 'totp', data: { personId: person.id, sealed }, expiresAt: new Date(now.getTime() + ENROLMENT_TTL_MS) },
      now,
    ),
  );
  return { status: 201, body: { data: { type: 'totpEnrollment', attributes: { secret, uri } } }, headers: { 'Cache-Control': 'no-store' } };
};
