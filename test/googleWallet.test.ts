/**
 * Google Wallet end to end, through HTTP on a real database with the job workers, against a
 * stand-in for the Google Wallet API and Google's token endpoint (test/support/fakeGoogleWallet.ts)
 * that records every call: template processing writes the class (then patches it for a new
 * design), issuing a pass inserts its object, changes patch it (balance, state, nullify), a
 * message is added with the right type and falls back to TEXT on Google's quota, 429/5xx are
 * retried and 4xx recorded; the "Save to Google Wallet" link is verified with jose; the images
 * Google fetches are served (getPassTemplateImage); an account without Google credentials is
 * left alone.
 */
import { createGoogleThrottle } from '../src/delivery/googleRateLimit.ts';
import { decodeJwt, decodeProtectedHeader, jwtVerify } from 'jose';
import { startFakeGoogleWallet, type FakeGoogleWallet, type GoogleCall } from './support/fakeGoogleWallet.ts';
import { CLIENT_EMAIL, ISSUER_ID, serviceAccountKeyPair, putGoogleConfiguration } from './support/googleCredentials.ts';
import { createTemplate, expectError, issuePass, loyaltyTemplate, plainTemplate } from './support/passes.ts';
import { ICON_PNG, LOGO_PNG } from './support/images.ts';
import { pollUntil } from './support/poll.ts';
import { binary } from './support/simulatedIphone.ts';
import { startTestService, type TestService } from './support/testService.ts';

let fake: FakeGoogleWallet;
let service: TestService;
let tenant: { accountId: string; token: string };
let templateId: string;
const ACCOUNT_NAME = 'Coffee Club Ltd';

beforeAll(async () => {
  fake = await startFakeGoogleWallet({ publicKey: serviceAccountKeyPair().publicKey, clientEmail: CLIENT_EMAIL });
  service = await startTestService({
    jobs: 'work',
    config: { googleWalletApiUrl: fake.apiUrl, googleOauthTokenUrl: fake.tokenUrl, googleSaveOrigins: ['https://shop.example.com'] },
  });
  tenant = await service.createAccount(ACCOUNT_NAME);
  await putGoogleConfiguration(service, tenant.accountId);
  templateId = await createTemplate(service, tenant.token, loyaltyTemplate());
});
afterAll(async () => {
  await service.close();
  await fake.close();
});

const auth = () => service.auth(tenant.token);
type Attempt = { attributes: Record<string, unknown> };
const attempts = async (id: string) => (await service.api.get(`/api/v1/passes/${id}/delivery-attempts`).set(auth()).expect(200)).body.data as Attempt[];
/** A pass's delivery attempts once `count` of them name `operation` (a job records one after Google's answer). */
const attemptsOnceRecorded = (id: string, operation: string, count = 1) =>
  pollUntil(
    () => attempts(id),
    (record) => record.filter((a) => a.attributes.operation === operation).length >= count,
    { timeoutMs: 20_000 },
  );

/** The stand-in's calls matching, once there are `count` (at most 20 s). */
const callsOf = (match: (call: GoogleCall) => boolean, count = 1, timeoutMs = 20_000): Promise<GoogleCall[]> =>
  pollUntil(
    async () => fake.calls.filter(match),
    (calls) => calls.length >= count,
    { timeoutMs },
  );
/** The pass's Google object once it records `message` as its last (the job stores it, with its notification time, after Google's answer). */
const objectWithMessage = (passId: string, message: string) =>
  pollUntil(
    () => service.database.db.prisma.googleWalletObject.findUnique({ where: { passId } }),
    (object) => object?.lastMessage === message,
    { timeoutMs: 20_000 },
  );
const call = (method: string, path: string) => (c: GoogleCall) => c.method === method && c.path === path;
const objectPath = (passId: string) => `/loyaltyObject/${ISSUER_ID}.${passId}`;

