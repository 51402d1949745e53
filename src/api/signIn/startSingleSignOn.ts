import { singleSignOnRedirectUri } from '../../domain/people/singleSignOn.ts';
import { getSingleSignOn } from '../../domain/people/singleSignOnStore.ts';
import { insertChallenge } from '../../domain/people/signInChallengeStore.ts';
import { UnavailableError } from '../../errors.ts';
import type { OperationHandler } from '../../http/operation.ts';
import { authorizationRequest, discoverIssuer } from '../../security/openIdConnect.ts';
import { singleSignOnClientSecretContext } from '../../security/secretContexts.ts';

/** How long a sign-in at the issuer may take, in ms. */
const SIGN_IN_TTL_MS = 10 * 60_000;

/**
 * `GET /api/v1/sign-in/oidc?account=…`: sends the browser to the account's issuer (authorization
 * code flow with PKCE); state, nonce and verifier are kept 10 minutes for the callback.
 * @throws NotFoundError (404) for an account without single sign-on; UnavailableError (503) when
 *   the issuer cannot be discovered now.
 */
export const startSingleSignOn: OperationHandler<'startSingleSignOn'> = async ({ query, ctx, write }) => {
  const row = await getSingleSignOn(ctx.db.prisma, query.account);
  const clientSecret = ctx.secrets.decrypt(row.clientSecret, singleSignOnClientSecretContext(row.accountId));
  const issuer = await discoverIssuer(ctx.config, { issuer: row.issuer, clientId: row.clientId, clientSecret }).catch((error: Error) => {
    ctx.log.warn({ err: error, accountId: row.accountId }, 'the single sign-on issuer cannot be discovered');
    throw new UnavailableError('The sign-in service of this account cannot be reached; try again later.', 30);
  });
  const { url, kept } = await authorizationRequest(issuer, singleSignOnRedirectUri(ctx.baseUrl));
  const now = ctx.clock.now();
  await write((tx) =>
    insertChallenge(
      tx,
      {
        purpose: 'oidc',
        challenge: kept.state,
        data: { accountId: row.accountId, nonce: kept.nonce, codeVerifier: kept.codeVerifier },
        expiresAt: new Date(now.getTime() + SIGN_IN_TTL_MS),
      },
      now,
    ),
  );
  return { status: 302, body: undefined, headers: { Location: url, 'Cache-Control': 'no-store' } };
};
