/**
 * The pass kinds beyond PassEntry's five (the contract's `TemplateKind`), through HTTP on a real
 * database with the job workers, against the stand-in Google Wallet API: a `coupon` (Apple
 * `coupon`, Google `offerClass`), a `giftCard` (Apple `storeCard` with a currency amount, Google
 * `giftCardClass` with a `Money` balance changed by `updateLoyalty`) and an `eventTicket` with
 * `eventDetails` (an iOS 18 poster event ticket, Google `eventTicketClass` venue and dates). Each
 * goes create → issue → update → nullify; its pass.json is checked against passkit-generator's
 * schema (Joi `PassProps`, the keys Apple documents), its preview drawn and its holder page
 * served. The contract stays compatible: responses answer `templateType` within its first five
 * values and name the kind in `templateKind`. Barcodes of the iOS 27 symbologies come first in
 * `barcodes` with the QR code as the fallback, and are refused where a wallet could not show them.
 */
import { createRequire } from 'node:module';
import { unzipSync } from 'fflate';
import { setAppleConfiguration } from './support/appleCredentials.ts';
import { startFakeGoogleWallet, type FakeGoogleWallet } from './support/fakeGoogleWallet.ts';
import { CLIENT_EMAIL, ISSUER_ID, serviceAccountKeyPair, putGoogleConfiguration } from './support/googleCredentials.ts';
import { BROWSER_ACCEPT } from './support/holderPages.ts';
import { ICON_PNG, LOGO_PNG } from './support/images.ts';
import { createTemplate, issuePass } from './support/passes.ts';
import { pollUntil } from './support/poll.ts';
import { startTestService, type TestService } from './support/testService.ts';

// passkit-generator's Joi schemas are not among its package exports: read by file.
const { PassProps } = createRequire(import.meta.url)('../node_modules/passkit-generator/lib/cjs/schemas/index.js') as {
  PassProps: { validate: (value: unknown) => { error?: Error } };
};

let fake: FakeGoogleWallet;
let service: TestService;
let tenant: { accountId: string; token: string };
const auth = () => service.auth(tenant.token);

beforeAll(async () => {
  fake = await startFakeGoogleWallet({ publicKey: serviceAccountKeyPair().publicKey, clientEmail: CLIENT_EMAIL });
  service = await startTestService({
    jobs: 'work',
    passChangeRelayIntervalMs: 200,
    config: { googleWalletApiUrl: fake.apiUrl, googleOauthTokenUrl: fake.tokenUrl },
  });
  tenant = await service.createAccount('Coffee Club Ltd');
  await setAppleConfiguration(service, tenant.accountId);
  await putGoogleConfiguration(service, tenant.accountId);
});
afterAll(async () => {
  await service.close();
  await fake.close();
});

/** One kind: its template, the pass it issues, an update, and what each wallet must show. */
interface Kind {
  kind: string;
  /** What responses answer as `templateType`. */
  compatibleType: string;
  appleStyle: string;
  googleClass: string;
  template: Record<string, unknown>;
  extId?: string;
  update: (passId: string) => Promise<unknown>;
  expectApple: (passJson: Record<string, any>, updated: boolean) => void;
  expectGoogle: (classBody: Record<string, any>, objectBody: Record<string, any>, updated: boolean) => void;
}

