/**
 * Holder pages, downloadApplePass (`GET /passes/{id}/apple`) through HTTP on a real database,
 * with templates processed by the job workers. Every pass file is unzipped and checked as a
 * reviewer would (test/support/pkpassInspection.ts): manifest hashes, the CMS signature with
 * `openssl cms -verify` against the test chain, the signer's UID and OU, `pass.json` keys per
 * Apple's reference, images and their sizes, localisations. The logs of the holder paths' requests
 * hold the pass id shortened, never whole (the UUID is the holder's capability).
 *
 * The holder's web page (getHolderPassPage, getGoogleHolderPassPage): test/holderPages.page.test.ts.
 */
import { inspectPkpass } from './support/pkpassInspection.ts';
import { PASS_TYPE_ID, TEAM_ID, testCertificates } from './support/appleCredentials.ts';
import { BROWSER_ACCEPT, startHolderPageService } from './support/holderPages.ts';
import { createTemplate, expectError, issuePass, loyaltyTemplate } from './support/passes.ts';
import type { TestService } from './support/testService.ts';

const BASE = 'http://wallet.test';
let service: TestService;
let tenant: { accountId: string; token: string };
let templateId: string;

beforeAll(async () => {
  ({ service, tenant, templateId } = await startHolderPageService());
});
afterAll(() => service.close());

const download = (id: string) =>
  service.api
    .get(`/passes/${id}/apple`)
    .buffer(true)
    .parse((res, done) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => done(null, Buffer.concat(chunks)));
    });
const root = () => testCertificates().rootCertificatePem;

