/**
 * People in the console, in Chromium: the operator invites an account's first owner
 * from the Accounts page; the owner opens the link, creates a passkey with Chromium's virtual
 * authenticator (the Chrome DevTools Protocol `WebAuthn` domain,
 * https://chromedevtools.github.io/devtools-protocol/tot/WebAuthn/), signs out and signs in with
 * it; an admin who joins with a password must set up an authenticator app before anything else;
 * each role sees exactly the navigation and controls of its scopes and the API refuses the rest
 * (403); the members page invites, changes a role and removes a member, whose next page load is
 * the sign-in page; "Sign out everywhere" ends every session of the person; a person in two
 * accounts switches between them. Every new page has 0 axe-core violations (WCAG 2.x A/AA) under
 * the console's CSP. The sign-in page's screenshot is docs/console-sign-in.png (the README's); the
 * invitation, second-factor, members and your-account pages' go to test/artifacts/console-*.png.
 *
 * The service is reached as `http://localhost:<port>`: WebAuthn refuses an IP address as relying
 * party id (https://www.w3.org/TR/webauthn-3/#rp-id), and the service takes its base URL (so the
 * relying party) from the request's `Host` when `PUBLIC_BASE_URL` is not set.
 *
 * Needs Debian's `chromium` (CHROMIUM_PATH overrides /usr/bin/chromium); runs in the pglite
 * project only, like the other browser tests (test/people.test.ts covers both databases).
 */
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import supertest from 'supertest';
import { axeViolations, cspViolationsOf, guardedContext, launchChromium } from './support/chromium.ts';
import { cookieOf, joinAs, session, type SignedInPerson, totpCode } from './support/people.ts';
import { testDatabaseKind } from './support/testDatabase.ts';
import { startTestService, type TestService } from './support/testService.ts';

const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const root = resolve(import.meta.dirname, '..');
const docs = resolve(root, 'docs');

let skipReason: string | undefined;
if (testDatabaseKind() !== 'pglite') skipReason = 'runs in the pglite project only';
else if (!existsSync(chromiumPath)) skipReason = `no Chromium at ${chromiumPath}`;
else if (!existsSync(resolve(root, 'console/dist/index.html'))) skipReason = 'the console is not built (npm run build:console)';

type Role = 'owner' | 'admin' | 'designer' | 'support' | 'viewer';

/** The navigation each role sees: the pages its scopes read (src/security/roles.ts, console/src/App.tsx). */
const NAVIGATION: Record<Role, string[]> = {
  owner: ['Overview', 'Passes', 'Issue a pass', 'Templates', 'Batches', 'Webhooks', 'Readers & scans', 'Audit log', 'Members', 'API keys'],
  admin: ['Overview', 'Passes', 'Issue a pass', 'Templates', 'Batches', 'Webhooks', 'Readers & scans', 'Audit log', 'Members', 'API keys'],
  designer: ['Overview', 'Passes', 'Templates'],
  support: ['Overview', 'Passes', 'Issue a pass', 'Templates', 'Batches', 'Readers & scans'],
  viewer: ['Overview', 'Passes', 'Templates', 'Batches', 'Webhooks', 'Readers & scans'],
};

/** One call each role's scopes do not allow, made from the page with the session (and its CSRF token), and the status expected. */
const REFUSED: Record<Role, { method: string; path: string; body?: unknown; status: number }> = {
  // An owner may do everything in the account: the call succeeds.
  owner: { method: 'POST', path: '/api/v1/invitations', body: { invitation: { role: 'owner' } }, status: 201 },
  admin: { method: 'POST', path: '/api/v1/invitations', body: { invitation: { role: 'owner' } }, status: 403 },
  designer: { method: 'GET', path: '/api/v1/webhook-subscriptions', status: 403 },
  support: { method: 'POST', path: '/api/v1/pass-templates', body: { passTemplate: { name: 'Nope' } }, status: 403 },
  viewer: { method: 'POST', path: '/api/v1/invitations', body: { invitation: { role: 'viewer' } }, status: 403 },
};

