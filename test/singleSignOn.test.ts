/**
 * Single sign-on with OpenID Connect against a real OpenID Provider: `oidc-provider`
 * (a certified implementation, https://openid.net/certification/) started by the test on a local
 * port with its development login and consent pages. An account trusts it (setSingleSignOn reads
 * its discovery document), and a person signs in through it end to end in Chromium: the console's
 * link, the provider's login and consent, back to the service's callback (code, state, nonce,
 * PKCE), a member made with the role their `groups` claim maps to, the session cookie set.
 *
 * The issuer is `http://127.0.0.1:<port>`: over plain HTTP on loopback, which the service allows
 * without `DATABASE_URL` only (src/security/openIdConnect.ts; the test services run so on both
 * databases); an issuer at a private address is refused (below).
 */
import { existsSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import supertest from 'supertest';
import { launchChromium } from './support/chromium.ts';
import { type OpenIdProvider, startOpenIdProvider } from './support/openIdProvider.ts';
import { joinAs, session, type SignedInPerson } from './support/people.ts';
import { startTestService, type TestService } from './support/testService.ts';

const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** The people the provider knows (its development login takes any password). */
const PEOPLE: Record<string, Record<string, unknown>> = {
  ewa: { email: 'ewa.kowalska@example.pl', email_verified: true, name: 'Ewa Kowalska', groups: ['staff', 'wallet-marketing'] },
  unverified: { email: 'mallory@example.pl', email_verified: false, name: 'Mallory', groups: ['wallet-admins'] },
  outsider: { email: 'jan@example.pl', email_verified: true, name: 'Jan', groups: ['staff'] },
  // A person of another account: this account's issuer does not vouch for them here.
  olek: { email: 'olek@example.pl', email_verified: true, name: 'Olek', groups: ['wallet-admins'] },
};

describe('single sign-on through an OpenID Provider', () => {
  let service: TestService;
  let server: Server;
  let base: string;
  let provider: OpenIdProvider;
  let issuer: string;
  let accountId: string;
  let owner: SignedInPerson;

  beforeAll(async () => {
    // No PUBLIC_BASE_URL: links (the redirect URI) are made from the request's host, as on the embedded default.
    service = await startTestService({ config: { publicBaseUrl: undefined } });
    server = service.app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    ({ accountId } = await service.createAccount('Kawiarnia Łódź'));
    owner = await joinAs(service, accountId, 'owner');

    provider = await startOpenIdProvider(`${base}/api/v1/sign-in/oidc/callback`, PEOPLE);
    issuer = provider.issuer;
  }, 60_000);

  afterAll(async () => {
    await provider?.close();
    await new Promise((resolve) => server?.close(resolve));
    await service?.close();
  });

  const api = () => supertest(service.app);
  const configuration = (overrides: Record<string, unknown> = {}) => ({
    singleSignOn: {
      issuer,
      clientId: 'wallet-pass-service',
      clientSecret: 'a secret the issuer gave',
      roleClaim: 'groups',
      roleMapping: { 'wallet-admins': 'admin', 'wallet-marketing': 'designer' },
      defaultRole: null,
      ...overrides,
    },
  });

  test('an account trusts an issuer it can discover; the secret is never shown; one it cannot is 422', async () => {
    await api().get('/api/v1/single-sign-on').set(session(owner)).expect(404);
    const unreachable = await api()
      .put('/api/v1/single-sign-on')
      .set(session(owner))
      .send(configuration({ issuer: 'http://10.0.0.1' }))
      .expect(422);
    expect(unreachable.body.errors[0]).toMatchObject({ code: 'issuer_unreachable', source: { pointer: '/singleSignOn/issuer' } });
    const set = await api().put('/api/v1/single-sign-on').set(session(owner)).send(configuration()).expect(200);
    expect(set.body.data.attributes).toMatchObject({ issuer, clientId: 'wallet-pass-service', roleClaim: 'groups', defaultRole: null });
    expect(JSON.stringify(set.body)).not.toContain('a secret the issuer gave');
    const got = await api().get('/api/v1/single-sign-on').set('Host', new URL(base).host).set(session(owner)).expect(200);
    expect(got.body.data.attributes).toMatchObject({
      redirectUri: `${base}/api/v1/sign-in/oidc/callback`,
      signInUrl: `${base}/api/v1/sign-in/oidc?account=${accountId}`,
    });
    const stored = await service.runtime.db.sql.$queryRaw<{ client_secret: Uint8Array }[]>`SELECT client_secret FROM single_sign_on_providers`;
    expect(Buffer.from(stored[0]!.client_secret).toString('latin1')).not.toContain('a secret the issuer gave');
    await api()
      .get(`/api/v1/sign-in/oidc?account=${(await service.createAccount()).accountId}`)
      .expect(404);
  });

  (existsSync(chromiumPath) ? test : test.skip)(
    'a person signs in through the issuer in Chromium and becomes a member with the role their groups map to',
    async () => {
      await api().put('/api/v1/single-sign-on').set(session(owner)).send(configuration()).expect(200);
      const browser: Browser = await launchChromium(chromiumPath);
      try {
        const signIn = async (login: string) => {
          const context = await browser.newContext();
          const page = await context.newPage();
          await page.goto(`${base}/api/v1/sign-in/oidc?account=${accountId}`);
          await page.fill('input[name=login]', login);
          await page.fill('input[name=password]', 'any password');
          await page.click('button[type=submit]');
          // The provider's consent page, then back to the service.
          await page.waitForURL((url) => url.href.startsWith(base) || url.pathname.includes('/interaction/'));
          if (page.url().includes('/interaction/')) await page.click('button[type=submit]');
          await page.waitForURL((url) => url.href.startsWith(base), { timeout: 20_000 });
          const answer = await page.evaluate(async () => {
            const res = await fetch('/api/v1/session');
            return { status: res.status, body: (await res.json()) as { data: { attributes: Record<string, unknown> } } };
          });
          const cookies = await context.cookies(base);
          await context.close();
          return { url: page.url(), answer, cookies };
        };

        const ewa = await signIn('ewa');
        expect(ewa.url).toBe(`${base}/console/`);
        expect(ewa.answer.status).toBe(200);
        expect(ewa.answer.body.data.attributes).toMatchObject({
          accountId,
          role: 'designer',
          method: 'oidc',
          person: { email: 'ewa.kowalska@example.pl', name: 'Ewa Kowalska' },
        });
        expect(ewa.cookies.find((c) => c.name === 'wps_session')).toMatchObject({ httpOnly: true, sameSite: 'Lax' });
        const members = await api().get('/api/v1/members').set(session(owner)).expect(200);
        expect(members.body.data.map((m: { attributes: { email: string; role: string } }) => [m.attributes.email, m.attributes.role])).toContainEqual([
          'ewa.kowalska@example.pl',
          'designer',
        ]);

        // The session stays in this account and cannot change Ewa's own credentials or sessions.
        const ewaCookie = ewa.cookies.find((c) => c.name === 'wps_session')!.value;
        const ewaSession = { Cookie: `wps_session=${ewaCookie}`, 'X-CSRF-Token': String(ewa.answer.body.data.attributes.csrfToken) };
        const password = await api().put('/api/v1/me/password').set(ewaSession).send({ password: 'a long new password' }).expect(403);
        expect(password.body.errors[0].code).toBe('single_sign_on_session');
        await api().get('/api/v1/me/sessions').set(ewaSession).expect(403);
        await api().get('/api/v1/pass-templates').set(ewaSession).expect(200);

        // A person of another account with the same address is not taken over through this issuer.
        const elsewhere = await service.createAccount('Elsewhere');
        const invited = await api()
          .post(`/admin/v1/accounts/${elsewhere.accountId}/invitations`)
          .set(service.adminAuth())
          .send({ invitation: { role: 'owner', email: 'olek@example.pl' } })
          .expect(201);
        const olekToken = invited.body.data.attributes.url.split('#invitation=')[1];
        await api().post('/api/v1/invitation-acceptances').send({ token: olekToken, name: 'Olek', password: 'Olek has a long password' }).expect(201);
        // An address the issuer does not vouch for, groups that map to no role, and a person who
        // is not a member here sign nobody in.
        for (const login of ['unverified', 'outsider', 'olek']) {
          const refused = await signIn(login);
          expect(refused.answer.status).toBe(401);
          expect(refused.cookies.find((c) => c.name === 'wps_session')).toBeUndefined();
        }
      } finally {
        await browser.close();
      }
    },
    120_000,
  );

  test('a callback with an unknown state signs nobody in; removing single sign-on stops new sign-ins', async () => {
    const unknown = await api().get('/api/v1/sign-in/oidc/callback?state=forged&code=x').expect(401);
    expect(unknown.body.errors[0].code).toBe('sign_in_failed');
    await api().delete('/api/v1/single-sign-on').set(session(owner)).expect(204);
    await api().delete('/api/v1/single-sign-on').set(session(owner)).expect(404);
    await api().get(`/api/v1/sign-in/oidc?account=${accountId}`).expect(404);
  });
});