describe('downloadApplePass', () => {
  it('answers a signed .pkpass whose manifest, signature and pass.json are what Apple expects', async () => {
    const pass = await issuePass(
      service,
      tenant.token,
      templateId,
      { pass: { member: 'Ada', points: '120', barcode: { enabled: true, source: 'uuid', displayText: 'Member 1042' } }, expiresAt: '2027-01-31T23:59:59Z' },
      { extId: 'CC-1042' },
    );
    const res = await download(pass.id).expect(200);
    expect(res.headers['content-type']).toBe('application/vnd.apple.pkpass');
    expect(res.headers['content-disposition']).toMatch(/^attachment; filename="Coffee Club Card\.pkpass"/);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers.etag).toMatch(/^"[\w-]+"$/);
    expect(new Date(res.headers['last-modified']!).getTime()).toBeGreaterThan(0);

    const inspected = await inspectPkpass(res.body as Buffer, root());
    expect(inspected.manifestMismatches).toEqual([]);
    expect(inspected.signatureVerified).toBe(true);
    expect(inspected.hasSigningTime).toBe(true);
    expect(inspected.signer).toEqual({ uid: PASS_TYPE_ID, ou: TEAM_ID });
    expect(inspected.certificateSubjects).toHaveLength(2); // the signer and the WWDR intermediate
    expect(inspected.files).toEqual([
      'de.lproj/pass.strings',
      'icon.png',
      'icon@2x.png',
      'icon@3x.png',
      'logo.png',
      'logo@2x.png',
      'logo@3x.png',
      'manifest.json',
      'pass.json',
      'signature',
    ]);
    expect(inspected.imageSizes['icon@3x.png']).toEqual([87, 87]);
    expect(inspected.imageSizes['logo.png']).toEqual([160, 50]);
    expect(inspected.strings.de).toEqual({ Points: 'Punkte', Member: 'Mitglied', Guest: 'Gast' });

    const json = inspected.passJson;
    expect(json).toMatchObject({
      formatVersion: 1,
      passTypeIdentifier: PASS_TYPE_ID,
      teamIdentifier: TEAM_ID,
      organizationName: 'Coffee Club',
      description: 'Loyalty card of the Coffee Club',
      serialNumber: pass.id,
      webServiceURL: `${BASE}/wallet/apple`,
      expirationDate: '2027-01-31T23:59:59Z',
      barcodes: [{ format: 'PKBarcodeFormatQR', message: pass.id, messageEncoding: 'iso-8859-1', altText: 'Member 1042' }],
      locations: [{ latitude: 51.5136, longitude: -0.1365, relevantText: 'Your coffee is one minute away.' }],
      maxDistance: 100,
      beacons: [{ proximityUUID: 'F7826DA6-4FA2-4E98-8024-BC5B71E0893E', major: 1, minor: 7, relevantText: 'Show this card at the counter.' }],
      storeCard: {
        headerFields: [{ key: 'points', label: 'Points', value: '120', changeMessage: 'You now have %@ points.' }],
        primaryFields: [{ key: 'member', label: 'Member', value: 'Ada' }],
        backFields: [{ key: 'terms', label: 'Terms', value: 'One stamp per drink.' }],
      },
    });
    expect(json.voided).toBeUndefined();
    expect(json.authenticationToken).toEqual(expect.stringMatching(/^[\w-]{16,}$/));
  });

  it('names the file of a template with a non-Latin name in filename* (RFC 8187), with an ASCII fallback', async () => {
    const named = await createTemplate(service, tenant.token, loyaltyTemplate({ name: '星珈琲 メンバーズカード' }));
    const pass = await issuePass(service, tenant.token, named, { pass: { member: '山田 花子' } });
    const res = await download(pass.id).expect(200);
    expect(res.headers['content-disposition']).toBe(
      `attachment; filename=pass.pkpass; filename*=UTF-8''${encodeURIComponent('星珈琲 メンバーズカード.pkpass')}`,
    );
    expect((await inspectPkpass(res.body as Buffer, root())).signatureVerified).toBe(true);
  });

  it('keeps the authenticationToken of a pass and serves the cached file until the pass changes', async () => {
    const pass = await issuePass(service, tenant.token, templateId);
    const first = await download(pass.id).expect(200);
    const again = await download(pass.id).expect(200);
    expect(again.headers.etag).toBe(first.headers.etag);
    expect(Buffer.compare(again.body as Buffer, first.body as Buffer)).toBe(0);
    await service.api.patch(`/api/v1/loyalty/${pass.id}`).set(service.auth(tenant.token)).send({ balance: 5, message: 'Five points for you' }).expect(200);
    const changed = await download(pass.id).expect(200);
    expect(changed.headers.etag).not.toBe(first.headers.etag);
    const [before, after] = await Promise.all([inspectPkpass(first.body as Buffer, root()), inspectPkpass(changed.body as Buffer, root())]);
    expect(after.passJson.authenticationToken).toBe(before.passJson.authenticationToken);
    expect(after.passJson.storeCard).toMatchObject({
      headerFields: [{ key: 'points', value: '5' }],
      backFields: [{ key: 'terms' }, { key: 'latestMessage', label: 'Coffee Club news', value: 'Five points for you', changeMessage: '%@' }],
    });
  });

  it('answers 304 to If-None-Match and If-Modified-Since while the pass is unchanged', async () => {
    const pass = await issuePass(service, tenant.token, templateId);
    const res = await download(pass.id).expect(200);
    await service.api.get(`/passes/${pass.id}/apple`).set('If-None-Match', res.headers.etag!).expect(304);
    await service.api.get(`/passes/${pass.id}/apple`).set('If-Modified-Since', res.headers['last-modified']!).expect(304);
    await service.api
      .get(`/passes/${pass.id}/apple`)
      .set('If-Modified-Since', new Date(Date.parse(res.headers['last-modified']!) - 1000).toUTCString())
      .expect(200);
    await service.api.get(`/passes/${pass.id}/apple`).set('If-None-Match', '"other"').expect(200);
  });

  it('marks a deactivated pass voided, and answers 410 once it is nullified', async () => {
    const pass = await issuePass(service, tenant.token, templateId);
    await service.api.patch(`/api/v1/passes/${pass.id}`).set(service.auth(tenant.token)).send({ passAction: 'deactivate' }).expect(200);
    const voided = await inspectPkpass((await download(pass.id).expect(200)).body as Buffer, root());
    expect(voided.passJson.voided).toBe(true);
    await service.api.post(`/api/v1/passes/${pass.id}/nullify`).set(service.auth(tenant.token)).expect(200);
    expectError(await service.api.get(`/passes/${pass.id}/apple`), 410, 'pass_nullified', { parameter: 'id' });
  });

  it('writes the NFC message and the reader configuration’s public key', async () => {
    const pass = await issuePass(service, tenant.token, templateId, { pass: { nfc: { enabled: true, source: 'custom', customValue: 'NFC-1042' } } });
    const json = (await inspectPkpass((await download(pass.id).expect(200)).body as Buffer, root())).passJson;
    expect(json.nfc).toEqual({ message: 'NFC-1042', encryptionPublicKey: expect.stringMatching(/^MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE[A-Za-z0-9+/]+=*$/) });
  });

  it('answers 409 naming what to configure when the account has no Apple configuration', async () => {
    const other = await service.createAccount();
    const otherTemplate = await createTemplate(service, other.token, loyaltyTemplate());
    const pass = await issuePass(service, other.token, otherTemplate);
    const res = await service.api.get(`/passes/${pass.id}/apple`);
    expectError(res, 409, 'apple_not_configured');
    expect(res.body.errors[0].detail).toContain('npm run admin -- apple set');
  });

  it('answers 404 for an unknown pass, and takes no extId', async () => {
    expectError(await service.api.get('/passes/0194f3a2-7c1e-7a51-9d7e-0b6a2f1c9e10/apple'), 404, 'not_found', { parameter: 'id' });
    await service.api.get('/passes/CC-1042/apple').expect(400);
  });
});

