/**
 * The holder pass page (getHolderPassPage, a pass's `downloadUrl`) opened in one shared headless
 * Chromium as an iPhone, an Android phone (an account with Google Wallet and one without) and a
 * desktop browser (user agent, viewport, `Accept-Language`), each in English, German and
 * Japanese: the primary action and the page's language, the iPhone's download (a signature that
 * verifies), the Android link's save JWT naming this pass's Google object, the web pass as
 * Android's primary action without Google, the desktop QR code decoding back to the page's URL,
 * one labelled code per purpose (the page's, to scan with a phone; the pass's, to show at the
 * counter; the card drawn without the pass's code), holders named in Polish and Japanese,
 * the inactive, 410 and 404 pages, a link with a trailing full stop, no request leaving the
 * service, and axe-core with no violation at all (a template with good contrast). Screenshots go
 * to test/artifacts/ and, for the README, to docs/holder-page-*.png.
 *
 * Needs Debian's `chromium` (and a Japanese font, `fonts-ipafont-gothic`), as test/docs.test.ts
 * (`.ci/run` installs them; CHROMIUM_PATH overrides /usr/bin/chromium); without Chromium the file
 * is skipped with a warning. Runs in the pglite project only: the page's database work is covered
 * by test/holderPages.page.test.ts.
 */
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { decodeJwt } from 'jose';
import jsQRModule from 'jsqr';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import sharp from 'sharp';
import { startFakeGoogleWallet, type FakeGoogleWallet } from './support/fakeGoogleWallet.ts';
import { CLIENT_EMAIL, ISSUER_ID, serviceAccountKeyPair, putGoogleConfiguration } from './support/googleCredentials.ts';
import { setAppleConfiguration, testCertificates } from './support/appleCredentials.ts';
import { catalogue } from './support/holderPageCatalogues.ts';
import { createTemplate, issuePass, loyaltyTemplate } from './support/passes.ts';
import { BANNER_PNG, ICON_PNG, LOGO_PNG } from './support/images.ts';
import { inspectPkpass } from './support/pkpassInspection.ts';
import { testDatabaseKind } from './support/testDatabase.ts';
import { startTestService, type TestService } from './support/testService.ts';
import { launchChromium } from './support/chromium.ts';

const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const artifacts = resolve(import.meta.dirname, 'artifacts');
const docs = resolve(import.meta.dirname, '../docs');
const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
/** jsQR is a UMD bundle: its default export is the module object. */
const jsQR = jsQRModule.default;

