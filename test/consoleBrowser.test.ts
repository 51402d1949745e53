/**
 * The operator console (console/, served at /console) in a real headless Chromium, against a
 * fresh service with its job workers and an APNs stand-in (test/support/fakeApns.ts): sign in as
 * the account's owner (a password and an authenticator app's code; the console holds no API key); design a template with uploaded images (and the live preview when the
 * server has the preview operations); issue a pass; change its points and see the delivery
 * timeline record the push to a registered iPhone; send the holder a message (one too long
 * refused next to its field; one of 350 characters stored, pushed and on the pass the iPhone
 * fetches); upload a CSV of 1,000 rows and watch the progress bar reach 100 %; create a webhook
 * subscription; sign out; the administration token's accounts page; an account's Apple
 * credentials (Apple's DER `.cer` files and an encrypted key) and Google service account key,
 * each first refused with the API's message next to the file, then stored as the API shows, no
 * key or passphrase left in the page. Every page and form state is checked with axe-core (WCAG
 * 2.x A and AA rules, 0 violations) with the console's own Content-Security-Policy in force (axe
 * is evaluated through the DevTools protocol, which the CSP does not govern), no CSP violation,
 * no request leaving the service, no secret in localStorage, and no horizontal scrolling at
 * 390 px. First, over plain HTTP: the console's headers (CSP, caching) and its scripts sent
 * precompressed (Brotli or gzip, as accepted). Screenshots go to docs/console-{overview,designer,pass}.png.
 *
 * Needs Debian's `chromium` (CHROMIUM_PATH overrides /usr/bin/chromium); skipped without it. Runs
 * in the pglite project only: the console is a client of the API, whose database behaviour the
 * API tests cover on both databases (test/stats.test.ts, test/passes.create.test.ts, …); running the
 * same browser walk twice would double its minute of CI time for nothing new.
 */
import { spawnSync } from 'node:child_process';
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { PNG } from 'pngjs';
import { createApnsClient, type ApnsClient } from '../src/wallet/apple/apns.ts';
import { PASS_TYPE_ID, setAppleConfiguration, TEAM_ID, testCertificates } from './support/appleCredentials.ts';
import { CLIENT_EMAIL, ISSUER_ID, serviceAccountKeyFile } from './support/googleCredentials.ts';
import { startFakeApns, type FakeApns } from './support/fakeApns.ts';
import { pollUntil } from './support/poll.ts';
import { ICON_PNG, LOGO_PNG } from './support/images.ts';
import { binary, SimulatedIphone } from './support/simulatedIphone.ts';
import { testDatabaseKind } from './support/testDatabase.ts';
import { startTestService, type TestService } from './support/testService.ts';
import { axeViolations, cspViolationsOf, guardedContext, launchChromium } from './support/chromium.ts';
import { joinAs, totpCode } from './support/people.ts';

const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const root = resolve(import.meta.dirname, '..');
const docs = resolve(root, 'docs');

let skipReason: string | undefined;
if (testDatabaseKind() !== 'pglite') skipReason = 'runs in the pglite project only';
else if (!existsSync(chromiumPath)) {
  skipReason = `no Chromium at ${chromiumPath}`;
  console.warn(`Skipping the console browser test: no Chromium at ${chromiumPath}. Install it with 'apt-get install -y --no-install-recommends chromium'.`);
}