(skipReason ? describe.skip : describe)(`people in the console, in Chromium${skipReason ? ` (skipped: ${skipReason})` : ''}`, () => {
  let service: TestService;
  let server: Server;
  let origin: string;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let accountId: string;
  let secondAccountId: string;
  const offService: string[] = [];

  beforeAll(async () => {
    // No PUBLIC_BASE_URL: links and the WebAuthn relying party follow the browser's `Host` (localhost).
    service = await startTestService({ config: { publicBaseUrl: undefined } });
    accountId = (await service.createAccount('Tea House')).accountId;
    secondAccountId = (await service.createAccount('Coffee Club')).accountId;
    server = service.app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    origin = `http://localhost:${(server.address() as AddressInfo).port}`;
    browser = await launchChromium(chromiumPath);
    await mkdir(resolve(root, 'test/artifacts'), { recursive: true });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    if (server) await new Promise((r) => server.close(r));
    await service?.close();
  });

  /** A fresh browser context (no cookie), its page, the CSP watch and, with `passkeys`, a virtual authenticator with user verification. */
  async function open(options: { passkeys?: boolean } = {}): Promise<{ context: BrowserContext; page: Page; addAuthenticator: () => Promise<string> }> {
    const ctx = await guardedContext(browser, origin, offService);
    const p = await ctx.newPage();
    if (!options.passkeys) return { context: ctx, page: p, addAuthenticator: () => Promise.reject(new Error('opened without passkeys')) };
    const cdp = await ctx.newCDPSession(p);
    const add = async () =>
      (
        await cdp.send('WebAuthn.addVirtualAuthenticator', {
          options: {
            protocol: 'ctap2',
            transport: 'internal',
            hasResidentKey: true,
            hasUserVerification: true,
            isUserVerified: true,
            automaticPresenceSimulation: true,
          },
        })
      ).authenticatorId;
    await cdp.send('WebAuthn.enable');
    const first = await add();
    // Another device: the first one is taken away, with what it holds.
    const addAuthenticator = async () => {
      await cdp.send('WebAuthn.removeVirtualAuthenticator', { authenticatorId: first });
      return add();
    };
    return { context: ctx, page: p, addAuthenticator };
  }

  /** A browser context signed in as `person` (its session cookie), on the console. */
  async function openAs(person: Pick<SignedInPerson, 'cookie'>, hash = '#/'): Promise<{ context: BrowserContext; page: Page }> {
    const opened = await open();
    const [name, value] = person.cookie.split('=') as [string, string];
    await opened.context.addCookies([{ name, value, url: origin, httpOnly: true, sameSite: 'Lax' }]);
    await opened.page.goto(`${origin}/console/${hash}`);
    return opened;
  }

  /** Checks `p`: 0 axe violations, no CSP violation, nothing fetched from another host. */
  async function checkPage(p: Page, name: string): Promise<void> {
    await p.locator('h1').first().waitFor();
    const violations = await axeViolations(p);
    expect({ name, violations }).toEqual({ name, violations: [] });
    expect(await cspViolationsOf(p)).toEqual([]);
    expect(offService).toEqual([]);
  }

  const heading = (p: Page, name: string) => p.getByRole('heading', { level: 1, name }).waitFor();
  const navigation = async (p: Page) => (await p.getByRole('navigation', { name: 'Main' }).getByRole('link').allTextContents()).map((t) => t.trim());

  /** What `path` answers `method` from the page, with the session's cookie and CSRF token (as the console sends them). */
  function callFromPage(p: Page, call: { method: string; path: string; body?: unknown }): Promise<number> {
    return p.evaluate(async ({ method, path, body }) => {
      const current = (await (await fetch('/api/v1/session')).json()) as any;
      const res = await fetch(path, {
        method,
        headers: { 'Content-Type': 'application/json', 'X-CSRF-Token': current.data.attributes.csrfToken },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return res.status;
    }, call);
  }

  /** The session's attributes as getSession answers them to the page. */
  function sessionIn(p: Page): Promise<Record<string, unknown>> {
    return p.evaluate(async () => ((await (await fetch('/api/v1/session')).json()) as any).data.attributes);
  }

  it('invites the first owner from the Accounts page; the owner joins with a passkey, signs out and signs in with it', async () => {
    const opened = await open({ passkeys: true });
    ({ context, page } = opened);
    await page.goto(`${origin}/console/`);
    await heading(page, 'Sign in to the console');
    await checkPage(page, 'sign-in');
    await page.screenshot({ path: resolve(docs, 'console-sign-in.png') });
    // No API key anywhere: the only stored value is the operator's token, once the operator signs in.
    expect(await page.evaluate(() => (globalThis as any).sessionStorage.length + (globalThis as any).localStorage.length)).toBe(0);

    // The operator: the administration token, last and folded away.
    await page.getByText('Operator of this service').click();
    await page.getByLabel('Administration token').fill('wpa_wrong');
    await page.getByRole('button', { name: 'Sign in as operator' }).click();
    await page.locator('.field-error').getByText('This is not the administration token').waitFor();
    await page.getByLabel('Administration token').fill(service.adminToken);
    await page.getByRole('button', { name: 'Sign in as operator' }).click();
    await heading(page, 'Accounts');
    expect(await page.getByRole('button', { name: /^Work as/ }).count()).toBe(0);
    await page.getByRole('button', { name: 'Invite owner of Tea House' }).click();
    const link = (await page.locator('.alert.success code.secret').textContent())!;
    expect(link).toMatch(new RegExp(`^${origin}/console/#invitation=[A-Za-z0-9_-]{43}$`));
    await checkPage(page, 'accounts with an invitation link');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await heading(page, 'Sign in to the console');
    expect(await page.evaluate(() => (globalThis as any).sessionStorage.length)).toBe(0);

    // The owner opens the link: the account and role, a name, an e-mail address, a passkey.
    await page.goto(link);
    await heading(page, 'Join Tea House');
    await page.getByText('You are invited as Owner').waitFor();
    await checkPage(page, 'invitation');
    await page.screenshot({ path: resolve(root, 'test/artifacts/console-invitation.png'), fullPage: true });
    await page.getByLabel('Your name').fill('Olga Owner');
    await page.getByLabel('Your e-mail address').fill('olga@tea.example');
    expect(await page.getByLabel(/Create a passkey/).isChecked()).toBe(true);
    await page.getByLabel('Passkey name').fill('Olga’s laptop');
    await page.getByRole('button', { name: 'Create a passkey and join' }).click();
    await heading(page, 'Overview');
    expect(await navigation(page)).toEqual(NAVIGATION.owner);
    const joined = await sessionIn(page);
    expect(joined).toMatchObject({ accountId, role: 'owner', person: { name: 'Olga Owner', email: 'olga@tea.example' }, secondFactor: { required: false } });
    // The session cookie is HttpOnly: the page cannot read it.
    expect(await page.evaluate(() => (globalThis as any).document.cookie)).toBe('');

    await page.getByRole('button', { name: 'Sign out' }).click();
    await heading(page, 'Sign in to the console');
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    await heading(page, 'Overview');
    const signedIn = await sessionIn(page);
    expect(signedIn).toMatchObject({ method: 'passkey', accountId, role: 'owner', person: { email: 'olga@tea.example' } });

    // Your account: the passkey is listed, and a second one can be added.
    await page.getByRole('link', { name: 'Olga Owner' }).click();
    await heading(page, 'Your account');
    await page.getByText('Olga’s laptop', { exact: true }).waitFor();
    // This device holds a passkey for Olga already (the server lists it in excludeCredentials): it refuses a second, said at the field.
    await page.getByRole('button', { name: 'Add a passkey' }).click();
    await page.getByRole('button', { name: 'Add a passkey' }).click();
    await page
      .locator('.field-error')
      .getByText(/The passkey was not used/)
      .waitFor();
    // Another device (a security key, a phone) adds one.
    await opened.addAuthenticator();
    await page.getByLabel('Passkey name').fill('Backup key');
    await page.getByRole('button', { name: 'Add a passkey' }).click();
    await page.getByText('Backup key', { exact: true }).waitFor();
    await checkPage(page, 'your account');
    // A passkey is removed (deletePasskey): it is no longer listed, the other stays.
    await page.getByRole('button', { name: 'Remove Backup key' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Remove', exact: true }).click();
    await page.getByText('Backup key', { exact: true }).waitFor({ state: 'detached' });
    await page.getByText('Olga’s laptop', { exact: true }).waitFor();
    await context.close();
  });

  it('an admin who joins with a password sets up an authenticator app before anything else', async () => {
    const invited = await supertest(service.app)
      .post(`/admin/v1/accounts/${accountId}/invitations`)
      .set(service.adminAuth())
      .send({ invitation: { role: 'admin', email: 'adam@tea.example' } })
      .expect(201);
    const token = new URL(invited.body.data.attributes.url).hash.replace('#invitation=', '');
    ({ context, page } = await open());
    await page.goto(`${origin}/console/#invitation=${token}`);
    await heading(page, 'Join Tea House');
    // The invitation names the address: no e-mail field.
    expect(await page.getByLabel('Your e-mail address').count()).toBe(0);
    await page.getByLabel('Your name').fill('Adam Admin');
    await page.getByLabel('Choose a password').check();
    await page.getByLabel('Password', { exact: true }).fill('short');
    await page.getByRole('button', { name: 'Join', exact: true }).click();
    // The API's refusal is shown at the field.
    await page.locator('.field-error').getByText(/12/).waitFor();
    expect(await page.getByLabel('Password', { exact: true }).getAttribute('aria-invalid')).toBe('true');
    await page.getByLabel('Password', { exact: true }).fill('correct horse battery staple');
    await page.getByRole('button', { name: 'Join', exact: true }).click();
    await heading(page, 'Protect your account');
    await checkPage(page, 'second factor');
    await page.getByRole('button', { name: 'Set up an authenticator app' }).click();
    const secret = (await page.locator('code.secret').textContent())!.trim();
    await page.getByRole('img', { name: /QR code/ }).waitFor();
    await checkPage(page, 'second factor: authenticator app');
    await page.screenshot({ path: resolve(root, 'test/artifacts/console-second-factor.png'), fullPage: true });
    await page.getByLabel('Code from your authenticator app').fill('000000');
    await page.getByRole('button', { name: 'Confirm the code' }).click();
    await page.locator('.field-error').first().waitFor();
    await page.getByLabel('Code from your authenticator app').fill(await totpCode(secret));
    await page.getByRole('button', { name: 'Confirm the code' }).click();
    await heading(page, 'Overview');
    expect(await navigation(page)).toEqual(NAVIGATION.admin);

    // Signing in again with the password asks for the code at its field.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await heading(page, 'Sign in to the console');
    await page.getByLabel('E-mail address', { exact: true }).fill('adam@tea.example');
    await page.getByLabel('Password', { exact: true }).fill('wrong password');
    await page.getByRole('button', { name: 'Sign in with password' }).click();
    await page
      .locator('.field-error')
      .getByText(/not right/)
      .waitFor();
    expect(await page.getByLabel('Password', { exact: true }).getAttribute('aria-invalid')).toBe('true');
    await page.getByLabel('Password', { exact: true }).fill('correct horse battery staple');
    await page.getByRole('button', { name: 'Sign in with password' }).click();
    await page.getByLabel('Code from your authenticator app').waitFor();
    await checkPage(page, 'sign-in asking for the code');
    await page.getByLabel('Code from your authenticator app').fill('000000');
    await page.getByRole('button', { name: 'Sign in with password' }).click();
    await page
      .locator('.field-error')
      .getByText(/not right/)
      .waitFor();
    expect(await page.getByLabel('Code from your authenticator app').getAttribute('aria-invalid')).toBe('true');
    await page.getByLabel('Code from your authenticator app').fill(await totpCode(secret));
    await page.getByRole('button', { name: 'Sign in with password' }).click();
    await heading(page, 'Overview');
    await context.close();
  });

  it('single sign-on: a wrong account id or an account without it is said at the field; ?account= links straight to it', async () => {
    ({ context, page } = await open());
    await page.goto(`${origin}/console/`);
    const field = page.getByLabel('Your company’s account id');
    await field.fill('not an id');
    await page.getByRole('button', { name: 'Sign in with your company account' }).click();
    await page
      .locator('.field-error')
      .getByText(/An account id looks like/)
      .waitFor();
    expect(await field.getAttribute('aria-invalid')).toBe('true');
    await field.fill(accountId);
    await page.getByRole('button', { name: 'Sign in with your company account' }).click();
    await page.locator('.field-error').getByText('This account has no single sign-on.').waitFor();
    await checkPage(page, 'sign-in (single sign-on refused)');
    await page.goto(`${origin}/console/?account=${accountId}`);
    const link = page.getByRole('link', { name: 'Sign in with your company account' });
    expect(await link.getAttribute('href')).toBe(`/api/v1/sign-in/oidc?account=${accountId}`);
    await context.close();
  });

  it.each(['owner', 'admin', 'designer', 'support', 'viewer'] as const)(
    'a %s sees the navigation and controls of its role; the API refuses the rest',
    async (role) => {
      const person = await joinAs(service, accountId, role);
      ({ context, page } = await openAs(person));
      await page.getByRole('navigation', { name: 'Main' }).waitFor();
      expect(await navigation(page)).toEqual(NAVIGATION[role]);
      await page.goto(`${origin}/console/#/templates`);
      await heading(page, 'Templates');
      expect(await page.getByRole('link', { name: 'New template' }).count()).toBe(role === 'owner' || role === 'admin' || role === 'designer' ? 1 : 0);
      await page.goto(`${origin}/console/#/passes`);
      await heading(page, 'Passes');
      await page.getByText('No pass yet.').waitFor();
      expect(await page.getByRole('link', { name: 'Issue a pass', exact: true }).count()).toBe(NAVIGATION[role].includes('Issue a pass') ? 3 : 0);
      if (NAVIGATION[role].includes('Members')) {
        await page.goto(`${origin}/console/#/members`);
        await heading(page, 'Members');
        expect(await page.getByRole('button', { name: 'Create invitation link' }).count()).toBe(1);
        // An admin may not make owners.
        const roles = await page.getByLabel('Role', { exact: true }).locator('option').allTextContents();
        expect(roles).toEqual(role === 'owner' ? ['Owner', 'Admin', 'Designer', 'Support', 'Viewer'] : ['Admin', 'Designer', 'Support', 'Viewer']);
      } else {
        // The page is not offered, and the route says so rather than failing.
        await page.goto(`${origin}/console/#/members`);
        await page.getByText('Your role does not include this page.').waitFor();
      }
      if (role === 'designer') await checkPage(page, 'designer without members');
      const refused = REFUSED[role];
      expect({ role, status: await callFromPage(page, refused) }).toEqual({ role, status: refused.status });
      await context.close();
    },
  );

  it('members: invites, changes a role and removes a member, whose next page load is the sign-in page', async () => {
    const owner = await joinAs(service, accountId, 'owner', 'Ola Właścicielka');
    ({ context, page } = await openAs(owner, '#/members'));
    await heading(page, 'Members');
    await checkPage(page, 'members');
    await page.getByLabel('Role', { exact: true }).selectOption('support');
    await page.getByLabel('E-mail address (optional)').fill('sam@tea.example');
    await page.getByRole('button', { name: 'Create invitation link' }).click();
    const link = (await page.locator('.alert.success code.secret').textContent())!;
    await page.getByRole('button', { name: 'Copy link' }).waitFor();
    await page.getByText('sam@tea.example').waitFor();
    await checkPage(page, 'members with an invitation');
    await page.screenshot({ path: resolve(root, 'test/artifacts/console-members.png'), fullPage: true });

    // Sam accepts (through the API, as the invitation page would) and opens the console.
    const token = new URL(link).hash.replace('#invitation=', '');
    const accepted = await supertest(service.app)
      .post('/api/v1/invitation-acceptances')
      .send({ token, name: 'Sam Support', password: 'a long enough password' })
      .expect(201);
    const sam = await openAs({ cookie: cookieOf(accepted.headers['set-cookie']) });
    await sam.page.getByRole('navigation', { name: 'Main' }).waitFor();
    expect(await navigation(sam.page)).toEqual(NAVIGATION.support);

    await page.reload();
    await heading(page, 'Members');
    const roleOfSam = page.getByLabel('Role of Sam Support');
    expect(await roleOfSam.inputValue()).toBe('support');
    await roleOfSam.selectOption('designer');
    await page.waitForResponse((res) => res.url().includes('/api/v1/members/') && res.request().method() === 'PATCH');
    await sam.page.reload();
    await sam.page.getByRole('navigation', { name: 'Main' }).waitFor();
    expect(await navigation(sam.page)).toEqual(NAVIGATION.designer);

    await page.getByRole('button', { name: 'Remove Sam Support' }).click();
    await checkPage(page, 'members: remove dialog');
    await page.getByRole('dialog').getByRole('button', { name: 'Remove', exact: true }).click();
    await page.getByRole('cell', { name: 'Sam Support', exact: true }).waitFor({ state: 'detached' });
    await sam.page.reload();
    await heading(sam.page, 'Sign in to the console');
    await sam.context.close();
    await context.close();
  });

  it('an admin makes a restricted key on the API keys page (errors at their field, the key shown once) and revokes it', async () => {
    const admin = await joinAs(service, accountId, 'admin', 'Łukasz Admin');
    ({ context, page } = await openAs(admin, '#/api-keys'));
    await heading(page, 'API keys');
    const form = page.getByRole('form', { name: 'Create an API key' });
    // A secret key may make owners, which an admin may not: not offered.
    expect(await form.getByLabel('Kind').locator('option').allTextContents()).toEqual(['Restricted', 'Publishable']);
    await form.getByLabel('Name').fill('Kasa 3, Gdańsk');
    // No scope ticked: the API's error appears at the scopes.
    await form.getByRole('button', { name: 'Create API key' }).click();
    await form.locator('#scopes-error').getByText('A restricted key needs at least one scope.').waitFor();
    expect(await form.getByRole('group', { name: 'Scopes' }).getAttribute('aria-invalid')).toBe('true');
    await checkPage(page, 'api keys: error at the scopes');
    await form.getByRole('checkbox', { name: /passes:read/ }).check();
    await form.getByLabel('Only from these addresses (optional)').fill('203.0.113.0/33');
    await form.getByRole('button', { name: 'Create API key' }).click();
    await form.locator('.field-error').getByText('203.0.113.0/33 is not an address range in CIDR notation.').waitFor();
    await form.getByLabel('Only from these addresses (optional)').fill('127.0.0.0/8\n::1/128');
    await form.getByRole('button', { name: 'Create API key' }).click();
    const token = (await page.locator('.alert.success code.secret').textContent())!;
    expect(token).toMatch(/^wps_[A-Za-z0-9_-]{43}$/);
    await page.getByRole('button', { name: 'Copy key' }).waitFor();
    const row = page.getByRole('row', { name: /Kasa 3, Gdańsk/ });
    await row.getByText('passes:read · from 127.0.0.0/8, ::1/128').waitFor();
    await checkPage(page, 'api keys: the new key shown once');
    await page.screenshot({ path: resolve(root, 'test/artifacts/console-api-keys.png'), fullPage: true });
    await supertest(service.app).get('/api/v1/passes').set('Authorization', `Bearer ${token}`).expect(200);
    // The key is not shown again.
    await page.reload();
    await heading(page, 'API keys');
    await row.waitFor();
    expect(await page.locator('code.secret').count()).toBe(0);
    expect(await page.content()).not.toContain(token);
    await row.getByRole('button', { name: 'Revoke Kasa 3, Gdańsk' }).click();
    await checkPage(page, 'api keys: revoke dialog');
    await page.getByRole('dialog').getByRole('button', { name: 'Revoke', exact: true }).click();
    await row.getByText('Revoked').waitFor();
    await supertest(service.app).get('/api/v1/passes').set('Authorization', `Bearer ${token}`).expect(401);
    await context.close();
  });

  it('your account: sessions, "Sign out everywhere" ends every one; a person in two accounts switches', async () => {
    const person = await joinAs(service, accountId, 'viewer', 'Wiktor Viewer');
    // A second sign-in, elsewhere.
    const again = await supertest(service.app).post('/api/v1/sign-in/password').send({ email: person.email, password: person.password }).expect(201);
    const elsewhere = await openAs({ cookie: cookieOf(again.headers['set-cookie']) });
    // Joining a second account as the signed-in person.
    const invited = await supertest(service.app)
      .post(`/admin/v1/accounts/${secondAccountId}/invitations`)
      .set(service.adminAuth())
      .send({ invitation: { role: 'designer' } })
      .expect(201);
    await supertest(service.app)
      .post('/api/v1/invitation-acceptances')
      .set(session(person))
      .send({ token: new URL(invited.body.data.attributes.url).hash.replace('#invitation=', '') })
      .expect(201);

    // Joining took the session to the new account.
    ({ context, page } = await openAs(person));
    const switcher = page.getByLabel('Account', { exact: true });
    await switcher.waitFor(); // drawn once the session has arrived
    expect((await switcher.locator('option').allTextContents()).sort()).toEqual(['Coffee Club · Designer', 'Tea House · Viewer']);
    await page.getByRole('heading', { level: 1, name: 'Welcome' }).waitFor();
    expect(await navigation(page)).toEqual(NAVIGATION.designer);
    await checkPage(page, 'designer home with the account switcher');
    await switcher.selectOption({ label: 'Tea House · Viewer' });
    await heading(page, 'Overview');
    expect(await navigation(page)).toEqual(NAVIGATION.viewer);
    expect((await sessionIn(page)).accountId).toBe(accountId);

    await page.getByRole('link', { name: 'Wiktor Viewer' }).click();
    await heading(page, 'Your account');
    await page.getByText('This session', { exact: true }).waitFor();
    expect(await page.getByRole('button', { name: 'End this session' }).count()).toBe(1);
    await checkPage(page, 'your account: sessions');
    await page.screenshot({ path: resolve(root, 'test/artifacts/console-your-account.png'), fullPage: true });
    await page.getByRole('button', { name: 'Sign out everywhere' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Sign out everywhere' }).click();
    await heading(page, 'Sign in to the console');
    await elsewhere.page.reload();
    await heading(elsewhere.page, 'Sign in to the console');
    const ended = await supertest(service.app).get('/api/v1/session').set('Cookie', person.cookie);
    expect(ended.status).toBe(401);
    await elsewhere.context.close();
    await context.close();
  });
});
