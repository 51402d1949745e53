import { listPasskeys } from '../../domain/people/passkeyStore.ts';
import { insertChallenge } from '../../domain/people/signInChallengeStore.ts';
import { toTimestamp } from '../../domain/serialize.ts';
import type { OperationHandler } from '../../http/operation.ts';
import { personOf } from '../../http/personRequests.ts';
import { CHALLENGE_TTL_MS, registrationOptions } from '../../security/passkeys.ts';

/**
 * `POST /api/v1/me/passkey-options`: a WebAuthn registration challenge for the signed-in person,
 * their passkeys excluded, kept 5 minutes for one answer (registerPasskey).
 */
export const createPasskeyRegistrationOptions: OperationHandler<'createPasskeyRegistrationOptions'> = async ({ ctx, write }) => {
  const person = personOf(ctx);
  const existing = await listPasskeys(ctx.db.prisma, person.id);
  const options = await registrationOptions(ctx.baseUrl, person, existing);
  const now = ctx.clock.now();
  const expiresAt = new Date(now.getTime() + CHALLENGE_TTL_MS);
  const id = await write((tx) =>
    insertChallenge(tx, { purpose: 'passkey_registration', challenge: options.challenge, data: { personId: person.id }, expiresAt }, now),
  );
  return {
    status: 201,
    body: { data: { id, type: 'passkeyRegistrationOptions', attributes: { publicKey: options as never, expiresAt: toTimestamp(expiresAt) } } },
    headers: { 'Cache-Control': 'no-store' },
  };
};