describe('classes', () => {
  it('inserts the class of a processed template, with the issuer and images by public URL', async () => {
    const [insert] = await callsOf(call('POST', '/loyaltyClass'));
    expect(insert!.body).toMatchObject({
      id: `${ISSUER_ID}.${templateId}`,
      issuerName: ACCOUNT_NAME,
      programName: 'Coffee Club',
      reviewStatus: 'UNDER_REVIEW',
      hexBackgroundColor: '#1a2b3c',
      // The logo is 320 × 100 (3.2:1): Google's wide logo, with the square icon in the circle.
      wideProgramLogo: { sourceUri: { uri: `http://wallet.test/media/pass-templates/${templateId}/versions/1/logo@3x.png` } },
      programLogo: { sourceUri: { uri: `http://wallet.test/media/pass-templates/${templateId}/versions/1/icon@3x.png` } },
      locations: [{ latitude: 51.5136, longitude: -0.1365 }],
    });
    expect(insert!.body.textModulesData.map((m: { id: string }) => m.id)).toEqual(['points', 'member', 'tier', 'since', 'terms']);
    // Save and delete callbacks are off (GOOGLE_WALLET_CALLBACKS unset): no callbackOptions.
    expect(insert!.body).not.toHaveProperty('callbackOptions');
    expect(fake.tokenRequests.length).toBeGreaterThanOrEqual(1);
    // The access token is cached: one grant for every call so far.
    expect(fake.tokenRequests.length).toBe(1);
  });

  it('serves the images Google fetches (getPassTemplateImage), 404 for another', async () => {
    const res = await service.api.get(`/media/pass-templates/${templateId}/versions/1/logo@3x.png`).buffer(true).parse(binary).expect(200);
    expect(res.headers['content-type']).toBe('image/png');
    // CacheControlImmutable in the contract: the bytes at this URL never change.
    expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect((res.body as Buffer).subarray(1, 4).toString('latin1')).toBe('PNG');
    expectError(await service.api.get(`/media/pass-templates/${templateId}/versions/9/logo@3x.png`), 404, 'not_found', { parameter: 'imageName' });
    expectError(await service.api.get(`/media/pass-templates/${templateId}/versions/1/secret.txt`), 400, 'validation_failed', { parameter: 'imageName' });
  });

  it('patches the class when a new design version is processed', async () => {
    await service.api
      .patch(`/api/v1/pass-templates/${templateId}`)
      .set(auth())
      .send({ passTemplate: { centralTitle: 'Coffee Club Gold' } })
      .expect((r) => expect([200, 202]).toContain(r.status));
    const [patch] = await callsOf((c) => c.method === 'PATCH' && c.path === `/loyaltyClass/${ISSUER_ID}.${templateId}`);
    expect(patch?.body).toMatchObject({
      programName: 'Coffee Club Gold',
      wideProgramLogo: { sourceUri: { uri: expect.stringContaining('/versions/2/logo@3x.png') } },
      programLogo: { sourceUri: { uri: expect.stringContaining('/versions/2/icon@3x.png') } },
    });
  });
});