(skipReason ? describe.skip : describe)(`operator console in Chromium${skipReason ? ` (skipped: ${skipReason})` : ''}`, () => {
  let fake: FakeApns;
  let apns: ApnsClient;
  let service: TestService;
  let server: Server;
  let origin: string;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let tenant: { accountId: string; token: string };
  let files: string;
  const offService: string[] = [];
  let passId: string;
  let iphone: SimulatedIphone;

  beforeAll(async () => {
    if (!existsSync(resolve(root, 'console/dist/index.html'))) {
      // npm install builds it (the prepare script); build it here when it has not run since a change.
      const built = spawnSync(
        process.execPath,
        [resolve(root, 'node_modules/vite/bin/vite.js'), 'build', '--config', 'console/vite.config.ts', '--logLevel', 'warn'],
        { cwd: root },
      );
      if (built.status !== 0) throw new Error(`vite build failed: ${built.stderr}`);
    }
    fake = await startFakeApns();
    apns = createApnsClient({ baseUrl: fake.url, ca: fake.ca, requestTimeoutMs: 2000 });
    service = await startTestService({ jobs: 'work', apns, passChangeRelayIntervalMs: 200, config: { webhookAllowPrivate: true } });
    tenant = await service.createAccount('Coffee Club Ltd');
    await service.createEntity(tenant.accountId, 'Soho');
    await setAppleConfiguration(service, tenant.accountId);
    files = await mkdtemp(join(tmpdir(), 'console-test-'));
    await writeFile(join(files, 'logo.png'), Buffer.from(LOGO_PNG.split(',')[1]!, 'base64'));
    await writeFile(join(files, 'icon.png'), Buffer.from(ICON_PNG.split(',')[1]!, 'base64'));
    const rows = Array.from({ length: 1000 }, (_, i) => `member-${i + 1},Member ${i + 1}`);
    await writeFile(join(files, 'members.csv'), `ext_id,passfield_member\r\n${rows.join('\r\n')}\r\n`);
    server = service.app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    browser = await launchChromium(chromiumPath);
    context = await guardedContext(browser, origin, offService);
    page = await context.newPage();
    await mkdir(resolve(root, 'test/artifacts'), { recursive: true });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    if (server) await new Promise((r) => server.close(r));
    await service?.close();
    await apns?.close();
    await fake?.close();
  });

  /** Checks the page: 0 axe violations, no CSP violation, nothing fetched from another host. */
  async function checkPage(name: string): Promise<void> {
    await page.locator('h1').first().waitFor();
    expect({ name, violations: await axeViolations(page) }).toEqual({ name, violations: [] });
    expect(await cspViolationsOf(page)).toEqual([]);
    expect(offService).toEqual([]);
  }

  /** At 390 px wide the page scrolls only vertically; `screenshot` names a file in test/artifacts/. */
  async function fitsPhone(screenshot?: string): Promise<void> {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.waitForTimeout(100);
    expect(await page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    if (screenshot) await page.screenshot({ path: resolve(root, 'test/artifacts', screenshot), fullPage: true });
    await page.setViewportSize({ width: 1280, height: 900 });
  }

  /**
   * The API error shown for the field labelled `label` in `scope`, once the field is marked
   * invalid: the text of the element its `aria-describedby` names for the error.
   */
  async function fieldError(scope: Locator, label: string | RegExp): Promise<string | null> {
    const field = scope.getByLabel(label, { exact: true });
    await pollUntil(
      () => field.getAttribute('aria-invalid'),
      (invalid) => invalid === 'true',
    );
    const id = ((await field.getAttribute('aria-describedby')) ?? '').split(' ').find((ref) => ref.endsWith('-error'));
    return id ? page.locator(`[id="${id}"]`).textContent() : null;
  }

  /** Fails when the page's markup or storage holds any of `secrets`. */
  async function showsNone(secrets: string[]): Promise<void> {
    const html = await page.content();
    const storage = await page.evaluate(() => JSON.stringify([(globalThis as any).sessionStorage, (globalThis as any).localStorage]));
    for (const secret of secrets) expect({ secret, inPage: html.includes(secret) || storage.includes(secret) }).toEqual({ secret, inPage: false });
  }

  const nav = (name: string) => page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name, exact: true }).click();

  it('serves the console with a self-only CSP, immutable hashed assets sent precompressed and a no-cache index', async () => {
    const index = await fetch(`${origin}/console/`);
    expect(index.status).toBe(200);
    expect(index.headers.get('cache-control')).toBe('no-cache');
    const csp = index.headers.get('content-security-policy')!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    const html = await index.text();
    const asset = /\/console\/assets\/index-[\w-]+\.js/.exec(html)![0];
    const js = await fetch(`${origin}${asset}`);
    expect(js.status).toBe(200);
    expect(js.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    // Sent precompressed (console/vite.config.ts): Brotli when accepted (as Chromium does; fetch decodes it), else gzip, else as built.
    const built = readFileSync(resolve(root, 'console/dist', asset.slice('/console/'.length)));
    const brotli = await fetch(`${origin}${asset}`, { headers: { 'Accept-Encoding': 'gzip, deflate, br, zstd' } });
    expect(brotli.headers.get('content-encoding')).toBe('br');
    expect(brotli.headers.get('vary')).toBe('Accept-Encoding');
    expect(brotli.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(Buffer.from(await brotli.arrayBuffer()).equals(built)).toBe(true);
    const gzipped = await fetch(`${origin}${asset}`, { headers: { 'Accept-Encoding': 'gzip' } });
    expect(gzipped.headers.get('content-encoding')).toBe('gzip');
    expect(gzipped.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(Buffer.from(await gzipped.arrayBuffer()).equals(built)).toBe(true);
    const plain = await fetch(`${origin}${asset}`, { headers: { 'Accept-Encoding': 'identity' } });
    expect(plain.headers.get('content-encoding')).toBeNull();
    expect(Number(plain.headers.get('content-length'))).toBe(built.length);
    expect((await fetch(`${origin}/console`, { redirect: 'manual' })).headers.get('location')).toBe('/console/');
    expect((await fetch(`${origin}/console/assets/nothing.js`)).status).toBe(404);
  });

  it('signs in as the account’s owner with a password and code, refusing a wrong password next to the field', async () => {
    // The console holds no API key: the owner, invited by the operator, signs in.
    const owner = await joinAs(service, tenant.accountId, 'owner', 'Olga Owner');
    await page.goto(`${origin}/console/`);
    await checkPage('sign-in');
    // Keyboard: Tab reaches the first control, the passkey, and the focus is visible (WCAG 2.4.7).
    const passkey = page.getByRole('button', { name: 'Sign in with a passkey' });
    await page.keyboard.press('Tab');
    expect(await passkey.evaluate((el) => el === (globalThis as any).document.activeElement)).toBe(true);
    expect(await passkey.evaluate((el) => (globalThis as any).getComputedStyle(el).outlineStyle)).toBe('solid');
    const password = page.getByLabel('Password', { exact: true });
    await page.getByLabel('E-mail address', { exact: true }).fill(owner.email);
    await password.fill('not the password');
    await page.getByRole('button', { name: 'Sign in with password' }).click();
    await expect(page.locator('.field-error').textContent()).resolves.toMatch(/not right/);
    expect(await password.getAttribute('aria-invalid')).toBe('true');
    await password.fill(owner.password);
    await password.press('Enter');
    const code = page.getByLabel('Code from your authenticator app');
    await code.fill(await totpCode(owner.totpSecret!));
    await code.press('Enter');
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    expect(await page.evaluate(() => JSON.stringify((globalThis as any).localStorage))).toBe('{}');
    expect(await page.evaluate(() => (globalThis as any).sessionStorage.length)).toBe(0);
    await showsNone([tenant.token]);
    await page.getByText('No pass was issued in this range.').waitFor();
    await checkPage('overview (empty)');
  });

  it('designs a template with uploaded images, the preview following the form when the server draws one', async () => {
    await nav('Templates');
    await page.getByText('No template yet.').waitFor();
    await checkPage('templates (empty)');
    await page.getByRole('link', { name: 'New template' }).click();
    await page.getByRole('heading', { level: 1, name: 'New template' }).waitFor();
    await page.getByLabel('Name', { exact: true }).fill('Coffee Club Card');
    await page.getByLabel('Central title').fill('Coffee Club');
    await page.getByLabel('Logo').setInputFiles(join(files, 'logo.png'));
    await page.getByLabel('Icon').setInputFiles(join(files, 'icon.png'));
    await page.getByAltText('Logo as uploaded').waitFor();
    expect(await page.getByAltText('Logo as uploaded').getAttribute('src')).toMatch(/^data:image\/png;base64,/);
    const stage = page.locator('.preview-stage');
    await stage.locator('img, p.muted:not(:has-text("Drawing"))').first().waitFor();
    if (await stage.locator('img').count()) {
      const before = await stage.locator('img').getAttribute('src');
      await page.getByLabel('Background colour').fill('#336699');
      await pollUntil(
        () => stage.locator('img').getAttribute('src'),
        (src) => src !== before,
      );
    } else {
      await stage.getByText('This server does not draw previews yet').waitFor();
    }
    await checkPage('designer');
    await fitsPhone();
    await page.getByRole('button', { name: 'Create template' }).click();
    await page.waitForURL(/#\/templates\/[0-9a-f-]{36}$/);
    const templateId = page.url().split('/').at(-1)!;
    await page.locator('.status-line .badge-processed').waitFor({ timeout: 30_000 });
    const stored = (await service.api.get(`/api/v1/pass-templates/${templateId}`).set(service.auth(tenant.token)).expect(200)).body.data.attributes;
    expect(stored).toMatchObject({ name: 'Coffee Club Card', centralTitle: 'Coffee Club' });
    expect(stored.images.logo).toEqual(expect.any(String));
    expect(stored.images.icon).toEqual(expect.any(String));
    await page.getByAltText('Logo as uploaded').waitFor();
    await stage.locator('img, p.muted:not(:has-text("Drawing"))').first().waitFor();
    await page.setViewportSize({ width: 1280, height: 1500 });
    await page.screenshot({ path: resolve(docs, 'console-designer.png') });
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it('shows the Google card of a wide logo with the logo uncropped, not masked into a circle (issue 37 point 6)', async () => {
    // The template the designer saved is open; its logo is 320 × 100 (3.2:1) in #F5D76E.
    await page.getByRole('radio', { name: 'Google' }).check();
    const card = page.getByAltText('Google Wallet preview, front');
    await card.waitFor();
    await pollUntil(
      () =>
        card.evaluate(
          (img) => (img as unknown as { naturalWidth: number; complete: boolean }).complete && (img as unknown as { naturalWidth: number }).naturalWidth,
        ),
      (width) => Number(width) > 0,
    );
    await page.setViewportSize({ width: 1280, height: 1500 });
    await page.screenshot({ path: resolve(docs, 'console-designer-google.png') });
    const shot = PNG.sync.read(await card.screenshot());
    // The logo's pixels in the top fifth of the card: their box is about 3.2 times as wide as high and fully drawn.
    let [left, top, right, bottom, count] = [Infinity, Infinity, -1, -1, 0];
    for (let y = 0; y < Math.round(shot.height / 5); y++) {
      for (let x = 0; x < shot.width; x++) {
        const i = (y * shot.width + x) * 4;
        if ([0xf5, 0xd7, 0x6e].every((c, k) => Math.abs(shot.data[i + k]! - c) <= 10)) {
          [left, top, right, bottom, count] = [Math.min(left, x), Math.min(top, y), Math.max(right, x), Math.max(bottom, y), count + 1];
        }
      }
    }
    const [width, height] = [right - left + 1, bottom - top + 1];
    expect(width / height).toBeGreaterThan(2.8);
    expect(count / (width * height)).toBeGreaterThan(0.95);
    await checkPage('template (Google preview)');
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.getByRole('radio', { name: 'Apple' }).check();
  });

  it('shows the API error of a bad template next to its field', async () => {
    await page.goto(`${origin}/console/#/templates/new`);
    // A kind's own members appear with the kind (a coupon's offer: Google's redemption channel).
    await page.getByLabel('Type', { exact: true }).selectOption('coupon');
    await page.getByRole('group', { name: 'Offer' }).getByLabel('Redemption channel').waitFor();
    await page.getByLabel('Name', { exact: true }).fill('x'.repeat(300));
    await page.getByRole('button', { name: 'Create template' }).click();
    const error = page.locator('.field.invalid .field-error').first();
    await error.waitFor();
    expect(await page.locator('.field.invalid label').first().textContent()).toBe('Name');
  });

  it('issues a pass and changes its points: the timeline records the push to the registered iPhone', async () => {
    await nav('Issue a pass');
    await page.getByRole('heading', { level: 1, name: 'Issue a pass' }).waitFor();
    await checkPage('issue');
    await page.getByLabel('extId (your own id, optional)').fill('ada-1');
    await page.getByLabel('Member (member)').fill('Ada Lovelace');
    await page.getByRole('button', { name: 'Issue pass' }).click();
    await page.waitForURL(/#\/passes\/[0-9a-f-]{36}$/);
    passId = page.url().split('/').at(-1)!;
    await page.getByRole('heading', { level: 1, name: 'Pass ada-1' }).waitFor();
    await page.getByText('Nothing delivered yet.').waitFor();
    await page.getByRole('img', { name: 'QR code of the holder link' }).waitFor();

    // The holder adds the pass on an iPhone: it downloads the .pkpass and registers for updates.
    iphone = new SimulatedIphone(service);
    const pkpass = await service.api.get(`/passes/${passId}/apple`).buffer(true).parse(binary).expect(200);
    await iphone.add(pkpass.body as Buffer);

    await page.getByLabel('Add (or subtract)').fill('25');
    await page.getByLabel('Message to the holder (optional)').fill('25 points for your visit');
    // The limit is shown as the message form shows it (PassMessage: 350 characters).
    await page.getByText('326 characters left', { exact: true }).waitFor();
    await page.getByRole('button', { name: 'Change points' }).click();
    await page.getByText('25 points', { exact: true }).waitFor();
    const push = page.locator('.timeline li', { hasText: 'APNs push' }).filter({ hasText: 'delivered' });
    await push.first().waitFor({ timeout: 30_000 });
    expect(fake.requests.filter((r) => r.pushToken === iphone.pushToken).length).toBeGreaterThanOrEqual(1);
    await page.getByText(/push token …/).waitFor();
    await checkPage('pass');
    await page.screenshot({ path: resolve(docs, 'console-pass.png'), fullPage: true });
    await fitsPhone('console-pass-phone.png');
  });

  it('sends the holder a message: a too-long one is refused at its field, one of 350 characters is stored and pushed to the iPhone', async () => {
    const form = page.getByRole('form', { name: 'Send a message' });
    const field = form.getByLabel('Message', { exact: true });
    const latestMessage = async (id = passId) =>
      (await service.api.get(`/api/v1/passes/${id}`).set(service.auth(tenant.token)).expect(200)).body.data.attributes.latestMessage as string;
    expect(await latestMessage()).toBe('25 points for your visit');

    // A pass in no wallet: the message is kept, and the form says it went nowhere, in the API's words.
    const templateId = (await service.api.get(`/api/v1/passes/${passId}`).set(service.auth(tenant.token)).expect(200)).body.data.attributes.passTemplateUuid;
    const unadded = (
      await service.api
        .post(`/api/v1/passes?passTemplate=${templateId}`)
        .set(service.auth(tenant.token))
        .send({ pass: { member: 'Charles Babbage' } })
        .expect(200)
    ).body.data.id;
    await page.goto(`${origin}/console/#/passes/${unadded}`);
    await field.fill('Welcome to the Coffee Club!');
    await form.getByRole('button', { name: 'Send' }).click();
    await form.getByRole('status').getByText('Saved, not delivered (Pass has not been added to the wallet).').waitFor();
    expect(await latestMessage(unadded)).toBe('Welcome to the Coffee Club!');
    await checkPage('pass (message not delivered)');
    await page.goto(`${origin}/console/#/passes/${passId}`);
    // 351 characters for the API (JSON Schema counts code points; 🎉 is one, two UTF-16 units).
    const words = Array.from(`🎉 Double points on every drink this weekend, and a free pastry for each friend you bring. `.repeat(5));
    const tooLong = words.slice(0, 351).join('');
    expect(Array.from(tooLong)).toHaveLength(351);
    await field.fill(tooLong);
    expect(await field.inputValue()).toBe(tooLong);
    await form.getByText('1 character too many', { exact: true }).waitFor();
    await form.getByRole('button', { name: 'Send' }).click();
    expect(await fieldError(form, 'Message')).toBe('/message must NOT have more than 350 characters.');
    expect(await form.getByRole('alert').count()).toBe(0);
    expect(await latestMessage()).toBe('25 points for your visit');
    await checkPage('pass (message refused)');

    const message = words.slice(0, 350).join('');
    const pushesBefore = fake.requests.filter((r) => r.pushToken === iphone.pushToken).length;
    const delivered = page.locator('.timeline li', { hasText: 'APNs push' }).filter({ hasText: 'delivered' });
    const deliveredBefore = await delivered.count();
    await field.fill(message);
    await form.getByText('0 characters left', { exact: true }).waitFor();
    await form.getByRole('button', { name: 'Send' }).click();
    // The form says what the API said of the delivery (meta.notifications), and empties itself.
    await form.getByRole('status').getByText('Sent. The update is being pushed to 1 device.').waitFor();
    expect(await field.inputValue()).toBe('');
    expect(await field.getAttribute('aria-invalid')).toBeNull();
    expect(await latestMessage()).toBe(message);
    await page.locator('dd', { hasText: message }).waitFor();
    await pollUntil(
      async () => fake.requests.filter((r) => r.pushToken === iphone.pushToken).length,
      (n) => n > pushesBefore,
    );
    await pollUntil(
      () => delivered.count(),
      (n) => n > deliveredBefore,
      { timeoutMs: 15_000, intervalMs: 200 },
    );
    expect(await delivered.count()).toBe(deliveredBefore + 1);
    // The iPhone, woken by the push, fetches the pass: the message is on its back, whole.
    const fetched = await iphone.fetch(passId);
    expect(fetched.status).toBe(200);
    const backFields = Object.values(fetched.passJson!).flatMap((style) => (style as { backFields?: unknown[] } | null)?.backFields ?? []);
    expect(backFields).toContainEqual(expect.objectContaining({ key: 'latestMessage', value: message }));
    await checkPage('pass (message sent)');
  });

  it('deactivates the pass behind a confirmation', async () => {
    await page.getByRole('button', { name: 'Deactivate' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByText('Scans are refused').waitFor();
    await checkPage('pass (confirm)');
    await dialog.getByRole('button', { name: 'Deactivate' }).click();
    await page.locator('dd .badge-deactivated').waitFor();
  });

  it('finds the pass by extId prefix and by the holder’s name in the passes table', async () => {
    await nav('Passes');
    await page.getByLabel('Search').fill('ada-');
    await page.getByRole('link', { name: 'ada-1' }).waitFor();
    // The link is also in the unfiltered table, which shows until the filtered page arrives.
    expect(
      await pollUntil(
        () => page.locator('tbody tr').count(),
        (rows) => rows === 1,
      ),
    ).toBe(1);
    await page.getByLabel('Search').fill('nobody');
    await page.getByText('No pass matches these filters.').waitFor();
    await checkPage('passes (nothing found)');
    // A name (the member field's value), in another case: found, and no pattern error shown.
    await page.getByLabel('Search').fill('ada LOVELACE');
    await page.getByRole('link', { name: 'ada-1' }).waitFor();
    expect(await page.locator('tbody tr').count()).toBe(1);
    expect(await page.locator('.field-error').count()).toBe(0);
    await checkPage('passes');
    await fitsPhone();
  });

  it('uploads a CSV of 1,000 rows and the progress bar reaches 100 %', async () => {
    await nav('Batches');
    await page.getByRole('heading', { level: 1, name: 'Batches' }).waitFor();
    await checkPage('batches');
    await page.getByLabel('CSV file', { exact: true }).setInputFiles(join(files, 'members.csv'));
    await page.getByLabel('Batch name (optional)').fill('November members');
    await page.getByRole('button', { name: 'Upload' }).click();
    const batch = page.locator('li.batch', { hasText: 'November members' });
    const bar = batch.getByRole('progressbar');
    await bar.waitFor();
    await pollUntil(
      () => bar.getAttribute('max'),
      (max) => max === '1000',
      { timeoutMs: 10_000, intervalMs: 200 },
    );
    await pollUntil(
      () => bar.getAttribute('value'),
      (value) => value === '1000',
      { timeoutMs: 90_000, intervalMs: 200 },
    );
    await batch.getByText('100 % (1,000 of 1,000)').waitFor();
    await batch.locator('.badge-successful').waitFor();
    await checkPage('batches (done)');
  }, 120_000);

  it('creates a webhook subscription and shows its secret once', async () => {
    await nav('Webhooks');
    await page.getByText('No subscription yet.').waitFor();
    await checkPage('webhooks (empty)');
    await page.getByLabel('Endpoint URL (HTTPS)').fill('https://127.0.0.1:9/console-hook');
    await page.getByRole('button', { name: 'Create subscription' }).click();
    await page.locator('code.secret').waitFor();
    await page.locator('li.card', { hasText: 'https://127.0.0.1:9/console-hook' }).waitFor();
    const list = await service.api.get('/api/v1/webhook-subscriptions').set(service.auth(tenant.token)).expect(200);
    expect(list.body.data.map((s: { attributes: { url: string } }) => s.attributes.url)).toEqual(['https://127.0.0.1:9/console-hook']);
    await checkPage('webhooks');
  });

  // 1,002 passes: ada-1, the one in no wallet that got a message, and the CSV's 1,000.
  it('shows the overview with the day’s figures, then the readers page, then signs out', async () => {
    await nav('Overview');
    await page.locator('.figure', { hasText: 'Passes issued' }).locator('.figure-value', { hasText: '1,002' }).waitFor({ timeout: 20_000 });
    await page.locator('.chart .u-over').first().waitFor();
    await checkPage('overview');
    await page.screenshot({ path: resolve(docs, 'console-overview.png'), fullPage: true });
    await fitsPhone('console-overview-phone.png');
    await nav('Readers & scans');
    await page.getByRole('heading', { name: 'Soho' }).waitFor();
    await page.getByText('No reader yet.').waitFor();
    await checkPage('readers');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { level: 1, name: 'Sign in to the console' }).waitFor();
    expect(await page.evaluate(() => (globalThis as any).sessionStorage.length + (globalThis as any).localStorage.length)).toBe(0);
  });

  it('signs in with the administration token: accounts, one account, an invitation for an owner', async () => {
    await page.getByText('Operator of this service').click();
    await page.getByLabel('Administration token').fill(service.adminToken);
    await page.getByRole('button', { name: 'Sign in as operator' }).click();
    await page.getByRole('heading', { level: 1, name: 'Accounts' }).waitFor();
    await page.getByRole('link', { name: 'Coffee Club Ltd' }).waitFor();
    await checkPage('accounts');
    await page.getByRole('link', { name: 'Coffee Club Ltd' }).click();
    await page.getByRole('heading', { name: 'Apple Wallet' }).waitFor();
    await page.getByText('pass.com.example.loyalty').waitFor();
    await checkPage('account');
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Accounts' }).click();
    // No "Work as": the operator invites an owner, who works in the account.
    await page.getByRole('button', { name: 'Invite owner of Coffee Club Ltd' }).click();
    const link = (await page.locator('.alert.success code.secret').textContent())!;
    expect(link).toMatch(/\/console\/#invitation=[A-Za-z0-9_-]{43}$/);
    await checkPage('accounts (owner invited)');
    const tokens = await service.api.get(`/admin/v1/accounts/${tenant.accountId}/tokens`).set(service.adminAuth()).expect(200);
    expect(tokens.body.data).toHaveLength(1);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { level: 1, name: 'Sign in to the console' }).waitFor();
  });

  it('uploads Apple and Google credentials on an account page: the API’s refusal next to the file, then saved, no key shown back', async () => {
    const tea = await service.createAccount('Tea House');
    const admin = service.adminAuth();
    const chain = testCertificates();
    const passphrase = 'correct horse battery staple';
    const encryptedKey = createPrivateKey(chain.privateKeyPem).export({ type: 'pkcs8', format: 'pem', cipher: 'aes-256-cbc', passphrase }) as string;
    await writeFile(join(files, 'pass.pem'), chain.certificatePem);
    await writeFile(join(files, 'pass-key.pem'), encryptedKey);
    // What Apple hands out: pass.cer from the developer account, AppleWWDRCAG4.cer from its CA page, both DER.
    await writeFile(join(files, 'pass.cer'), new X509Certificate(chain.certificatePem).raw);
    await writeFile(join(files, 'AppleWWDRCAG4.cer'), new X509Certificate(chain.wwdrCertificatePem).raw);
    // An OAuth client's secret file: JSON from Google Cloud, but not a service account's key.
    await writeFile(
      join(files, 'client_secret.json'),
      JSON.stringify({ installed: { client_id: '1234-abc.apps.googleusercontent.com', client_secret: 'GOCSPX-x' } }),
    );
    await writeFile(join(files, 'service-account.json'), serviceAccountKeyFile());
    const appleList = async () =>
      (await service.api.get(`/admin/v1/accounts/${tea.accountId}/apple-configurations`).set(admin).expect(200)).body.data as {
        attributes: Record<string, any>;
      }[];
    expect(await appleList()).toEqual([]);
    await service.api.get(`/admin/v1/accounts/${tea.accountId}/google-configuration`).set(admin).expect(404);
    const secrets = [
      ...[chain.privateKeyPem, encryptedKey, JSON.parse(serviceAccountKeyFile()).private_key as string].map((pem) => pem.split('\n')[2]!),
      'PRIVATE KEY',
      passphrase,
    ];

    await page.goto(`${origin}/console/`);
    await page.getByText('Operator of this service').click();
    await page.getByLabel('Administration token').fill(service.adminToken);
    await page.getByRole('button', { name: 'Sign in as operator' }).click();
    await page.getByRole('link', { name: 'Tea House' }).click();
    await page.getByText('No Apple configuration.').waitFor();
    await page.getByText('No Google configuration.').waitFor();

    const apple = page.getByRole('form', { name: 'Set an Apple configuration' });
    await apple.getByLabel('Pass type identifier').fill(PASS_TYPE_ID);
    await apple.getByLabel('Team identifier').fill(TEAM_ID);
    await apple.getByLabel('Organisation name').fill('Tea House');
    // The files swapped: the key where the certificate goes, the certificate where the key goes.
    await apple.getByLabel(/^Pass type certificate/).setInputFiles(join(files, 'pass-key.pem'));
    await apple.getByLabel(/^Private key/).setInputFiles(join(files, 'pass.pem'));
    await apple.getByLabel(/^Apple WWDR certificate/).setInputFiles(join(files, 'AppleWWDRCAG4.cer'));
    await apple.getByRole('button', { name: 'Save Apple configuration' }).click();
    expect(await fieldError(apple, /^Pass type certificate/)).toBe('/appleConfiguration/certificate must match pattern "-----BEGIN CERTIFICATE-----".');
    expect(await apple.getByRole('alert').count()).toBe(0);
    await checkPage('account (Apple certificate refused)');

    // Apple's DER certificates with an encrypted key, its passphrase forgotten.
    await apple.getByLabel(/^Pass type certificate/).setInputFiles(join(files, 'pass.cer'));
    await apple.getByLabel(/^Private key/).setInputFiles(join(files, 'pass-key.pem'));
    await apple.getByRole('button', { name: 'Save Apple configuration' }).click();
    const encrypted = 'The private key is encrypted: give its privateKeyPassphrase.';
    expect(await fieldError(apple, 'Key passphrase (if any)')).toBe(encrypted);
    expect(await apple.getByLabel(/^Pass type certificate/).getAttribute('aria-invalid')).toBeNull();
    expect(await page.getByText(encrypted).count()).toBe(1);
    await checkPage('account (Apple passphrase missing)');
    expect(await appleList()).toEqual([]);

    await apple.getByLabel('Key passphrase (if any)').fill(passphrase);
    await apple.getByRole('button', { name: 'Save Apple configuration' }).click();
    await apple.getByRole('status').getByText('Saved.').waitFor();
    await page.getByText(`${PASS_TYPE_ID} (team ${TEAM_ID}) · default · push ok`).waitFor();
    const sha256 = (pem: string) => new X509Certificate(pem).fingerprint256.replace(/:/g, '').toLowerCase();
    expect((await appleList()).map((c) => c.attributes)).toEqual([
      expect.objectContaining({
        passTypeIdentifier: PASS_TYPE_ID,
        teamIdentifier: TEAM_ID,
        organizationName: 'Tea House',
        certificate: expect.objectContaining({ sha256Fingerprint: sha256(chain.certificatePem) }),
        wwdrCertificate: expect.objectContaining({ sha256Fingerprint: sha256(chain.wwdrCertificatePem) }),
      }),
    ]);
    // Stored: the form lets go of the key file and the passphrase.
    expect(await apple.getByLabel('Key passphrase (if any)').inputValue()).toBe('');
    expect(await apple.getByLabel(/^Private key/).inputValue()).toBe('');

    const google = page.getByRole('form', { name: 'Set the Google configuration' });
    await google.getByLabel('Issuer id').fill(ISSUER_ID);
    await google.getByLabel('Service account key (JSON)').setInputFiles(join(files, 'client_secret.json'));
    await google.getByRole('button', { name: 'Save Google configuration' }).click();
    expect(await fieldError(google, 'Service account key (JSON)')).toBe('The key file\'s type must be "service_account", got null.');
    expect(await google.getByRole('alert').count()).toBe(0);
    await checkPage('account (Google key refused)');
    await service.api.get(`/admin/v1/accounts/${tea.accountId}/google-configuration`).set(admin).expect(404);

    await google.getByLabel('Service account key (JSON)').setInputFiles(join(files, 'service-account.json'));
    await google.getByRole('button', { name: 'Save Google configuration' }).click();
    await google.getByRole('status').getByText('Saved.').waitFor();
    await page.getByText(`Issuer ${ISSUER_ID}, service account ${CLIENT_EMAIL}`).waitFor();
    expect(await google.getByLabel('Service account key (JSON)').inputValue()).toBe('');
    const stored = (await service.api.get(`/admin/v1/accounts/${tea.accountId}/google-configuration`).set(admin).expect(200)).body.data.attributes;
    expect(stored).toMatchObject({ issuerId: ISSUER_ID, clientEmail: CLIENT_EMAIL, privateKeyId: JSON.parse(serviceAccountKeyFile()).private_key_id });
    await showsNone(secrets);
    await checkPage('account (credentials saved)');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { level: 1, name: 'Sign in to the console' }).waitFor();
  });
});
