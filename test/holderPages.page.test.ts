/**
 * Holder pages, getHolderPassPage (`GET /passes/{id}`, the pass's `downloadUrl`) and
 * getGoogleHolderPassPage (`GET /passes/{id}/google`) through HTTP on a real database, with
 * templates processed by the job workers; and the message catalogues the pages speak.
 *
 * The Apple pass file the pages lead to (downloadApplePass) and the logs of the holder paths:
 * test/holderPages.applePass.test.ts.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BarcodeFormat } from '@zxing/library';
import escapeHtml from 'escape-html';
import { decodeJwt } from 'jose';
import jsQRModule from 'jsqr';
import sharp from 'sharp';
import { startFakeGoogleWallet, type FakeGoogleWallet } from './support/fakeGoogleWallet.ts';
import { CLIENT_EMAIL, ISSUER_ID, serviceAccountKeyPair, putGoogleConfiguration } from './support/googleCredentials.ts';
import { inspectPkpass } from './support/pkpassInspection.ts';
import { binary } from './support/simulatedIphone.ts';
import { decodeBarcode } from './support/barcodeDecoding.ts';
import { CATALOGUE_LANGUAGES, catalogue, missingKeys } from './support/holderPageCatalogues.ts';
import { setAppleConfiguration, testCertificates } from './support/appleCredentials.ts';
import { BROWSER_ACCEPT, startHolderPageService } from './support/holderPages.ts';
import { createTemplate, expectError, issuePass, loyaltyTemplate } from './support/passes.ts';
import { startTestService, type TestService } from './support/testService.ts';

const BASE = 'http://wallet.test';
let service: TestService;
let tenant: { accountId: string; token: string };
let templateId: string;
let badgeService: TestService;
/** An operator's badge directory with Apple's badge only (a stand-in file: the official artwork is not redistributable). */
const APPLE_BADGE = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="110" height="34"><rect width="110" height="34" rx="6"/></svg>');
const badgeDir = mkdtempSync(join(tmpdir(), 'holder-badges-'));
writeFileSync(join(badgeDir, 'add-to-apple-wallet.svg'), APPLE_BADGE);

beforeAll(async () => {
  ({ service, tenant, templateId } = await startHolderPageService());
});
afterAll(() => service.close());

/** jsQR is a UMD bundle: its default export is the module object. */
const jsQR = jsQRModule.default;
const root = () => testCertificates().rootCertificatePem;

/**
 * getHolderPassPage (`GET /passes/{id}`, the pass's `downloadUrl`): the HTML is read through
 * stable markers (`data-action`, `data-primary`, `data-state`, `id="qr"`): no HTML parser is a
 * dependency. The Apple action's download is verified as in test/holderPages.applePass.test.ts,
 * the Google link's JWT decoded, and the desktop QR code rasterised (sharp) and decoded (jsQR)
 * back to the page URL.
 */
const UA = {
  iphoneSafari: 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1',
  ipadGmail: 'Mozilla/5.0 (iPad; CPU OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 GoogleGmail/6.0',
  iphoneChrome:
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/126.0.6478.54 Mobile/15E148 Safari/604.1',
  macSafari: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15',
  macChrome: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36',
  macFirefox: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14.5; rv:127.0) Gecko/20100101 Firefox/127.0',
  android: 'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.6478.71 Mobile Safari/537.36',
  windowsChrome: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36',
  linuxFirefox: 'Mozilla/5.0 (X11; Linux x86_64; rv:127.0) Gecko/20100101 Firefox/127.0',
} as const;

describe('holder page message catalogues', () => {
  it('cover at least en, fr, de, es, it, nl, pt, pl, sv and ja', () => {
    expect(CATALOGUE_LANGUAGES).toEqual(expect.arrayContaining(['en', 'fr', 'de', 'es', 'it', 'nl', 'pt', 'pl', 'sv', 'ja']));
  });
  it.each(CATALOGUE_LANGUAGES.filter((l) => l !== 'en'))('%s has every key of the English catalogue, each a non-empty text', (language) => {
    expect(missingKeys(catalogue('en'), catalogue(language))).toEqual([]);
  });
  it('would report a missing key', () => {
    const { inactive: _dropped, ...partial } = catalogue('de');
    expect(missingKeys(catalogue('en'), partial)).toEqual(['inactive']);
  });
});