describe('logos', () => {
  const media = (id: string, file: string) => ({ sourceUri: { uri: `http://wallet.test/media/pass-templates/${id}/versions/1/${file}` } });
  const classInsert = async (resource: string, id: string) =>
    (await callsOf((c) => c.method === 'POST' && c.path === `/${resource}` && c.body?.id === `${ISSUER_ID}.${id}`))[0]!.body as Record<string, unknown>;
  const event = { eventDetails: { venueName: 'Royal Albert Hall', startsAt: '2027-03-01T19:30:00Z' } };
  // LOGO_PNG is 320 × 100 (3.2:1, wide); ICON_PNG 120 × 120 (square).
  const CASES = [
    ['loyalty', 'loyaltyClass', {}, 'programLogo', 'wideProgramLogo'],
    ['giftCard', 'giftCardClass', { giftCardDetails: { currency: 'EUR' } }, 'programLogo', 'wideProgramLogo'],
    ['eventTicket', 'eventTicketClass', event, 'logo', 'wideLogo'],
    ['transit', 'transitClass', {}, 'logo', 'wideLogo'],
  ] as const;

  it.each(CASES)(
    '%s (%s): a wide logo goes to the wide member with the icon in the circle; a square logo to the circle, the wide member null',
    async (type, resource, extra, circle, wide) => {
      const base = { name: `${type} logos`, templateType: type, centralTitle: 'Bean', ...extra };
      const wideId = await createTemplate(service, tenant.token, { ...base, images: { logo: LOGO_PNG, icon: ICON_PNG } });
      const squareId = await createTemplate(service, tenant.token, { ...base, images: { logo: ICON_PNG, icon: ICON_PNG } });
      const wideClass = await classInsert(resource, wideId);
      expect(wideClass[wide]).toEqual(media(wideId, 'logo@3x.png'));
      expect(wideClass[circle]).toEqual(media(wideId, 'icon@3x.png'));
      const squareClass = await classInsert(resource, squareId);
      expect(squareClass[circle]).toEqual(media(squareId, 'logo@3x.png'));
      // null clears a wide logo the class was written with before (a PATCH keeps members it does not name).
      expect(squareClass[wide]).toBeNull();
    },
  );

  it('clears the wide logo when a redesign makes the logo square (PATCH with wideProgramLogo null)', async () => {
    const id = await createTemplate(service, tenant.token, loyaltyTemplate({ name: 'Wide then square' }));
    expect((await classInsert('loyaltyClass', id)).wideProgramLogo).toEqual(media(id, 'logo@3x.png'));
    await service.api
      .patch(`/api/v1/pass-templates/${id}`)
      .set(auth())
      .send({ passTemplate: { images: { logo: ICON_PNG } } })
      .expect((r) => expect([200, 202]).toContain(r.status));
    const [patch] = await callsOf((c) => c.method === 'PATCH' && c.path === `/loyaltyClass/${ISSUER_ID}.${id}`);
    expect(patch!.body.wideProgramLogo).toBeNull();
    expect(patch!.body.programLogo).toEqual({ sourceUri: { uri: expect.stringContaining(`/${id}/versions/2/logo@3x.png`) } });
  });

  it('sends an offer’s logo as its titleImage whatever its shape (offerClass has no wide logo)', async () => {
    const id = await createTemplate(service, tenant.token, {
      name: 'Offer logo',
      templateType: 'coupon',
      centralTitle: 'Bean',
      images: { logo: LOGO_PNG, icon: ICON_PNG },
    });
    const cls = await classInsert('offerClass', id);
    expect(cls.titleImage).toEqual(media(id, 'logo@3x.png'));
    expect(Object.keys(cls).filter((k) => /wide/i.test(k))).toEqual([]);
  });

  it('puts a generic template’s logo on its objects: wideLogo with the icon as logo when wide, logo alone when square', async () => {
    const generic = (logo: string) => plainTemplate({ name: 'Generic logo', centralTitle: 'Bean', images: { logo, icon: ICON_PNG } });
    const wideId = await createTemplate(service, tenant.token, generic(LOGO_PNG));
    const squareId = await createTemplate(service, tenant.token, generic(ICON_PNG));
    const wideClass = await classInsert('genericClass', wideId);
    expect(Object.keys(wideClass).filter((k) => /logo/i.test(k))).toEqual([]);
    const [widePass, squarePass] = [await issuePass(service, tenant.token, wideId), await issuePass(service, tenant.token, squareId)];
    const objectOf = async (passId: string) =>
      (await callsOf((c) => c.method === 'POST' && c.path === '/genericObject' && c.body?.id === `${ISSUER_ID}.${passId}`))[0]!.body as Record<string, unknown>;
    const wideObject = await objectOf(widePass.id);
    expect(wideObject).toMatchObject({ wideLogo: media(wideId, 'logo@3x.png'), logo: media(wideId, 'icon@3x.png') });
    const squareObject = await objectOf(squarePass.id);
    expect(squareObject.logo).toEqual(media(squareId, 'logo@3x.png'));
    expect(squareObject).not.toHaveProperty('wideLogo');
  });
});