const EVENT_START = '2027-03-01T19:30:00Z';
const KINDS: Kind[] = [
  {
    kind: 'coupon',
    compatibleType: 'generic',
    appleStyle: 'coupon',
    googleClass: 'offerClass',
    template: {
      name: 'Spring offer',
      templateType: 'coupon',
      centralTitle: '20% off any coffee',
      images: { icon: ICON_PNG, logo: LOGO_PNG },
      fields: { central: { one: { id: 'offer', label: 'Offer', defaultValue: '20% off' } } },
      offerDetails: { redemptionChannel: 'inStore', provider: 'Coffee Club', validFrom: '2027-01-01T00:00:00Z', validUntil: '2027-06-30T23:59:59Z' },
      barcode: { enabled: true, type: 'qr', preferredType: 'ean13', source: 'custom', value: '4006381333931' },
    },
    update: (id) =>
      service.api
        .patch(`/api/v1/passes/${id}`)
        .set(auth())
        .send({ pass: { offer: '30% off' } })
        .expect(200),
    expectApple: (passJson, updated) => {
      expect(passJson.expirationDate).toBe('2027-06-30T23:59:59Z');
      expect(passJson.barcodes.map((b: { format: string }) => b.format)).toEqual(['PKBarcodeFormatEAN13', 'PKBarcodeFormatQR']);
      expect(passJson.coupon.primaryFields[0].value).toBe(updated ? '30% off' : '20% off');
    },
    expectGoogle: (cls, object) => {
      expect(cls).toMatchObject({ title: '20% off any coffee', provider: 'Coffee Club', redemptionChannel: 'INSTORE' });
      expect(object.validTimeInterval).toEqual({ start: { date: '2027-01-01T00:00:00Z' }, end: { date: '2027-06-30T23:59:59Z' } });
      expect(object.barcode).toMatchObject({ type: 'EAN_13', value: '4006381333931' });
    },
  },
  {
    kind: 'giftCard',
    compatibleType: 'storeCard',
    appleStyle: 'storeCard',
    googleClass: 'giftCardClass',
    template: {
      name: 'Gift card',
      templateType: 'giftCard',
      centralTitle: 'Coffee Club',
      images: { icon: ICON_PNG, logo: LOGO_PNG },
      fields: { header: { one: { id: 'points', label: 'Balance', defaultValue: '0' } } },
      giftCardDetails: { currency: 'EUR' },
      barcode: { enabled: true, type: 'qr', preferredType: 'code39', source: 'extId' },
    },
    extId: 'GIFT-0001',
    // The balance changes through the loyalty operation, in cents.
    update: (id) => service.api.patch(`/api/v1/loyalty/${id}`).set(auth()).send({ overrideBalance: 1250 }).expect(200),
    expectApple: (passJson, updated) => {
      expect(passJson.storeCard.headerFields[0]).toMatchObject({ key: 'points', currencyCode: 'EUR', value: updated ? 12.5 : 0 });
      expect(passJson.barcodes.map((b: { format: string }) => b.format)).toEqual(['PKBarcodeFormatCode39', 'PKBarcodeFormatQR']);
    },
    expectGoogle: (cls, object, updated) => {
      expect(cls).toMatchObject({ merchantName: 'Coffee Club' });
      expect(object).toMatchObject({ cardNumber: 'GIFT-0001', balance: { micros: updated ? '12500000' : '0', currencyCode: 'EUR' } });
      expect(object.barcode).toMatchObject({ type: 'CODE_39', value: 'GIFT-0001' });
    },
  },
  {
    kind: 'eventTicket',
    compatibleType: 'eventTicket',
    appleStyle: 'eventTicket',
    googleClass: 'eventTicketClass',
    template: {
      name: 'Spring concert',
      templateType: 'eventTicket',
      centralTitle: 'Spring Concert',
      images: { icon: ICON_PNG, logo: LOGO_PNG },
      fields: { details: { one: { id: 'seat', label: 'Seat', defaultValue: 'Free seating' } } },
      eventDetails: { venueName: 'Royal Albert Hall', startsAt: EVENT_START, performerNames: ['The Example Quartet'] },
      barcode: { enabled: true, type: 'qr', source: 'uuid' },
    },
    update: (id) =>
      service.api
        .patch(`/api/v1/passes/${id}`)
        .set(auth())
        .send({ pass: { seat: 'Row 4, seat 12' } })
        .expect(200),
    expectApple: (passJson, updated) => {
      expect(passJson.preferredStyleSchemes).toEqual(['posterEventTicket', 'eventTicket']);
      expect(passJson.semantics).toEqual({
        eventName: 'Spring Concert',
        venueName: 'Royal Albert Hall',
        eventStartDate: EVENT_START,
        performerNames: ['The Example Quartet'],
      });
      expect(passJson.relevantDates).toEqual([{ startDate: EVENT_START, endDate: '2027-03-01T23:30:00Z' }]);
      expect(passJson).not.toHaveProperty('relevantDate');
      expect(passJson.eventTicket.secondaryFields[0].value).toBe(updated ? 'Row 4, seat 12' : 'Free seating');
    },
    expectGoogle: (cls) => {
      const name = { defaultValue: { language: 'en', value: 'Royal Albert Hall' } };
      expect(cls).toMatchObject({ venue: { name, address: name }, dateTime: { start: EVENT_START } });
    },
  },
];

/** The pass.json of a pass's .pkpass, from its holder download. */
async function passJsonOf(passId: string): Promise<{ passJson: Record<string, any>; files: string[] }> {
  const res = await service.api
    .get(`/passes/${passId}/apple`)
    .buffer(true)
    .parse((r, done) => {
      const chunks: Buffer[] = [];
      r.on('data', (c: Buffer) => chunks.push(c));
      r.on('end', () => done(null, Buffer.concat(chunks)));
    })
    .expect(200);
  const entries = unzipSync(res.body as Buffer);
  return { passJson: JSON.parse(Buffer.from(entries['pass.json']!).toString('utf8')), files: Object.keys(entries) };
}

