import { insertChallenge } from '../../domain/people/signInChallengeStore.ts';
import { toTimestamp } from '../../domain/serialize.ts';
import type { OperationHandler } from '../../http/operation.ts';
import { refuseCrossSite } from '../../http/personRequests.ts';
import { authenticationOptions, CHALLENGE_TTL_MS } from '../../security/passkeys.ts';

/**
 * `POST /api/v1/sign-in/passkey-options`: a WebAuthn authentication challenge for any of the
 * relying party's passkeys (discoverable credentials), kept 5 minutes for one answer.
 * @throws HttpError 403 for a cross-site request.
 */
export const createPasskeySignInOptions: OperationHandler<'createPasskeySignInOptions'> = async ({ headers, ctx }) => {
  refuseCrossSite(headers);
  const options = await authenticationOptions(ctx.baseUrl);
  const now = ctx.clock.now();
  const expiresAt = new Date(now.getTime() + CHALLENGE_TTL_MS);
  const id = await ctx.db.write((tx) => insertChallenge(tx, { purpose: 'passkey_sign_in', challenge: options.challenge, expiresAt }, now));
  return {
    status: 201,
    body: { data: { id, type: 'passkeySignInOptions', attributes: { publicKey: options as never, expiresAt: toTimestamp(expiresAt) } } },
    headers: { 'Cache-Control': 'no-store' },
  };
};
