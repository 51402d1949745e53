/**
 * A real OpenID Provider for tests: `oidc-provider` (certified, https://openid.net/certification/)
 * on a local port, with its development login and consent pages (any password) and the people
 * it knows (their claims). The issuer is `http://127.0.0.1:<port>`, which the service accepts on
 * the embedded default only (src/security/openIdConnect.ts).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

/** A running provider. */
export interface OpenIdProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  close(): Promise<void>;
}

/**
 * Starts a provider with one confidential client redirecting to `redirectUri`.
 * @param people Claims by login (the `sub`): `email`, `email_verified`, `name`, `groups`.
 */
export async function startOpenIdProvider(redirectUri: string, people: Record<string, Record<string, unknown>> = {}): Promise<OpenIdProvider> {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const clientId = 'wallet-pass-service';
  const clientSecret = 'a secret the issuer gave';
  const provider = new Provider(issuer, {
    clients: [
      { client_id: clientId, client_secret: clientSecret, redirect_uris: [redirectUri], grant_types: ['authorization_code'], response_types: ['code'] },
    ],
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name', 'groups'] },
    findAccount: async (_ctx: unknown, sub: string) => (people[sub] ? { accountId: sub, claims: async () => ({ sub, ...people[sub] }) } : undefined),
    pkce: { required: () => true },
    ttl: { Interaction: 600, Session: 600, Grant: 600, AccessToken: 600, IdToken: 600, AuthorizationCode: 60 },
  });
  server.on('request', provider.callback());
  return {
    issuer,
    clientId,
    clientSecret,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
