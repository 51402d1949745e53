import { openSession } from '../../domain/people/personSessions.ts';
import { signInMember } from '../../domain/people/singleSignOn.ts';
import { getSingleSignOn } from '../../domain/people/singleSignOnStore.ts';
import { takeChallengeByValue } from '../../domain/people/signInChallengeStore.ts';
import { SignInFailedError } from '../../errors.ts';
import type { OperationHandler } from '../../http/operation.ts';
import { servedSecurely } from '../../http/personRequests.ts';
import { discoverIssuer, signInClaims } from '../../security/openIdConnect.ts';
import { singleSignOnClientSecretContext } from '../../security/secretContexts.ts';
import { sessionCookie } from '../../security/sessions.ts';

/**
 * `GET /api/v1/sign-in/oidc/callback`: the issuer's return. Takes the kept state (once), checks
 * the code, state, nonce and ID token, makes the person a member with the role the claims map
 * to, signs them in and sends the browser to the console.
 * @throws SignInFailedError (401) for an unknown or used state, the issuer's error, an unverified
 *   address or no role.
 */
export const finishSingleSignOn: OperationHandler<'finishSingleSignOn'> = async ({ url, headers, ctx, write }) => {
  const currentUrl = new URL(url, ctx.baseUrl);
  const state = currentUrl.searchParams.get('state');
  const error = currentUrl.searchParams.get('error');
  if (!state) throw new SignInFailedError('The sign-in came back without its state: start again.');
  const now = ctx.clock.now();
  const kept = await takeChallengeByValue(ctx.db.prisma, state, 'oidc', now);
  if (!kept) throw new SignInFailedError('The sign-in is unknown, used or took over 10 minutes: start again.');
  if (error) throw new SignInFailedError(`The sign-in service refused: ${error}.`);
  const row = await getSingleSignOn(ctx.db.prisma, String(kept.data.accountId)).catch(() => {
    throw new SignInFailedError('The account no longer has single sign-on.');
  });
  const clientSecret = ctx.secrets.decrypt(row.clientSecret, singleSignOnClientSecretContext(row.accountId));
  const claims = await discoverIssuer(ctx.config, { issuer: row.issuer, clientId: row.clientId, clientSecret })
    .then((issuer) => signInClaims(issuer, currentUrl, { state, nonce: String(kept.data.nonce), codeVerifier: String(kept.data.codeVerifier) }, row.roleClaim))
    .catch((failure: Error) => {
      ctx.log.info({ err: failure, accountId: row.accountId }, 'single sign-on refused');
      throw new SignInFailedError('The sign-in could not be verified with the sign-in service.');
    });
  const client = { clientAddress: ctx.clientAddress, userAgent: headers['user-agent'] ?? null };
  const { token, personId } = await write(async (tx) => {
    const member = await signInMember(tx, row, claims);
    const session = await openSession(tx, ctx.config, now, { personId: member.personId, method: 'oidc', accountId: row.accountId, client });
    return { ...session, personId: member.personId };
  });
  ctx.log.info({ personId, accountId: row.accountId }, 'signed in with single sign-on');
  return {
    status: 302,
    body: undefined,
    headers: { Location: `${ctx.baseUrl}/console/`, 'Set-Cookie': sessionCookie(token, servedSecurely(ctx)), 'Cache-Control': 'no-store' },
  };
};
