import { findPersonByEmail, normalEmail } from '../../domain/people/peopleStore.ts';
import { openSession } from '../../domain/people/personSessions.ts';
import { SignInFailedError } from '../../errors.ts';
import type { OperationHandler } from '../../http/operation.ts';
import { refuseCrossSite, signedIn } from '../../http/personRequests.ts';
import { countFailedSignIn, forgetFailedSignIns, refuseLockedSignIn } from '../../http/signInLockout.ts';
import { verifyPersonPassword } from '../../security/personPasswords.ts';
import { totpSecretContext } from '../../security/secretContexts.ts';
import { totpCodeMatches } from '../../security/totp.ts';

/**
 * `POST /api/v1/sign-in/password`: the person's password (Argon2id) and, once they confirmed
 * one, their TOTP code; then a new session and its cookie. A locked address is refused before the
 * password is checked (src/http/signInLockout.ts).
 * @throws HttpError 403 for a cross-site request; RateLimitError 429 while locked;
 *   SignInFailedError 401 for a wrong address, password or code (one answer).
 */
export const signInWithPassword: OperationHandler<'signInWithPassword'> = async ({ body, headers, ctx }) => {
  refuseCrossSite(headers);
  const email = normalEmail(body.email);
  await refuseLockedSignIn(ctx, email);
  const person = await findPersonByEmail(ctx.db.prisma, email);
  const passwordMatches = await verifyPersonPassword(person?.passwordHash, body.password);
  if (!person || !passwordMatches) {
    await countFailedSignIn(ctx, email);
    throw new SignInFailedError();
  }
  if (person.totpConfirmedAt && person.totpSecret) {
    if (!body.totpCode) throw new SignInFailedError('Enter the code your authenticator app shows (totpCode).');
    const secret = ctx.secrets.decrypt(person.totpSecret, totpSecretContext(person.id));
    if (!(await totpCodeMatches(secret, body.totpCode))) {
      await countFailedSignIn(ctx, email);
      throw new SignInFailedError();
    }
  }
  await forgetFailedSignIns(ctx, email);
  const client = { clientAddress: ctx.clientAddress, userAgent: headers['user-agent'] ?? null };
  const { token } = await ctx.db.write((tx) =>
    openSession(tx, ctx.config, ctx.clock.now(), { personId: person.id, method: 'password', accountId: null, client }),
  );
  ctx.log.info({ personId: person.id }, 'signed in with a password');
  return signedIn(ctx, token);
};
