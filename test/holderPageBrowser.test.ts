/**
 * The holder pass page (getHolderPassPage, a pass's `downloadUrl`) opened in a real headless
 * Chromium with an iPhone, an Android phone and a desktop browser (user agent and viewport):
 * the primary action, the iPhone's download (content type, a signature that verifies), the
 * Android link's save JWT naming this pass's Google object, the desktop QR code decoding back to
 * the page's URL, the inactive, 410 and 404 pages, no request leaving the service, and an
 * accessibility check (axe-core) without serious or critical violations. Screenshots are saved
 * to test/artifacts/holder-page-{phone,desktop}.png.
 *
 * Needs Debian's `chromium`, as test/docs.test.ts (`.ci/run` installs it; CHROMIUM_PATH
 * overrides /usr/bin/chromium); without it the file is skipped with a warning. Runs in the
 * pglite project only: the page's database work is covered by test/holderPages.test.ts.
 */
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { decodeJwt } from 'jose';
import jsQRModule from 'jsqr';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import sharp from 'sharp';
import { startFakeGoogleWallet, type FakeGoogleWallet } from './support/fakeGoogleWallet.ts';
import { CLIENT_EMAIL, ISSUER_ID, serviceAccountKeyFile, serviceAccountKeyPair } from './support/googleCredentials.ts';
import { setAppleConfiguration, testCertificates } from './support/appleCredentials.ts';
import { createTemplate, issuePass, loyaltyTemplate } from './support/passes.ts';
import { inspectPkpass } from './support/pkpassInspection.ts';
import { testDatabaseKind } from './support/testDatabase.ts';
import { startTestService, type TestService } from './support/testService.ts';

const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const artifacts = resolve(import.meta.dirname, 'artifacts');
const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
/** jsQR is a UMD bundle: its default export is the module object. */
const jsQR = jsQRModule.default;

const DEVICES = {
  phone: {
    userAgent: 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1',
    viewport: { width: 390, height: 844 },
    isMobile: true,
    hasTouch: true,
  },
  android: {
    userAgent: 'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.6478.71 Mobile Safari/537.36',
    viewport: { width: 412, height: 915 },
    isMobile: true,
    hasTouch: true,
  },
  desktop: {
    userAgent: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36',
    viewport: { width: 1280, height: 900 },
    isMobile: false,
    hasTouch: false,
  },
} as const;

let skipReason: string | undefined;
if (testDatabaseKind() !== 'pglite') skipReason = 'runs in the pglite project only';
else if (!existsSync(chromiumPath)) {
  skipReason = `no Chromium at ${chromiumPath}`;
  console.warn(
    `Skipping the holder page browser test: no Chromium at ${chromiumPath}. Install it with 'apt-get install -y --no-install-recommends chromium' (or set CHROMIUM_PATH).`,
  );
}

