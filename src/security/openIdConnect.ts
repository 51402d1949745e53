/**
 * Single sign-on with OpenID Connect (OpenID Connect Core 1.0,
 * https://openid.net/specs/openid-connect-core-1_0.html) through `openid-client`: discovery of
 * an issuer, the authorization code flow with PKCE (RFC 7636), state and nonce, and the claims of
 * the ID token (or the userinfo endpoint when the ID token lacks the role claim).
 *
 * Every request to the issuer goes through the service's guarded outbound client
 * (src/net/outboundRequest.ts): HTTPS to a public address, one time budget, no redirects — an
 * account's admin names the issuer, so it must not reach the service's private network. On the
 * embedded default (local development) `http:` on loopback is allowed, as for template images.
 *
 * @module security/openIdConnect
 */
import * as oidc from 'openid-client';
import type { Config } from '../config.ts';
import { outboundRequest } from '../net/outboundRequest.ts';

/** What an issuer's sign-in needs: where it is and who the service is to it. */
export interface OidcClient {
  issuer: string;
  clientId: string;
  clientSecret: string;
}

/** What the service keeps between sending the browser to the issuer and its return. */
export interface OidcRequest {
  state: string;
  nonce: string;
  codeVerifier: string;
}

/** The largest answer read from an issuer, in bytes. */
const MAX_ISSUER_RESPONSE_BYTES = 1024 * 1024;

/** openid-client's fetch, through the guarded outbound client (see the module comment). */
function guardedFetch(config: Pick<Config, 'outboundTimeoutMs' | 'databaseUrl'>): oidc.CustomFetch {
  return async (url, options) => {
    const body =
      options.body === undefined || options.body === null
        ? undefined
        : options.body instanceof URLSearchParams
          ? options.body.toString()
          : String(options.body);
    const response = await outboundRequest({
      method: options.method === 'POST' ? 'POST' : 'GET',
      url,
      headers: options.headers,
      ...(body === undefined ? {} : { body }),
      timeoutMs: config.outboundTimeoutMs,
      maxBodyBytes: MAX_ISSUER_RESPONSE_BYTES,
      maxRedirects: 0,
      policy: { allowPrivate: false, allowHttpLoopback: config.databaseUrl === undefined },
    });
    const headers = new Headers();
    for (const [name, value] of Object.entries(response.headers)) {
      if (Array.isArray(value)) for (const one of value) headers.append(name, one);
      else if (value !== undefined) headers.set(name, value);
    }
    return new Response(new Uint8Array(response.body), { status: response.status, headers });
  };
}

/**
 * The issuer's configuration, from its discovery document (`/.well-known/openid-configuration`).
 * @throws Error (openid-client's or the outbound client's) when it cannot be read or is not one.
 */
export async function discoverIssuer(config: Pick<Config, 'outboundTimeoutMs' | 'databaseUrl'>, client: OidcClient): Promise<oidc.Configuration> {
  const customFetch = guardedFetch(config);
  const http = new URL(client.issuer).protocol === 'http:';
  return oidc.discovery(new URL(client.issuer), client.clientId, undefined, oidc.ClientSecretBasic(client.clientSecret), {
    [oidc.customFetch]: customFetch,
    ...(http ? { execute: [oidc.allowInsecureRequests] } : {}),
  });
}

/** The issuer's authorization URL for a new sign-in, and what to keep until the browser returns. */
export async function authorizationRequest(issuer: oidc.Configuration, redirectUri: string): Promise<{ url: string; kept: OidcRequest }> {
  const codeVerifier = oidc.randomPKCECodeVerifier();
  const kept = { state: oidc.randomState(), nonce: oidc.randomNonce(), codeVerifier };
  const url = oidc.buildAuthorizationUrl(issuer, {
    redirect_uri: redirectUri,
    scope: 'openid email profile',
    code_challenge: await oidc.calculatePKCECodeChallenge(codeVerifier),
    code_challenge_method: 'S256',
    state: kept.state,
    nonce: kept.nonce,
  });
  return { url: url.href, kept };
}

/**
 * Exchanges the code of the browser's return (`currentUrl`, the callback URL as received) and
 * gives the claims: those of the ID token, with the userinfo endpoint's added when the ID token
 * lacks `roleClaim` or `email`.
 * @throws Error when the state, nonce, code or ID token does not verify, or the issuer answered an error.
 */
export async function signInClaims(issuer: oidc.Configuration, currentUrl: URL, kept: OidcRequest, roleClaim: string): Promise<Record<string, unknown>> {
  const tokens = await oidc.authorizationCodeGrant(issuer, currentUrl, {
    pkceCodeVerifier: kept.codeVerifier,
    expectedState: kept.state,
    expectedNonce: kept.nonce,
    idTokenExpected: true,
  });
  const claims: Record<string, unknown> = { ...(tokens.claims() ?? {}) };
  if ((claims[roleClaim] === undefined || claims.email === undefined) && typeof claims.sub === 'string') {
    const userInfo = await oidc.fetchUserInfo(issuer, tokens.access_token, claims.sub);
    for (const [name, value] of Object.entries(userInfo)) if (claims[name] === undefined) claims[name] = value;
  }
  return claims;
}