/** The latest body Google received for a resource path (`/offerObject`), inserted or patched. */
async function googleBody(resource: string, id: string, matches: (body: any) => boolean = () => true): Promise<any> {
  const calls = await pollUntil(
    async () => fake.calls.filter((c) => (c.path === `/${resource}` && c.body?.id === id) || c.path === `/${resource}/${id}`).map((c) => c.body),
    (bodies) => bodies.length > 0 && matches(bodies.at(-1)),
    { timeoutMs: 20_000 },
  );
  return calls.at(-1);
}

describe.each(KINDS)('$kind', (k) => {
  it('is created, issued, updated and nullified, valid for Apple and Google, with a preview and a holder page', async () => {
    const templateId = await createTemplate(service, tenant.token, k.template);
    const template = (await service.api.get(`/api/v1/pass-templates/${templateId}`).set(auth()).expect(200)).body.data.attributes;
    expect(template).toMatchObject({ templateType: k.compatibleType, templateKind: k.kind });
    // A sparse fieldset names the kind too; the list filter selects by kind.
    const listed = await service.api.get(`/api/v1/pass-templates?templateType=${k.kind}&fields=templateKind`).set(auth()).expect(200);
    expect(listed.body.data).toContainEqual(expect.objectContaining({ id: templateId, attributes: { templateKind: k.kind } }));

    const pass = await issuePass(service, tenant.token, templateId, { pass: {} }, k.extId ? { extId: k.extId } : {});
    const objectId = `${ISSUER_ID}.${pass.id}`;
    const objectType = k.googleClass.replace(/Class$/, 'Object');
    const { passJson, files } = await passJsonOf(pass.id);
    expect(PassProps.validate(passJson).error).toBeUndefined();
    expect(Object.keys(passJson)).toContain(k.appleStyle);
    if (k.kind === 'eventTicket') expect(files).toEqual(expect.arrayContaining(['eventLogo.png', 'eventLogo@2x.png']));
    k.expectApple(passJson, false);
    const cls = await googleBody(k.googleClass, `${ISSUER_ID}.${templateId}`);
    k.expectGoogle(cls, await googleBody(objectType, objectId), false);

    const png = await service.api.get(`/api/v1/passes/${pass.id}/preview?scale=1`).set(auth()).set('Accept', 'image/png').expect(200);
    expect(png.headers['content-type']).toBe('image/png');
    const page = await service.api.get(`/passes/${pass.id}`).set('Accept', BROWSER_ACCEPT).expect(200);
    expect(page.text).toContain(k.template.centralTitle as string);

    await k.update(pass.id);
    const updated = await passJsonOf(pass.id);
    expect(PassProps.validate(updated.passJson).error).toBeUndefined();
    k.expectApple(updated.passJson, true);
    const patched = await googleBody(objectType, objectId, (body) => {
      try {
        k.expectGoogle(cls, body, true);
        return true;
      } catch {
        return false;
      }
    });
    k.expectGoogle(cls, patched, true);

    await service.api.post(`/api/v1/passes/${pass.id}/nullify`).set(auth()).expect(200);
    // The holder's download is gone; Google shows the object inactive.
    await service.api.get(`/passes/${pass.id}/apple`).expect(410);
    expect((await googleBody(objectType, objectId, (body) => body.state === 'INACTIVE')).state).toBe('INACTIVE');
  });
});

describe('refusals', () => {
  const create = (passTemplate: Record<string, unknown>) => service.api.post('/api/v1/pass-templates').set(auth()).send({ passTemplate });
  const pointerOf = (res: { body: { errors: { source?: { pointer?: string; parameter?: string } }[] } }) => res.body.errors[0]!.source;

  it('refuses a preferred barcode symbology that cannot encode the barcode, naming the member', async () => {
    const base = { name: 'Bad barcode', templateType: 'coupon', centralTitle: 'Offer', images: { icon: ICON_PNG } };
    const uuid = await create({ ...base, barcode: { enabled: true, type: 'qr', preferredType: 'itf', source: 'uuid' } }).expect(400);
    expect(pointerOf(uuid)).toEqual({ pointer: '/passTemplate/barcode/source' });
    const value = await create({ ...base, barcode: { enabled: true, type: 'qr', preferredType: 'ean13', source: 'custom', value: '12345' } }).expect(400);
    expect(pointerOf(value)).toEqual({ pointer: '/passTemplate/barcode/value' });
    expect(value.body.errors[0].detail).toMatch(/13 digits/);
  });

  it("refuses a kind's own member on another kind, and a templateKind that contradicts templateType", async () => {
    const gift = await create({ name: 'Gift', templateType: 'giftCard', offerDetails: { redemptionChannel: 'online' } }).expect(400);
    expect(pointerOf(gift)).toEqual({ pointer: '/passTemplate/offerDetails' });
    const mixed = await create({ name: 'Mixed', templateType: 'loyalty', templateKind: 'coupon' }).expect(400);
    expect(pointerOf(mixed)).toEqual({ pointer: '/passTemplate/templateKind' });
  });
});