describe('getHolderPassPage', () => {
  let fake: FakeGoogleWallet;
  let both: { accountId: string; token: string };
  let bothTemplate: string;

  beforeAll(async () => {
    fake = await startFakeGoogleWallet({ publicKey: serviceAccountKeyPair().publicKey, clientEmail: CLIENT_EMAIL });
    // A second service: Google's API at the stand-in, and an operator's badge directory holding Apple's badge only.
    badgeService = await startTestService({
      jobs: 'work',
      config: { googleWalletApiUrl: fake.apiUrl, googleOauthTokenUrl: fake.tokenUrl, holderPageBadgesDir: badgeDir },
    });
    both = await badgeService.createAccount('Coffee Club Ltd');
    await badgeService.createEntity(both.accountId);
    await setAppleConfiguration(badgeService, both.accountId);
    await putGoogleConfiguration(badgeService, both.accountId);
    bothTemplate = await createTemplate(badgeService, both.token, loyaltyTemplate());
  });
  afterAll(async () => {
    await badgeService.close();
    await fake.close();
    await rm(badgeDir, { recursive: true, force: true });
  });

  const page = (svc: TestService, id: string, userAgent: string | undefined, extra: Record<string, string> = {}) => {
    const req = svc.api.get(`/passes/${id}`).set('Accept', BROWSER_ACCEPT);
    for (const [name, value] of Object.entries({ ...(userAgent ? { 'User-Agent': userAgent } : {}), ...extra })) req.set(name, value);
    return req;
  };
  /** The actions of a page: kind → { href, primary }. */
  const actionsOf = (html: string) =>
    Object.fromEntries(
      [...html.matchAll(/<a class="[^"]*" data-action="(apple|google)"( data-primary)? href="([^"]*)"/g)].map((m) => [
        m[1],
        { href: m[3]!.replace(/&amp;/g, '&'), primary: m[2] !== undefined },
      ]),
    ) as Record<string, { href: string; primary: boolean }>;

  function expectPageHeaders(res: { headers: Record<string, string> }) {
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['referrer-policy']).toBe('no-referrer');
    expect(res.headers['x-robots-tag']).toBe('noindex, nofollow');
    expect(res.headers['set-cookie']).toBeUndefined();
    const csp = res.headers['content-security-policy']!;
    expect(csp).toMatch(
      /^default-src 'none'; img-src 'self' data:; style-src 'sha256-[A-Za-z0-9+/]+=*'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'$/,
    );
    expect(csp).not.toMatch(/unsafe|script-src|https?:/);
  }
  /** The page's one style block hashes to the CSP's hash, and nothing else could load: no script, no remote URL. */
  function expectSelfContained(html: string, csp: string) {
    const styles = [...html.matchAll(/<style>([\s\S]*?)<\/style>/g)].map((m) => m[1]!);
    expect(styles).toHaveLength(1);
    expect(csp).toContain(`'sha256-${createHash('sha256').update(styles[0]!, 'utf8').digest('base64')}'`);
    // Tags only: a `<` from data is escaped, so every `<` here opens a tag the page wrote.
    expect(html).not.toMatch(/<script|<[^>]*\s(?:style|on\w+)=/i);
    expect(html).toContain('<meta name="robots" content="noindex, nofollow">');
    const urls = [...html.matchAll(/\s(?:src|href)="([^"]*)"/g)].map((m) => m[1]!);
    for (const url of urls) expect(url).toMatch(/^(\/|#pass$|data:image\/|https:\/\/pay\.google\.com\/gp\/v\/save\/)/);
  }

  it.each([
    ['iphoneSafari', 'apple'],
    ['ipadGmail', 'apple'],
    ['iphoneChrome', 'apple'],
    ['macSafari', 'apple'],
    ['macChrome', 'apple'],
    ['android', 'google'],
    ['macFirefox', 'other'],
    ['windowsChrome', 'other'],
    ['linuxFirefox', 'other'],
    ['none', 'other'],
  ] as const)('%s gets the %s action first', async (ua, expected) => {
    const pass = await issuePass(badgeService, both.token, bothTemplate);
    const res = await page(badgeService, pass.id, ua === 'none' ? undefined : UA[ua]).expect(200);
    expectPageHeaders(res);
    expectSelfContained(res.text, res.headers['content-security-policy']!);
    const actions = actionsOf(res.text);
    expect(Object.keys(actions).sort()).toEqual(['apple', 'google']);
    if (expected === 'other') {
      expect(actions.apple!.primary || actions.google!.primary).toBe(false);
      expect(res.text).toContain(
        '<section class="add" aria-labelledby="add-heading"><h2 id="add-heading">Scan with your phone to add this pass</h2><figure class="qr" id="qr"><svg role="img" aria-label="QR code that opens this page on your phone"',
      );
    } else {
      expect(actions[expected]!.primary).toBe(true);
      expect(actions[expected === 'apple' ? 'google' : 'apple']!.primary).toBe(false);
      expect(res.text).not.toContain('id="qr"');
    }
  });

  it('leads an iPhone to the signed .pkpass, with the operator’s Apple badge', async () => {
    const pass = await issuePass(badgeService, both.token, bothTemplate, { pass: { member: 'Ada' } });
    const res = await page(badgeService, pass.id, UA.iphoneSafari).expect(200);
    const { apple } = actionsOf(res.text);
    expect(apple!.href).toBe(`/passes/${pass.id}/apple`);
    expect(res.text).toContain(`<img src="data:image/svg+xml;base64,${APPLE_BADGE.toString('base64')}" alt="Add to Apple Wallet">`);
    const file = await badgeService.api.get(apple!.href).buffer(true).parse(binary).expect(200);
    expect(file.headers['content-type']).toBe('application/vnd.apple.pkpass');
    expect(file.headers['content-disposition']).toMatch(/^attachment; filename="Coffee Club Card\.pkpass"/);
    const inspected = await inspectPkpass(file.body as Buffer, root());
    expect(inspected.signatureVerified).toBe(true);
    expect(inspected.passJson.serialNumber).toBe(pass.id);
  });

  it('leads an Android phone to the save link of this pass’s object, a plain button without Google’s badge', async () => {
    const pass = await issuePass(badgeService, both.token, bothTemplate);
    const res = await page(badgeService, pass.id, UA.android).expect(200);
    const { google } = actionsOf(res.text);
    expect(google!.href).toMatch(/^https:\/\/pay\.google\.com\/gp\/v\/save\/[\w-]+\.[\w-]+\.[\w-]+$/);
    const payload = decodeJwt(google!.href.slice('https://pay.google.com/gp/v/save/'.length));
    expect(payload).toMatchObject({ iss: CLIENT_EMAIL, aud: 'google', typ: 'savetowallet', payload: { loyaltyObjects: [{ id: `${ISSUER_ID}.${pass.id}` }] } });
    expect(res.text).toMatch(/data-action="google" data-primary href="[^"]+" rel="noreferrer">Add to Google Wallet<\/a>/);
  });

  it('shows desktops a QR code that decodes to the page’s own URL', async () => {
    const pass = await issuePass(badgeService, both.token, bothTemplate);
    const res = await page(badgeService, pass.id, UA.windowsChrome).expect(200);
    const svg = /<svg[\s\S]*?<\/svg>/.exec(res.text)![0];
    const { data, info } = await sharp(Buffer.from(svg), { density: 600 })
      .flatten({ background: '#ffffff' })
      .ensureAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
    const decoded = jsQR(new Uint8ClampedArray(data.buffer, data.byteOffset, data.byteLength), info.width, info.height);
    expect(decoded?.data).toBe(`${BASE}/passes/${pass.id}`);
    expect(pass.attributes.downloadUrl).toBe(`${BASE}/passes/${pass.id}`);
  });

  /** The wallet card of a holder page: the preview's SVG, inlined. */
  const cardSvg = (html: string) => /<section class="card"[^>]*>(<svg class="wallet-card"[\s\S]*?<\/svg>)/.exec(html)?.[1];

  it('shows the pass as the preview draws it without its barcode: the Apple front in its colours and language, its back fields, the barcode once under its heading, latest message', async () => {
    const pass = await issuePass(badgeService, both.token, bothTemplate, {
      pass: { member: 'Ada', tier: 'Gold', barcode: { enabled: true, source: 'uuid', displayText: 'Member 1042' } },
    });
    await badgeService.api
      .patch(`/api/v1/loyalty/${pass.id}`)
      .set(badgeService.auth(both.token))
      .send({ balance: 120, message: 'Double points this week' })
      .expect(200);
    const res = await page(badgeService, pass.id, UA.iphoneSafari).expect(200);
    const svg = cardSvg(res.text)!;
    expect(svg).toMatch(/^<svg class="wallet-card" role="img" aria-label="Coffee Club Card" width="320" height="420" viewBox="0 0 320 420"/);
    // Its accessible description: every text drawn, as drawn (Wallet's upper-case labels), field by field.
    expect(svg).toContain('<desc>Coffee Club; POINTS: 120; Member: Ada; TIER: Gold; MEMBER SINCE</desc>');
    expect(svg).toContain('fill="#1A2B3C"');
    // The texts of GET /api/v1/passes/{id}/preview, where they are there, but for the barcode's: the page shows it once, apart.
    const preview = await badgeService.api.get(`/api/v1/passes/${pass.id}/preview`).set(badgeService.auth(both.token)).buffer(true).parse(binary).expect(200);
    const textLayer = (s: string) => [...s.matchAll(/<text [^>]*>[^<]*<\/text>/g)].map(([t]) => t);
    const previewTexts = textLayer(preview.body.toString('utf8'));
    expect(previewTexts.filter((t) => t.includes('data-region="barcode"'))).toHaveLength(1);
    expect(textLayer(svg)).toEqual(previewTexts.filter((t) => !t.includes('data-region="barcode"')));
    expect(svg).not.toMatch(/data:image\/svg\+xml/);
    expect(svg).toContain('data-region="top" data-pointer="/fields/header/one" data-part="value">120</text>');
    expect(svg).toContain('data-region="primary" data-pointer="/fields/central/one" data-part="value">Ada</text>');
    expect(svg).toMatch(/<image [^>]*href="data:image\/png;base64,/);
    expect(res.text).toContain('<dl class="fields"><dt>Terms</dt><dd>One stamp per drink.</dd></dl>');
    expect(res.text).toContain(
      '<section class="counter" aria-labelledby="counter-heading"><h2 id="counter-heading">Show this code at the counter</h2><div class="code matrix" data-barcode><svg',
    );
    expect(res.text).toContain('<p class="barcode" data-barcode-text>Member 1042</p>');
    expect(res.text).toContain('<section class="message" data-latest-message><h2>Coffee Club news</h2><p>Double points this week</p></section>');
    expect(res.text).toContain('<title>Coffee Club Card</title>');
    expectSelfContained(res.text, res.headers['content-security-policy']!);
  });

  it('shows an Android phone the Google Wallet card when the account has Google credentials, else the Apple front', async () => {
    const pass = await issuePass(badgeService, both.token, bothTemplate, { pass: { member: 'Ada' } });
    const google = cardSvg((await page(badgeService, pass.id, UA.android).expect(200)).text)!;
    expect(google).toMatch(/ width="340" /);
    expect(google).toContain('data-region="points"');
    const apple = cardSvg((await page(badgeService, pass.id, UA.iphoneSafari).expect(200)).text)!;
    expect(apple).toMatch(/ width="320" /);
    expect(apple).not.toContain('data-region="points"');
    const withoutGoogle = await issuePass(service, tenant.token, templateId);
    expect(cardSvg((await page(service, withoutGoogle.id, UA.android).expect(200)).text)).toMatch(/ width="320" /);
  });

  it('lists the front fields as text too when the card shows a character no preview font has', async () => {
    for (const member of ['Lukas', 'Łucja', '山田 花子']) {
      const drawn = await page(badgeService, (await issuePass(badgeService, both.token, bothTemplate, { pass: { member } })).id, UA.iphoneSafari);
      expect(drawn.text).toContain('<dl class="fields"><dt>Terms</dt>');
    }
    const privateUse = await issuePass(badgeService, both.token, bothTemplate, { pass: { member: 'Łucja \u{E000}' } });
    const res = await page(badgeService, privateUse.id, UA.iphoneSafari).expect(200);
    expect(res.text).toContain('<dl class="fields"><dt>Points</dt><dd>0</dd><dt>Member</dt><dd>Łucja \u{E000}</dd><dt>Tier</dt>');
    expect(res.text).toContain('<dt>Terms</dt><dd>One stamp per drink.</dd></dl>');
  });

  it('shows no barcode text unless displayText asks for it', async () => {
    const pass = await issuePass(badgeService, both.token, bothTemplate);
    const res = await page(badgeService, pass.id, UA.iphoneSafari).expect(200);
    expect(res.text).not.toContain('data-barcode-text');
    expect(res.text).not.toContain('COFFEE-CLUB');
  });

  it('speaks the holder’s language, and picks the template localisation Accept-Language prefers for the card', async () => {
    const pass = await issuePass(service, tenant.token, templateId);
    const de = await page(service, pass.id, UA.iphoneSafari, { 'Accept-Language': 'de-CH, de;q=0.9, en;q=0.5' }).expect(200);
    expect(de.text).toContain('<html lang="de">');
    expect(de.headers['content-language']).toBe('de');
    expect(de.headers.vary).toContain('Accept-Language');
    expect(de.text).toContain('<section class="card" id="pass" lang="de" aria-label="Ihr Pass"');
    expect(cardSvg(de.text)).toContain('<desc>Coffee Club; PUNKTE: 0; Mitglied: Gast</desc>');
    expect(de.text).toContain('>Zu Apple Wallet hinzufügen</a>');
    expect(de.text).not.toContain('Add to Apple Wallet');
    // French page, English card: the template has no French localisation.
    const fr = await page(service, pass.id, UA.iphoneSafari, { 'Accept-Language': 'fr-FR, fr;q=0.9' }).expect(200);
    expect(fr.text).toContain('<html lang="fr">');
    expect(fr.headers['content-language']).toBe('fr');
    expect(fr.text).toContain('<section class="card" id="pass" lang="en" aria-label="Votre carte"');
    expect(cardSvg(fr.text)).toContain('Member: Guest');
    expect(fr.text).toContain('>Ajouter à Apple Wallet</a>');
    // A language without a catalogue: English.
    const fi = await page(service, pass.id, UA.iphoneSafari, { 'Accept-Language': 'fi' }).expect(200);
    expect(fi.text).toContain('<html lang="en">');
    expect(fi.headers['content-language']).toBe('en');
    const named = await issuePass(service, tenant.token, templateId, { pass: { member: 'Ada' } });
    const own = await page(service, named.id, UA.iphoneSafari, { 'Accept-Language': 'de' }).expect(200);
    expect(cardSvg(own.text)).toContain('Mitglied: Ada');
  });

  it.each(CATALOGUE_LANGUAGES)('says everything in %s: actions, web pass, notices, the 404, 410 and inactive pages', async (language) => {
    const m = catalogue(language);
    const headers = { 'Accept-Language': `${language};q=0.9, en;q=0.1` };
    const pass = await issuePass(badgeService, both.token, bothTemplate, { pass: { barcode: { enabled: true, type: 'pdf417' } } });
    const res = await page(badgeService, pass.id, UA.windowsChrome, headers).expect(200);
    expect(res.text).toContain(`<html lang="${language}">`);
    expect(res.headers['content-language']).toBe(language);
    for (const message of [m.actions.addToGoogleWallet, m.actions.showOnScreen, m.qr.heading, m.qr.caption, m.webPass.barcodeHeading, m.webPass.instructions])
      expect(res.text).toContain(escapeHtml(message));
    expect(res.text).toContain(`aria-label="${escapeHtml(m.qr.label)}"`);
    expect(res.text).toContain(`aria-label="${escapeHtml(m.webPass.barcodeLabel.replace('{{symbology}}', m.symbology.pdf417))}"`);
    const unknown = await page(badgeService, '0194f3a2-7c1e-7a51-9d7e-0b6a2f1c9e10', UA.android, headers).expect(404);
    expect(unknown.text).toContain(`<title>${escapeHtml(m.notFound.title)}</title>`);
    expect(unknown.text).toContain(escapeHtml(m.notFound.detail));
    expect(unknown.headers['content-language']).toBe(language);
    await badgeService.api.patch(`/api/v1/passes/${pass.id}`).set(badgeService.auth(both.token)).send({ passAction: 'deactivate' }).expect(200);
    const inactive = await page(badgeService, pass.id, UA.android, headers).expect(200);
    expect(inactive.text).toContain(escapeHtml(m.inactive));
    await badgeService.api.post(`/api/v1/passes/${pass.id}/nullify`).set(badgeService.auth(both.token)).expect(200);
    const gone = await page(badgeService, pass.id, UA.android, headers).expect(410);
    expect(gone.text).toContain(`<h1 data-state="gone">${escapeHtml(m.gone.title)}</h1>`);
  });

  it('escapes holder data: a script in a field value stays text', async () => {
    const attack = '<script>alert(1)</script>"><img src=x onerror=alert(1)>';
    const pass = await issuePass(badgeService, both.token, bothTemplate, { pass: { member: attack } });
    await badgeService.api
      .patch(`/api/v1/loyalty/${pass.id}`)
      .set(badgeService.auth(both.token))
      .send({ balance: 1, message: `</p><script>alert(2)</script>` })
      .expect(200);
    const res = await page(badgeService, pass.id, UA.windowsChrome).expect(200);
    expect(res.text).not.toContain('<script');
    expect(res.text).not.toContain('<img src=x');
    // Drawn truncated as Wallet truncates it, and escaped in the text layer and the description.
    expect(cardSvg(res.text)).toContain('data-part="value">&lt;script&gt;alert(…</text>');
    expect(cardSvg(res.text)).toContain('; Member: &lt;script&gt;alert(…;');
    expect(res.text).toContain('<p>&lt;/p&gt;&lt;script&gt;alert(2)&lt;/script&gt;</p>');
    expectSelfContained(res.text, res.headers['content-security-policy']!);
  });

  it('says a deactivated pass is inactive, without actions or QR code', async () => {
    const pass = await issuePass(badgeService, both.token, bothTemplate);
    await badgeService.api.patch(`/api/v1/passes/${pass.id}`).set(badgeService.auth(both.token)).send({ passAction: 'deactivate' }).expect(200);
    for (const ua of [UA.iphoneSafari, UA.android, UA.windowsChrome]) {
      const res = await page(badgeService, pass.id, ua).expect(200);
      expectPageHeaders(res);
      expect(res.text).toContain('<p class="notice" data-state="inactive">This pass is currently inactive</p>');
      expect(actionsOf(res.text)).toEqual({});
      expect(res.text).not.toContain('id="qr"');
      expect(res.text).not.toContain('/apple"');
      expect(res.text).not.toContain('data-barcode');
      expect(cardSvg(res.text)).not.toContain('data-region="barcode"');
      expect(cardSvg(res.text)).not.toMatch(/data:image\/svg\+xml/);
    }
  });

  it('answers a nullified pass with the 410 page, or the JSON error to a client that prefers JSON', async () => {
    const pass = await issuePass(badgeService, both.token, bothTemplate);
    await badgeService.api.post(`/api/v1/passes/${pass.id}/nullify`).set(badgeService.auth(both.token)).expect(200);
    const res = await page(badgeService, pass.id, UA.iphoneSafari).expect(410);
    expectPageHeaders(res);
    expectSelfContained(res.text, res.headers['content-security-policy']!);
    expect(res.text).toContain('<h1 data-state="gone">This pass is no longer valid</h1>');
    expect(res.text).not.toContain('data-action');
    expectError(await badgeService.api.get(`/passes/${pass.id}`), 410, 'pass_nullified', { parameter: 'id' });
  });

  it('answers an unknown pass with the 404 page (JSON without Accept), and a malformed id with the 404 page (400 to JSON clients)', async () => {
    const res = await page(service, '0194f3a2-7c1e-7a51-9d7e-0b6a2f1c9e10', UA.android).expect(404);
    expectPageHeaders(res);
    expect(res.text).toContain('<h1 data-state="notFound">Pass not found</h1>');
    expectError(await service.api.get('/passes/0194f3a2-7c1e-7a51-9d7e-0b6a2f1c9e10'), 404, 'not_found', { parameter: 'id' });
    for (const id of ['CC-1042', '0194f3a2-7c1e-7a51-9d7e-0b6a2f1c9e1', '0194f3a2-7c1e-7a51-9d7e-0b6a2f1c9e10x']) {
      const malformed = await page(service, id, UA.android, { 'Accept-Language': 'ja' }).expect(404);
      expectPageHeaders(malformed);
      expect(malformed.text).toContain('<h1 data-state="notFound">パスが見つかりません</h1>');
      expectError(await service.api.get(`/passes/${id}`), 400, 'validation_failed', { parameter: 'id' });
    }
  });

  it.each([
    ['a full stop', '.'],
    ['a comma', ','],
    ['a closing parenthesis', ')'],
    ['an angle bracket', '%3E'],
    ['spaces', '%20%20'],
    ['a full stop and a space', '.%20'],
  ])('redirects a link with %s after it to the canonical URL', async (_what, tail) => {
    const pass = await issuePass(service, tenant.token, templateId);
    const res = await service.api.get(`/passes/${pass.id}${tail}`).set('Accept', BROWSER_ACCEPT).expect(308);
    expect(res.headers.location).toBe(`/passes/${pass.id}`);
    const google = await service.api.get(`/passes/${pass.id}${tail}/google`).expect(308);
    expect(google.headers.location).toBe(`/passes/${pass.id}/google`);
  });

  it('redirects a link broken by a space or in upper case to the canonical URL', async () => {
    const pass = await issuePass(service, tenant.token, templateId);
    const broken = `${pass.id.slice(0, 14)}%20${pass.id.slice(14).toUpperCase()}`;
    const res = await service.api.get(`/passes/${broken}`).set('Accept', BROWSER_ACCEPT).expect(308);
    expect(res.headers.location).toBe(`/passes/${pass.id}`);
  });

  it.each([
    ['qr', BarcodeFormat.QR_CODE],
    ['pdf417', BarcodeFormat.PDF_417],
    ['aztec', BarcodeFormat.AZTEC],
    ['code128', BarcodeFormat.CODE_128],
  ] as const)('draws the %s barcode of the web pass so that it decodes to the pass’s barcode value', async (type, format) => {
    const pass = await issuePass(badgeService, both.token, bothTemplate, { pass: { barcode: { enabled: true, type, source: 'uuid' } } });
    const res = await page(badgeService, pass.id, UA.android).expect(200);
    const block = /<div class="code (matrix|linear)" data-barcode>(<svg[\s\S]*?<\/svg>)<\/div>/.exec(res.text)!;
    expect(block[1]).toBe(type === 'qr' || type === 'aztec' ? 'matrix' : 'linear');
    expect(await decodeBarcode(block[2]!, format)).toBe(pass.id);
    expect(res.text).not.toContain('data-barcode-text');
  });

  it('draws a custom barcode value, with its text when displayText asks for it', async () => {
    const pass = await issuePass(badgeService, both.token, bothTemplate, {
      pass: { barcode: { enabled: true, type: 'qr', source: 'custom', value: 'ACME-123', displayText: true } },
    });
    const res = await page(badgeService, pass.id, UA.iphoneSafari).expect(200);
    const svg = /<div class="code matrix" data-barcode>(<svg[\s\S]*?<\/svg>)/.exec(res.text)![1]!;
    expect(await decodeBarcode(svg, BarcodeFormat.QR_CODE)).toBe('ACME-123');
    expect(res.text).toContain('<p class="barcode" data-barcode-text>ACME-123</p>');
  });

  it('shows only what works: no Google action without Google credentials, none at all without credentials', async () => {
    const pass = await issuePass(service, tenant.token, templateId);
    const android = await page(service, pass.id, UA.android).expect(200);
    expect(actionsOf(android.text)).toEqual({ apple: { href: `/passes/${pass.id}/apple`, primary: false } });
    expect(android.text).toContain('<p class="notice" data-state="wallet-unavailable">Google Wallet is not available for this pass.');
    expect(android.text).toMatch(/<section class="card" id="pass" lang="en" aria-label="Your pass" data-primary>/);
    expect(android.text.indexOf('data-state="wallet-unavailable"')).toBeLessThan(android.text.indexOf('id="pass"'));
    expect(android.text.indexOf('id="pass"')).toBeLessThan(android.text.indexOf('data-action="apple"'));
    expect(android.text).toContain('<div class="code matrix" data-barcode><svg role="img"');
    expect(android.text).toMatch(/data-action="apple" href="[^"]+" rel="noreferrer">Add to Apple Wallet<\/a>/); // no badge directory here
    const desktop = await page(service, pass.id, UA.linuxFirefox).expect(200);
    expect(Object.keys(actionsOf(desktop.text))).toEqual(['apple']);
    expect(desktop.text).toContain('id="qr"');

    const other = await service.createAccount();
    const otherTemplate = await createTemplate(service, other.token, loyaltyTemplate());
    const bare = await issuePass(service, other.token, otherTemplate);
    const none = await page(service, bare.id, UA.windowsChrome).expect(200);
    expect(actionsOf(none.text)).toEqual({});
    expect(none.text).toContain('This pass cannot be added to a wallet yet.');
    expect(none.text).toContain('<section class="card" id="pass" lang="en" aria-label="Your pass" data-primary>');
    expect(none.text).not.toContain('id="qr"');
  });

  describe('getGoogleHolderPassPage', () => {
    it('puts Add to Google Wallet first whatever the device', async () => {
      const pass = await issuePass(badgeService, both.token, bothTemplate);
      for (const ua of [UA.iphoneSafari, UA.windowsChrome]) {
        const res = await badgeService.api.get(`/passes/${pass.id}/google`).set('Accept', BROWSER_ACCEPT).set('User-Agent', ua).expect(200);
        expectPageHeaders(res);
        const actions = actionsOf(res.text);
        expect(actions.google!.primary).toBe(true);
        expect(decodeJwt(actions.google!.href.split('/').pop()!)).toMatchObject({ payload: { loyaltyObjects: [{ id: `${ISSUER_ID}.${pass.id}` }] } });
        expect(actions.apple).toEqual({ href: `/passes/${pass.id}/apple`, primary: false });
        expect(res.text).not.toContain('id="qr"');
      }
    });

    it('is the google passSource of an account without Google credentials, showing only what works', async () => {
      const pass = await issuePass(service, tenant.token, templateId);
      const shown = await service.api.get(`/api/v1/passes/${pass.id}?includePassSource=google`).set(service.auth(tenant.token)).expect(200);
      const url = shown.body.data.attributes.passSource.url as string;
      expect(url).toBe(`${BASE}/passes/${pass.id}/google`);
      const res = await service.api.get(new URL(url).pathname).set('Accept', BROWSER_ACCEPT).set('User-Agent', UA.android).expect(200);
      expect(actionsOf(res.text)).toEqual({ apple: { href: `/passes/${pass.id}/apple`, primary: false } });
    });

    it('answers the 404 and 410 pages, or JSON errors to clients that prefer JSON', async () => {
      const unknown = await service.api.get('/passes/0194f3a2-7c1e-7a51-9d7e-0b6a2f1c9e10/google').set('Accept', BROWSER_ACCEPT).expect(404);
      expect(unknown.text).toContain('<h1 data-state="notFound">Pass not found</h1>');
      expectError(await service.api.get('/passes/0194f3a2-7c1e-7a51-9d7e-0b6a2f1c9e10/google'), 404, 'not_found', { parameter: 'id' });
      const pass = await issuePass(service, tenant.token, templateId);
      await service.api.post(`/api/v1/passes/${pass.id}/nullify`).set(service.auth(tenant.token)).expect(200);
      const gone = await service.api.get(`/passes/${pass.id}/google`).set('Accept', BROWSER_ACCEPT).expect(410);
      expect(gone.text).toContain('This pass is no longer valid');
      expectError(await service.api.get(`/passes/${pass.id}/google`), 410, 'pass_nullified', { parameter: 'id' });
      await service.api.get('/passes/CC-1042/google').expect(400);
    });
  });
});
