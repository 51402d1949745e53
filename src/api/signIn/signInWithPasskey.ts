import { findPasskeyByCredentialId, recordPasskeyUse } from '../../domain/people/passkeyStore.ts';
import { openSession } from '../../domain/people/personSessions.ts';
import { takeChallenge } from '../../domain/people/signInChallengeStore.ts';
import { SignInFailedError } from '../../errors.ts';
import type { OperationHandler } from '../../http/operation.ts';
import { refuseCrossSite, signedIn } from '../../http/personRequests.ts';
import { countFailedSignIn, refuseLockedSignIn } from '../../http/signInLockout.ts';
import { verifyAuthentication } from '../../security/passkeys.ts';

/**
 * `POST /api/v1/sign-in/passkey`: verifies the browser's answer to a challenge of
 * createPasskeySignInOptions (taken once) against the stored passkey, records its new signature
 * counter, and opens a session.
 * @throws HttpError 403 cross-site; RateLimitError 429 while the client address is locked;
 *   SignInFailedError 401 (unknown, expired or used challenge, unknown passkey, bad signature).
 */
export const signInWithPasskey: OperationHandler<'signInWithPasskey'> = async ({ body, headers, ctx }) => {
  refuseCrossSite(headers);
  await refuseLockedSignIn(ctx, undefined);
  const now = ctx.clock.now();
  const failed = async (detail: string) => {
    await countFailedSignIn(ctx, undefined);
    return new SignInFailedError(detail);
  };
  const challenge = await takeChallenge(ctx.db.prisma, body.challengeId, 'passkey_sign_in', now);
  if (!challenge) throw await failed('The challenge is unknown, used or expired: start again.');
  const passkey = await findPasskeyByCredentialId(ctx.db.prisma, body.credential.id);
  if (!passkey) throw await failed('This passkey is not registered here.');
  const counter = await verifyAuthentication(ctx.baseUrl, challenge.challenge, body.credential, passkey);
  if (counter === undefined) throw await failed('The passkey answer did not verify.');
  const client = { clientAddress: ctx.clientAddress, userAgent: headers['user-agent'] ?? null };
  const { token } = await ctx.db.write(async (tx) => {
    await recordPasskeyUse(tx, passkey.id, counter, now);
    return openSession(tx, ctx.config, now, { personId: passkey.personId, method: 'passkey', accountId: null, client });
  });
  ctx.log.info({ personId: passkey.personId }, 'signed in with a passkey');
  return signedIn(ctx, token);
};