describe('objects', () => {
  let passId: string;

  it('inserts the object of an issued pass with its fields, barcode, points and Smart Tap value', async () => {
    const pass = await issuePass(service, tenant.token, templateId, {
      pass: {
        member: 'Ada',
        points: '120',
        barcode: { enabled: true, type: 'code128', source: 'uuid', displayText: true },
        nfc: { enabled: true, source: 'custom', customValue: 'NFC-ADA' },
      },
    });
    passId = pass.id;
    const [insert] = await callsOf(call('POST', '/loyaltyObject'));
    expect(insert!.body).toMatchObject({
      id: `${ISSUER_ID}.${passId}`,
      classId: `${ISSUER_ID}.${templateId}`,
      state: 'ACTIVE',
      loyaltyPoints: { balance: { int: 120 } },
      barcode: { type: 'CODE_128', value: passId, alternateText: passId },
      smartTapRedemptionValue: 'NFC-ADA',
    });
    expect(insert!.body.textModulesData).toContainEqual({ id: 'member', header: 'Member', body: 'Ada' });
    const record = await attemptsOnceRecorded(passId, 'insertObject');
    expect(record.map((a) => a.attributes)).toContainEqual(
      expect.objectContaining({ channel: 'googleWallet', target: `${ISSUER_ID}.${passId}`, operation: 'insertObject', outcome: 'delivered', status: 200 }),
    );
    const metrics = (await service.api.get('/metrics').set(service.adminAuth()).expect(200)).text;
    expect(Number(/^wallet_delivery_attempts_total\{channel="googleWallet",outcome="delivered"\} (\d+)$/m.exec(metrics)?.[1])).toBeGreaterThanOrEqual(2);
  });

  it('patches the object with a new balance', async () => {
    await service.api.patch(`/api/v1/loyalty/${passId}`).set(auth()).send({ balance: 30 }).expect(200);
    const [patch] = await callsOf(call('PATCH', objectPath(passId)));
    expect(patch!.body.loyaltyPoints).toEqual({ balance: { int: 150 } });
  });

  it('patches the state: INACTIVE when deactivated, ACTIVE again when reactivated', async () => {
    await service.api.patch(`/api/v1/passes/${passId}`).set(auth()).send({ passAction: 'deactivate' }).expect(200);
    expect((await callsOf((c) => call('PATCH', objectPath(passId))(c) && c.body.state === 'INACTIVE'))[0]).toBeDefined();
    await service.api.patch(`/api/v1/passes/${passId}`).set(auth()).send({ passAction: 'reactivate' }).expect(200);
    expect((await callsOf((c) => call('PATCH', objectPath(passId))(c) && c.body.state === 'ACTIVE', 2)).length).toBeGreaterThanOrEqual(2);
  });

  it('adds messages: TEXT_AND_NOTIFY three times a day, then TEXT', async () => {
    for (const [i, text] of ['One', 'Two', 'Three', 'Four'].entries()) {
      await service.api
        .patch(`/api/v1/passes/${passId}`)
        .set(auth())
        .send({ message: `Message ${text}` })
        .expect(200);
      await callsOf(call('POST', `${objectPath(passId)}/addMessage`), i + 1);
      expect((await objectWithMessage(passId, `Message ${text}`))?.lastMessage).toBe(`Message ${text}`);
    }
    const messages = (await callsOf(call('POST', `${objectPath(passId)}/addMessage`), 4)).map((c) => [c.body.message.body, c.body.message.messageType]);
    expect(messages).toEqual([
      ['Message One', 'TEXT_AND_NOTIFY'],
      ['Message Two', 'TEXT_AND_NOTIFY'],
      ['Message Three', 'TEXT_AND_NOTIFY'],
      ['Message Four', 'TEXT'],
    ]);
    // Google's Message resource: header is the notification's title, the template's notificationHeader.
    const [first] = await callsOf(call('POST', `${objectPath(passId)}/addMessage`));
    expect(first!.body.message).toEqual({ id: expect.any(String), header: 'Coffee Club news', body: 'Message One', messageType: 'TEXT_AND_NOTIFY' });
  });

  it("heads a message with the account's name when the template has no notificationHeader", async () => {
    const headless = await createTemplate(service, tenant.token, loyaltyTemplate({ name: 'Headless card', notificationHeader: undefined }));
    const pass = await issuePass(service, tenant.token, headless, { pass: { member: 'Ada' } });
    await callsOf((c) => call('POST', '/loyaltyObject')(c) && c.body.id === `${ISSUER_ID}.${pass.id}`);
    await attemptsOnceRecorded(pass.id, 'insertObject');
    await service.api.patch(`/api/v1/passes/${pass.id}`).set(auth()).send({ message: 'Double points today' }).expect(200);
    const [message] = await callsOf(call('POST', `${objectPath(pass.id)}/addMessage`));
    expect(message!.body.message).toMatchObject({ header: ACCOUNT_NAME, body: 'Double points today' });
  });

  it('falls back to TEXT when Google answers QuotaExceededException', async () => {
    // The service's own count lost (e.g. notifications sent by another system): Google refuses.
    await service.database.db.prisma.googleWalletObject.update({ where: { passId }, data: { notifiedAt: [] } });
    await service.api.patch(`/api/v1/passes/${passId}`).set(auth()).send({ message: 'Message Five' }).expect(200);
    const calls = await callsOf((c) => call('POST', `${objectPath(passId)}/addMessage`)(c) && c.body.message.body === 'Message Five', 2);
    expect(calls.map((c) => c.body.message.messageType)).toEqual(['TEXT_AND_NOTIFY', 'TEXT']);
    const record = (await attempts(passId)).map((a) => a.attributes);
    expect(record).toContainEqual(
      expect.objectContaining({ operation: 'addNotifyingMessage', outcome: 'retry', status: 429, reason: expect.stringContaining('QuotaExceeded') }),
    );
  });

  it('patches a nullified pass to INACTIVE without its barcode and content', async () => {
    const before = fake.calls.length;
    await service.api.post(`/api/v1/passes/${passId}/nullify`).set(auth()).expect(200);
    const [patch] = await callsOf((c) => fake.calls.indexOf(c) >= before && call('PATCH', objectPath(passId))(c));
    expect(patch!.body.state).toBe('INACTIVE');
    expect(patch!.body.barcode).toBeUndefined();
    expect(patch!.body.smartTapRedemptionValue).toBeUndefined();
  });
});