const DEVICES = {
  iphone: {
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
  /** An account with Apple credentials only, and its template. */
  let appleOnly: { token: string; templateId: string };
  /** Every request a page tried to make off this service (all blocked). */
  const offService: string[] = [];

  beforeAll(async () => {
    fake = await startFakeGoogleWallet({ publicKey: serviceAccountKeyPair().publicKey, clientEmail: CLIENT_EMAIL });
    service = await startTestService({ jobs: 'work', config: { googleWalletApiUrl: fake.apiUrl, googleOauthTokenUrl: fake.tokenUrl } });
    const tenant = await service.createAccount('Coffee Club Ltd');
    token = tenant.token;
    await service.createEntity(tenant.accountId);
    await setAppleConfiguration(service, tenant.accountId);
    await putGoogleConfiguration(service, tenant.accountId);
    const design = loyaltyTemplate({
      images: { logo: LOGO_PNG, icon: ICON_PNG, banner: BANNER_PNG },
      fields: {
        header: { one: { id: 'points', label: 'Points', defaultValue: '0', localisation: { de: { label: 'Punkte' }, ja: { label: 'ポイント' } } } },
        central: { one: { id: 'member', label: 'Member', defaultValue: 'Guest', localisation: { de: { label: 'Mitglied' }, ja: { label: '会員' } } } },
        details: { one: { id: 'tier', label: 'Tier', defaultValue: 'Bronze', localisation: { de: { label: 'Stufe' }, ja: { label: 'ランク' } } } },
      },
    });
    templateId = await createTemplate(service, token, design);
    const other = await service.createAccount('Tea Rooms Ltd');
    await service.createEntity(other.accountId);
    await setAppleConfiguration(service, other.accountId);
    appleOnly = { token: other.token, templateId: await createTemplate(service, other.token, design) };
    server = service.app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    browser = await launchChromium(chromiumPath);
    await mkdir(artifacts, { recursive: true });
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    if (server) await new Promise((r) => server.close(r));
    await service?.close();
    await fake?.close();
  });

  async function open(
    device: keyof typeof DEVICES,
    passId: string,
    language = 'en',
    path = `/passes/${passId}`,
  ): Promise<{ context: BrowserContext; page: Page; status: number }> {
    // bypassCSP lets the test inject axe-core; the page's CSP itself is checked in test/holderPages.page.test.ts.
    const context = await browser.newContext({ ...DEVICES[device], locale: language, acceptDownloads: true, bypassCSP: true });
    context.setDefaultTimeout(10_000);
    await context.route('**/*', (route) => {
      const url = route.request().url();
      if (new URL(url).origin === origin) return route.continue();
      offService.push(url);
      return route.abort('blockedbyclient');
    });
    const page = await context.newPage();
    const response = await page.goto(`${origin}${path}`);
    return { context, page, status: response!.status() };
  }

  /** axe-core's violations on the page, of any impact. */
  async function violations(page: Page): Promise<string[]> {
    await page.addScriptTag({ content: axeSource });
    const violations = await page.evaluate(async () => {
      const result = await (globalThis as unknown as { axe: { run(): Promise<{ violations: { id: string; impact: string | null }[] }> } }).axe.run();
      return result.violations.map((v) => ({ id: v.id, impact: v.impact }));
    });
    return violations.map((v) => `${v.id} (${v.impact})`);
  }

  const LANGUAGES = ['en', 'de', 'ja'] as const;

  /** Checks what every page shows in a language: `<html lang>`, no axe violation; saves its screenshot. */
  async function expectPage(page: Page, language: string, name: string, toDocs = false): Promise<void> {
    expect(await page.locator('html').getAttribute('lang')).toBe(language);
    expect(await violations(page)).toEqual([]);
    await page.screenshot({ path: resolve(artifacts, `${name}.png`), fullPage: true });
    if (toDocs) await page.screenshot({ path: resolve(docs, `${name}.png`), fullPage: true });
  }

  /** The text a barcode drawn on the page decodes to (jsQR on a screenshot of the element). */
  async function scannedQr(page: Page, selector: string): Promise<string | undefined> {
    const png = await page.locator(selector).screenshot();
    const { data, info } = await sharp(png).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
    return jsQR(new Uint8ClampedArray(data.buffer, data.byteOffset, data.byteLength), info.width, info.height)?.data;
  }

  it('offers an iPhone the Apple pass first in en, de and ja; the download is a signed .pkpass; it prints the card only', async () => {
    const pass = await issuePass(service, token, templateId, { pass: { member: 'Łucja Wąs', points: '120' } });
    for (const language of LANGUAGES) {
      const { context, page, status } = await open('iphone', pass.id, language);
      try {
        expect(status).toBe(200);
        const primary = page.locator('a[data-primary]');
        expect(await primary.getAttribute('data-action')).toBe('apple');
        // biome-ignore lint/performance/useDomNodeTextContent: Playwright's locator.innerText, what a person sees
        expect(await primary.innerText()).toBe(catalogue(language).actions.addToAppleWallet);
        // The card is the Apple Wallet front of the pass preview, named, with its strip image.
        expect(await page.locator('section#pass svg.wallet-card[role="img"]').getAttribute('aria-label')).toBe('Coffee Club Card');
        expect(await page.locator('section#pass svg.wallet-card image').count()).toBeGreaterThan(1);
        await expectPage(page, language, `holder-page-iphone-${language}`);
        if (language !== 'en') continue;
        await page.screenshot({ path: resolve(docs, 'holder-page-phone.png'), fullPage: true });
        const [download] = await Promise.all([page.waitForEvent('download'), primary.click()]);
        expect(download.suggestedFilename()).toMatch(/\.pkpass$/);
        const inspected = await inspectPkpass(await readFile((await download.path())!), testCertificates().rootCertificatePem);
        expect(inspected.signatureVerified).toBe(true);
        expect(inspected.passJson.serialNumber).toBe(pass.id);
        await page.emulateMedia({ media: 'print' });
        expect(await page.locator('.actions').isVisible()).toBe(false);
        expect(await page.locator('section#pass [data-barcode] svg').isVisible()).toBe(true);
        expect(await page.locator('section#pass svg.wallet-card').isVisible()).toBe(true);
      } finally {
        await context.close();
      }
    }
  });

  it("offers an Android phone the Google save link first in en, de and ja, whose JWT names this pass's object", async () => {
    const pass = await issuePass(service, token, templateId, { pass: { member: 'Grace' } });
    for (const language of LANGUAGES) {
      const { context, page, status } = await open('android', pass.id, language);
      try {
        expect(status).toBe(200);
        const primary = page.locator('a[data-primary]');
        expect(await primary.getAttribute('data-action')).toBe('google');
        // biome-ignore lint/performance/useDomNodeTextContent: Playwright's locator.innerText, what a person sees
        expect(await primary.innerText()).toBe(catalogue(language).actions.addToGoogleWallet);
        const href = (await primary.getAttribute('href'))!;
        expect(href).toMatch(/^https:\/\/pay\.google\.com\/gp\/v\/save\//);
        const claims = decodeJwt(href.split('/').at(-1)!) as { payload: { loyaltyObjects?: { id: string }[] } };
        expect(claims.payload.loyaltyObjects?.map((o) => o.id)).toEqual([`${ISSUER_ID}.${pass.id}`]);
        expect(await page.locator('a[data-action="apple"]').count()).toBe(1);
        // The Google Wallet card of the pass preview (340 points wide; Apple's is 320).
        expect(await page.locator('section#pass svg.wallet-card').getAttribute('width')).toBe('340');
        await expectPage(page, language, `holder-page-android-${language}`);
      } finally {
        await context.close();
      }
    }
  });

  it('makes the web pass the primary action on Android without Google Wallet, saying why, in en, de and ja; its QR code scans', async () => {
    const pass = await issuePass(service, appleOnly.token, appleOnly.templateId, {
      pass: { member: 'Łukasz Żak', barcode: { enabled: true, source: 'uuid' } },
    });
    for (const language of LANGUAGES) {
      const { context, page, status } = await open('android', pass.id, language);
      try {
        expect(status).toBe(200);
        expect(await page.locator('a[data-primary]').count()).toBe(0);
        expect(await page.locator('section#pass[data-primary]').count()).toBe(1);
        // biome-ignore lint/performance/useDomNodeTextContent: Playwright's locator.innerText, what a person sees
        expect(await page.locator('[data-state="wallet-unavailable"]').innerText()).toBe(catalogue(language).webPass.googleUnavailable);
        expect(await scannedQr(page, 'section#pass [data-barcode] svg')).toBe(pass.id);
        await expectPage(page, language, `holder-page-android-without-google-${language}`, language === 'de');
      } finally {
        await context.close();
      }
    }
  });

  it("shows a desktop browser a QR code of the page's own URL and both actions, in en, de and ja", async () => {
    const pass = await issuePass(service, token, templateId, { pass: { member: '山田 花子' } });
    for (const language of LANGUAGES) {
      const { context, page, status } = await open('desktop', pass.id, language);
      try {
        expect(status).toBe(200);
        expect(await page.locator('a.action[data-action]').count()).toBe(2);
        expect(await scannedQr(page, '#qr svg')).toBe(pass.attributes.downloadUrl);
        expect(await scannedQr(page, 'section#pass [data-barcode] svg')).toBe('COFFEE-CLUB');
        await expectPage(page, language, `holder-page-desktop-${language}`, language === 'ja');
      } finally {
        await context.close();
      }
    }
  });

  it('shows a desktop browser one labelled code per purpose — the page to scan with a phone, the pass to show at the counter — and never a code twice, in en, pl and ja', async () => {
    const pass = await issuePass(service, token, templateId, { pass: { member: 'Łucja Wąs' } });
    for (const language of ['en', 'pl', 'ja'] as const) {
      const { context, page } = await open('desktop', pass.id, language);
      try {
        const m = catalogue(language);
        // Each code sits in a region named by the heading above it, which says what the code is for.
        const add = page.getByRole('region', { name: m.qr.heading });
        expect(await add.getByRole('heading', { name: m.qr.heading }).isVisible()).toBe(true);
        expect(await add.locator('svg').count()).toBe(1);
        expect(await scannedQr(page, '#qr svg')).toBe(pass.attributes.downloadUrl);
        const counter = page.getByRole('region', { name: m.webPass.barcodeHeading });
        expect(await counter.getByRole('heading', { name: m.webPass.barcodeHeading }).isVisible()).toBe(true);
        expect(await counter.locator('svg').count()).toBe(1);
        expect(await scannedQr(page, '[data-barcode] svg')).toBe('COFFEE-CLUB');
        // The card is drawn without the pass's code: nothing in it scans.
        expect(await scannedQr(page, 'section#pass svg.wallet-card')).toBeUndefined();
        await expectPage(page, language, `holder-page-desktop-codes-${language}`);
      } finally {
        await context.close();
      }
    }
  });

  it('shows an inactive pass without actions or barcode, a nullified one as 410 and an unknown one as 404, in the holder’s language', async () => {
    const inactive = await issuePass(service, token, templateId);
    await service.api.patch(`/api/v1/passes/${inactive.id}`).set(service.auth(token)).send({ passAction: 'deactivate' }).expect(200);
    const nullified = await issuePass(service, token, templateId);
    await service.api.post(`/api/v1/passes/${nullified.id}/nullify`).set(service.auth(token)).expect(200);
    const cases = [
      [inactive.id, 'de', 200, catalogue('de').inactive],
      [nullified.id, 'ja', 410, catalogue('ja').gone.title],
      ['0194f3a2-7c1e-7a51-9d7e-0b6a2f1c9e10', 'en', 404, catalogue('en').notFound.title],
      ['CC-1042', 'de', 404, catalogue('de').notFound.title],
    ] as const;
    for (const [id, language, expectedStatus, text] of cases) {
      const { context, page, status } = await open('iphone', id, language);
      try {
        expect(status).toBe(expectedStatus);
        expect(await page.locator('a[data-action]').count()).toBe(0);
        expect(await page.locator('[data-barcode]').count()).toBe(0);
        // biome-ignore lint/performance/useDomNodeTextContent: Playwright's locator.innerText, what a person sees, not the DOM property
        expect(await page.locator('body').innerText()).toContain(text);
        expect(await page.title()).toBe(expectedStatus === 200 ? 'Coffee Club Card' : text);
        await expectPage(page, language, `holder-page-${expectedStatus}-${language}`);
      } finally {
        await context.close();
      }
    }
  });

  it('opens the pass from a link with a trailing full stop, as an e-mail app makes it', async () => {
    const pass = await issuePass(service, token, templateId);
    const { context, page, status } = await open('iphone', pass.id, 'en', `/passes/${pass.id}.`);
    try {
      expect(status).toBe(200);
      expect(page.url()).toBe(`${origin}/passes/${pass.id}`);
      expect(await page.locator('a[data-primary]').getAttribute('data-action')).toBe('apple');
    } finally {
      await context.close();
    }
  });

  it('makes no request to anywhere but this service', () => {
    expect(offService).toEqual([]);
  });
});