describe('logs', () => {
  it('write the pass id of holder-page, pass-file, API and Apple web service paths as its first 8 characters, never whole', async () => {
    const pass = await issuePass(service, tenant.token, templateId, { pass: { member: 'Ada' } });
    const short = `${pass.id.slice(0, 8)}…`;
    await service.api.get(`/passes/${pass.id}`).set('Accept', BROWSER_ACCEPT).expect(200);
    await service.api.get(`/passes/${pass.id}/google`).set('Accept', BROWSER_ACCEPT).expect(200);
    await download(pass.id).expect(200);
    await service.api.get(`/passes/${pass.id}/apple?token=${pass.id}`);
    await service.api.get(`/api/v1/passes/${pass.id}`).set(service.auth(tenant.token)).expect(200);
    await service.api.patch(`/api/v1/loyalty/${pass.id}`).set(service.auth(tenant.token)).send({ balance: 5 }).expect(200);
    const wrongToken = { Authorization: `ApplePass ${'y'.repeat(32)}` };
    await service.api.get(`/wallet/apple/v1/passes/${PASS_TYPE_ID}/${pass.id}`).set(wrongToken).expect(401);
    await service.api
      .post(`/wallet/apple/v1/devices/d${'0'.repeat(31)}/registrations/${PASS_TYPE_ID}/${pass.id}`)
      .set(wrongToken)
      .send({ pushToken: 'ab' })
      .expect(401);

    expect(service.logText().toLowerCase()).not.toContain(pass.id.toLowerCase());
    const urls = service.logs.map((line) => (line.req as { url?: string } | undefined)?.url).filter((url) => url?.includes(short));
    expect(urls).toEqual(
      expect.arrayContaining([
        `/passes/${short}`,
        `/passes/${short}/google`,
        `/passes/${short}/apple`,
        `/passes/${short}/apple?token=[redacted]`,
        `/api/v1/passes/${short}`,
        `/api/v1/loyalty/${short}`,
        `/wallet/apple/v1/passes/${PASS_TYPE_ID}/${short}`,
        `/wallet/apple/v1/devices/d${'0'.repeat(31)}/registrations/${PASS_TYPE_ID}/${short}`,
      ]),
    );
    expect(service.logs.find((line) => line.msg === 'pass issued' && line.passId === short)).toBeDefined();
  });
});