describe('errors', () => {
  it('retries 429 and 5xx with back-off, recording each attempt', async () => {
    fake.failNext(503);
    const pass = await issuePass(service, tenant.token, templateId);
    const inserts = await callsOf((c) => call('POST', '/loyaltyObject')(c) && c.body.id === `${ISSUER_ID}.${pass.id}`, 2);
    expect(inserts).toHaveLength(2);
    const record = (await attemptsOnceRecorded(pass.id, 'insertObject', 2)).map((a) => [
      a.attributes.operation,
      a.attributes.outcome,
      a.attributes.status,
      a.attributes.attempt,
    ]);
    expect(record).toEqual(
      expect.arrayContaining([
        ['insertObject', 'retry', 503, 1],
        ['insertObject', 'delivered', 200, 2],
      ]),
    );
  });

  it('fetches a new access token when the API refuses the cached one (401)', async () => {
    const grants = fake.tokenRequests.length;
    fake.revokeTokens();
    const pass = await issuePass(service, tenant.token, templateId);
    const inserts = await callsOf((c) => call('POST', '/loyaltyObject')(c) && c.body.id === `${ISSUER_ID}.${pass.id}`, 2);
    expect(inserts).toHaveLength(2);
    expect(fake.tokenRequests.length).toBe(grants + 1);
    expect((await attemptsOnceRecorded(pass.id, 'insertObject')).map((a) => [a.attributes.operation, a.attributes.outcome])).toEqual([
      ['insertObject', 'delivered'],
    ]);
  });

  it('records a 4xx as an error and does not retry it', async () => {
    fake.failNext(400);
    const pass = await issuePass(service, tenant.token, templateId);
    await callsOf((c) => call('POST', '/loyaltyObject')(c) && c.body.id === `${ISSUER_ID}.${pass.id}`);
    await new Promise((r) => setTimeout(r, 3500));
    expect(fake.calls.filter((c) => c.body?.id === `${ISSUER_ID}.${pass.id}`)).toHaveLength(1);
    const record = (await attempts(pass.id)).map((a) => a.attributes);
    expect(record).toEqual([
      expect.objectContaining({
        channel: 'googleWallet',
        operation: 'insertObject',
        outcome: 'rejected',
        status: 400,
        reason: expect.stringContaining('INVALID_ARGUMENT'),
      }),
    ]);
  });
});