(skipReason ? describe.skip : describe)(`holder page in Chromium${skipReason ? ` (skipped: ${skipReason})` : ''}`, () => {
  let fake: FakeGoogleWallet;
  let service: TestService;
  let server: Server;
  let origin: string;
  let browser: Browser;
  let token: string;
  let templateId: string;
  /** Every request a page tried to make off this service (all blocked). */
  const offService: string[] = [];

  beforeAll(async () => {
    fake = await startFakeGoogleWallet({ publicKey: serviceAccountKeyPair().publicKey, clientEmail: CLIENT_EMAIL });
    service = await startTestService({ jobs: 'work', config: { googleWalletApiUrl: fake.apiUrl, googleOauthTokenUrl: fake.tokenUrl } });
    const tenant = await service.createAccount('Coffee Club Ltd');
    token = tenant.token;
    await service.createEntity(tenant.accountId);
    await setAppleConfiguration(service, tenant.accountId);
    await service.api
      .put(`/admin/v1/accounts/${tenant.accountId}/google-configuration`)
      .set(service.adminAuth())
      .send({ googleConfiguration: { issuerId: ISSUER_ID, serviceAccountKey: serviceAccountKeyFile() } })
      .expect(201);
    templateId = await createTemplate(service, token, loyaltyTemplate());
    server = service.app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    browser = await chromium.launch({
      executablePath: chromiumPath,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
      timeout: 20_000,
    });
    await mkdir(artifacts, { recursive: true });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    if (server) await new Promise((r) => server.close(r));
    await service?.close();
    await fake?.close();
  });

  async function open(device: keyof typeof DEVICES, passId: string): Promise<{ context: BrowserContext; page: Page; status: number }> {
    // bypassCSP lets the test inject axe-core; the page's CSP itself is checked in test/holderPages.test.ts.
    const context = await browser.newContext({ ...DEVICES[device], acceptDownloads: true, bypassCSP: true });
    context.setDefaultTimeout(10_000);
    await context.route('**/*', (route) => {
      const url = route.request().url();
      if (new URL(url).origin === origin) return route.continue();
      offService.push(url);
      return route.abort('blockedbyclient');
    });
    const page = await context.newPage();
    const response = await page.goto(`${origin}/passes/${passId}`);
    return { context, page, status: response!.status() };
  }

  /** axe-core's serious and critical violations on the page. */
  async function seriousViolations(page: Page): Promise<string[]> {
    await page.addScriptTag({ content: axeSource });
    const violations = await page.evaluate(async () => {
      const result = await (globalThis as unknown as { axe: { run(): Promise<{ violations: { id: string; impact: string | null }[] }> } }).axe.run();
      return result.violations.map((v) => ({ id: v.id, impact: v.impact }));
    });
    return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id);
  }

  it('offers an iPhone the Apple pass first, whose download is a signed .pkpass', async () => {
    const pass = await issuePass(service, token, templateId, { pass: { member: 'Ada' } });
    const { context, page, status } = await open('phone', pass.id);
    try {
      expect(status).toBe(200);
      const primary = page.locator('a[data-primary]');
      await expect(primary.getAttribute('data-action')).resolves.toBe('apple');
      expect(await seriousViolations(page)).toEqual([]);
      await page.screenshot({ path: resolve(artifacts, 'holder-page-phone.png'), fullPage: true });
      const href = (await primary.getAttribute('href'))!;
      const response = await page.request.get(new URL(href, origin).toString());
      expect(response.headers()['content-type']).toBe('application/vnd.apple.pkpass');
      const [download] = await Promise.all([page.waitForEvent('download'), primary.click()]);
      expect(download.suggestedFilename()).toMatch(/\.pkpass$/);
      const inspected = await inspectPkpass(await readFile((await download.path())!), testCertificates().rootCertificatePem);
      expect(inspected.signatureVerified).toBe(true);
      expect(inspected.passJson.serialNumber).toBe(pass.id);
    } finally {
      await context.close();
    }
  });

  it("offers an Android phone the Google save link first, whose JWT names this pass's object", async () => {
    const pass = await issuePass(service, token, templateId, { pass: { member: 'Grace' } });
    const { context, page, status } = await open('android', pass.id);
    try {
      expect(status).toBe(200);
      const primary = page.locator('a[data-primary]');
      expect(await primary.getAttribute('data-action')).toBe('google');
      const href = (await primary.getAttribute('href'))!;
      expect(href).toMatch(/^https:\/\/pay\.google\.com\/gp\/v\/save\//);
      const claims = decodeJwt(href.split('/').at(-1)!) as { payload: { loyaltyObjects?: { id: string }[] } };
      expect(claims.payload.loyaltyObjects?.map((o) => o.id)).toEqual([`${ISSUER_ID}.${pass.id}`]);
      expect(await page.locator('a[data-action="apple"]').count()).toBe(1);
      expect(await seriousViolations(page)).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it("shows a desktop browser a QR code of the page's own URL, and both actions", async () => {
    const pass = await issuePass(service, token, templateId, { pass: { member: 'Katherine' } });
    const { context, page, status } = await open('desktop', pass.id);
    try {
      expect(status).toBe(200);
      expect(await page.locator('a[data-action]').count()).toBe(2);
      const png = await page.locator('#qr svg').screenshot();
      const { data, info } = await sharp(png).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
      const decoded = jsQR(new Uint8ClampedArray(data.buffer, data.byteOffset, data.byteLength), info.width, info.height);
      expect(decoded?.data).toBe(pass.attributes.downloadUrl);
      expect(await seriousViolations(page)).toEqual([]);
      await page.screenshot({ path: resolve(artifacts, 'holder-page-desktop.png'), fullPage: true });
    } finally {
      await context.close();
    }
  });

  it('shows an inactive pass without actions, a nullified one as 410 and an unknown one as 404', async () => {
    const inactive = await issuePass(service, token, templateId);
    await service.api.patch(`/api/v1/passes/${inactive.id}`).set(service.auth(token)).send({ passAction: 'deactivate' }).expect(200);
    const nullified = await issuePass(service, token, templateId);
    await service.api.post(`/api/v1/passes/${nullified.id}/nullify`).set(service.auth(token)).expect(200);
    const cases = [
      [inactive.id, 200, 'This pass is currently inactive'],
      [nullified.id, 410, 'This pass is no longer valid'],
      ['0194f3a2-7c1e-7a51-9d7e-0b6a2f1c9e10', 404, ''],
    ] as const;
    for (const [id, expectedStatus, text] of cases) {
      const { context, page, status } = await open('phone', id);
      try {
        expect(status).toBe(expectedStatus);
        expect(await page.locator('a[data-action]').count()).toBe(0);
        // biome-ignore lint/performance/useDomNodeTextContent: Playwright's locator.innerText, what a person sees, not the DOM property
        if (text) expect(await page.locator('body').innerText()).toContain(text);
        expect(await seriousViolations(page)).toEqual([]);
      } finally {
        await context.close();
      }
    }
  });

  it('makes no request to anywhere but this service', () => {
    expect(offService).toEqual([]);
  });
});