describe('save link', () => {
  it('is a skinny RS256 JWT naming the object, signed by the service account, under 1,800 characters on the largest pass', async () => {
    const longest = 'x'.repeat(64);
    const pass = await issuePass(
      service,
      tenant.token,
      templateId,
      {
        pass: { member: 'M'.repeat(100), tier: 'T'.repeat(100), since: 'S'.repeat(100), terms: 'Z'.repeat(100), nfc: { enabled: true, source: 'extId' } },
        message: 'm'.repeat(350),
        groupTags: Array.from({ length: 20 }, (_, i) => `tag-${i}`),
      },
      { extId: longest, includePassSource: 'google' },
    );
    const url = (pass.attributes.passSource as { platform: string; url: string }).url;
    expect(url).toMatch(/^https:\/\/pay\.google\.com\/gp\/v\/save\/[\w-]+\.[\w-]+\.[\w-]+$/);
    const jwt = url.slice('https://pay.google.com/gp/v/save/'.length);
    expect(jwt.length).toBeLessThan(1800);
    const { payload } = await jwtVerify(jwt, serviceAccountKeyPair().publicKey, { issuer: CLIENT_EMAIL, audience: 'google', algorithms: ['RS256'] });
    expect(payload).toMatchObject({
      typ: 'savetowallet',
      origins: ['https://shop.example.com'],
      payload: { loyaltyObjects: [{ id: `${ISSUER_ID}.${pass.id}` }] },
    });
    expect(decodeProtectedHeader(jwt)).toMatchObject({ alg: 'RS256', kid: '0123456789abcdef0123456789abcdef01234567' });
    // The same link on show.
    const shown = await service.api.get(`/api/v1/passes/${pass.id}?includePassSource=google`).set(auth()).expect(200);
    expect(decodeJwt(shown.body.data.attributes.passSource.url.split('/').pop())).toMatchObject({
      payload: { loyaltyObjects: [{ id: `${ISSUER_ID}.${pass.id}` }] },
    });
  });
});

describe('without Google credentials', () => {
  it('issues and changes passes without calling Google; the google pass source is the holder page', async () => {
    const other = await service.createAccount();
    const otherTemplate = await createTemplate(service, other.token, plainTemplate());
    const before = fake.calls.length;
    const pass = await issuePass(service, other.token, otherTemplate, { pass: {} }, { includePassSource: 'google' });
    expect(pass.attributes.passSource).toEqual({ platform: 'google', url: `http://wallet.test/passes/${pass.id}/google` });
    await service.api.patch(`/api/v1/passes/${pass.id}`).set(service.auth(other.token)).send({ passAction: 'deactivate' }).expect(200);
    await new Promise((r) => setTimeout(r, 1500));
    expect(fake.calls.slice(before).filter((c) => JSON.stringify(c).includes(otherTemplate) || JSON.stringify(c).includes(pass.id))).toEqual([]);
  });
});

describe('wallet-messaging batches', () => {
  it("add the message to each recipient's Google object, counted as delivered", async () => {
    const entityId = await service.createEntity(tenant.accountId);
    const passes = [
      await issuePass(service, tenant.token, templateId, { pass: { member: 'Ada' } }),
      await issuePass(service, tenant.token, templateId, { pass: { member: 'Grace' } }),
    ];
    for (const pass of passes) await callsOf((c) => call('POST', '/loyaltyObject')(c) && c.body.id === `${ISSUER_ID}.${pass.id}`);
    const created = await service.api
      .post(`/api/v1/entities/${entityId}/messaging/wallet`)
      .set(auth())
      .send({
        batch: {
          message: 'Hi %{member}, double points today.',
          scheduledAt: new Date(Date.now() + 3600_000).toISOString(),
          recipients: passes.map((p) => ({ passId: p.id })),
        },
      })
      .expect(202);
    const batchId = created.body.data.id as string;
    let status = 'validating';
    for (const deadline = Date.now() + 20_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 50))) {
      status = (await service.api.get(`/api/v1/batches/${batchId}`).set(auth()).expect(200)).body.data.attributes.status;
      if (status === 'scheduled') break;
    }
    await service.api.post(`/api/v1/batches/${batchId}/send-now`).set(auth()).expect(200);
    let attributes: Record<string, unknown> = {};
    for (const deadline = Date.now() + 20_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 50))) {
      attributes = (await service.api.get(`/api/v1/batches/${batchId}`).set(auth()).expect(200)).body.data.attributes;
      if (!['scheduled', 'sending'].includes(attributes.status as string)) break;
    }
    expect(attributes).toMatchObject({ status: 'successful', recipientCount: 2 });
    for (const [i, pass] of passes.entries()) {
      const [message] = await callsOf(call('POST', `${objectPath(pass.id)}/addMessage`));
      expect(message!.body.message).toMatchObject({
        header: 'Coffee Club news',
        body: `Hi ${['Ada', 'Grace'][i]}, double points today.`,
        messageType: 'TEXT_AND_NOTIFY',
      });
      expect((await attempts(pass.id)).map((a) => a.attributes)).toContainEqual(
        expect.objectContaining({ operation: 'addNotifyingMessage', outcome: 'delivered', batchId }),
      );
    }
  });
});

describe('rate limit', () => {
  it("holds every sliding second of an issuer's calls at the receiver to the quota (20/s) with up to 100 ms of jitter, workers sharing it through PostgreSQL", async () => {
    // With PostgreSQL two throttles stand for two workers sharing one budget; the embedded
    // database has one process, and one throttle. Each call reaches the receiver 0–100 ms after
    // its throttle let it through (the sender's scheduling and the network), and is counted there.
    const shared = service.runtime.db.kind === 'postgresql';
    const workers = shared
      ? [createGoogleThrottle(service.runtime.db, 20), createGoogleThrottle(service.runtime.db, 20)]
      : [createGoogleThrottle(service.runtime.db, 20)];
    const issuer = `issuer-${Date.now()}`;
    const times: number[] = [];
    const started = Date.now();
    const jitter = () => new Promise((r) => setTimeout(r, Math.random() * 100));
    await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        workers[i % workers.length]!(issuer)
          .then(jitter)
          .then(() => times.push(Date.now())),
      ),
    );
    times.sort((a, b) => a - b);
    let most = 0;
    for (let i = 0, j = 0; j < times.length; j++) {
      while (times[j]! - times[i]! >= 1000) i++;
      most = Math.max(most, j - i + 1);
    }
    expect(most).toBeLessThanOrEqual(20);
    // 60 calls paced at 16/s: the first at once, then about 3.7 s.
    expect(Date.now() - started).toBeGreaterThan(2500);
  });
});
