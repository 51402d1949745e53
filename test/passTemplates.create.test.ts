/**
 * Pass templates, createPassTemplate (spec §2.1, §4.1) through HTTP on a real database, with the
 * job queue and its workers running as in the server, responses validated against the contract:
 * the 202 and its Location, what processing makes of the payload (defaults, warnings, the errors
 * of a design that breaks the cross-member rules), the 400s and 401s. Also that a template and
 * its processing job are stored together or not at all.
 *
 * The other operations: test/passTemplates.read.test.ts (list, get, the legacy get) and
 * test/passTemplates.update.test.ts; the processing job itself: test/passTemplates.processing.test.ts.
 */
import { ICON_PNG } from './support/images.ts';
import {
  expectValidationError,
  fullAttributes,
  fullTemplate,
  minimalTemplate,
  startTemplateService,
  templateApi,
  type Tenant,
} from './support/passTemplates.ts';
import { startTestService, type TestService } from './support/testService.ts';

let service: TestService;
let tenant: Tenant;

const BASE = 'http://wallet.test';

beforeAll(async () => {
  ({ service, tenant } = await startTemplateService());
});
afterAll(() => service.close());

const { create, patch, settled, createProcessed } = templateApi(
  () => service,
  () => tenant,
);

describe('createPassTemplate', () => {
  it('answers 202 with exactly the §4.1 shape and a Location to poll', async () => {
    const res = await create(fullTemplate()).expect(202);
    const self = `${BASE}/api/v1/pass-templates/${res.body.id}`;
    expect(res.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      type: 'passTemplate',
      attributes: { name: 'Coffee Club Card', templateType: 'loyalty', templateKind: 'loyalty', transitType: null, processingStatus: 'processing' },
      meta: { message: expect.stringContaining('being processed'), links: { self } },
    });
    expect(res.headers.location).toBe(self);
  });

  it('processes the full §2.1 payload; the template then shows every attribute and no processingStatus', async () => {
    const created = await create(fullTemplate()).expect(202);
    const polled = await service.api.get(new URL(created.body.meta.links.self).pathname).set(service.auth(tenant.token)).expect(200);
    expect(['processing', undefined]).toContain(polled.body.data.attributes.processingStatus);
    const data = await settled(created.body.id);
    expect(data).toEqual({ id: created.body.id, type: 'passTemplate', attributes: fullAttributes() });
  });

  it('warns of label and text colours under the WCAG 2 AA contrast of 4.5:1, and processes the template all the same', async () => {
    const low = await createProcessed(fullTemplate({ colors: { background: '#0B6E4F', label: '#F2C14E', text: '#FFFFFF' } }));
    expect(low.attributes.processingStatus).toBeUndefined();
    expect(low.attributes.processingWarnings).toEqual([
      {
        code: 'low_contrast',
        detail:
          'colors.label #F2C14E on colors.background #0B6E4F has a contrast ratio of 3.72:1, under the 4.5:1 WCAG 2 AA minimum for text; holders may not be able to read it.',
        pointer: '/colors/label',
      },
    ]);
    const both = await createProcessed(fullTemplate({ colors: { background: '#999999', label: '#FFFFFF', text: '#BBBBBB' } }));
    expect((both.attributes.processingWarnings as { pointer: string }[]).map((w) => w.pointer)).toEqual(['/colors/label', '/colors/text']);
    // Black on #767676 is 4.69:1 and white on it 4.54:1: just enough.
    const enough = await createProcessed(fullTemplate({ colors: { background: '#767676', label: '#FFFFFF', text: '#FFFFFF' } }));
    expect(enough.attributes).not.toHaveProperty('processingWarnings');
    // A new design is judged again: fixing the colours clears the warning.
    await patch(low.id, { colors: { label: '#FFFFFF' } }).expect(202);
    expect(await settled(low.id)).not.toHaveProperty('attributes.processingWarnings');
    const sparse = await service.api.get('/api/v1/pass-templates?fields=name,processingWarnings').set(service.auth(tenant.token)).expect(200);
    for (const template of sparse.body.data as { attributes: Record<string, unknown> }[]) {
      if (template.attributes.processingStatus === undefined)
        expect(['name', 'processingWarnings']).toEqual(expect.arrayContaining(Object.keys(template.attributes)));
    }
  });

  it('answers 413 at /passTemplate/images, naming the sizes allowed, for a template whose images are over the body limit', async () => {
    const big = `data:image/png;base64,${Buffer.alloc(1024 * 1024, 7).toString('base64')}`;
    for (const request of [
      service.api.post('/api/v1/pass-templates'),
      service.api.post('/api/v1/pass-templates/preview?platform=apple&side=front'),
      service.api.patch('/api/v1/pass-templates/0194f3a2-7c1e-7a51-9d7e-0b6a2f1c9e10'),
    ]) {
      const res = await request
        .set(service.auth(tenant.token))
        .send({ passTemplate: { name: 'Big', templateType: 'generic', images: { icon: ICON_PNG, logo: big } } })
        .expect(413);
      expect(res.body.errors).toEqual([
        {
          status: '413',
          code: 'payload_too_large',
          title: 'Request body too large',
          detail: expect.stringMatching(
            /^The template is 1,398,\d{3} bytes; at most 1,048,576 bytes are accepted\. .* at most about 774,144 bytes: send smaller PNG images\.$/,
          ),
          source: { pointer: '/passTemplate/images' },
        },
      ]);
    }
  });

  it('applies the documented defaults to what is left out', async () => {
    const data = await createProcessed(minimalTemplate());
    expect(data.attributes).toEqual({
      name: 'Minimal',
      templateType: 'generic',
      templateKind: 'generic',
      applePassTypeIdentifier: null,
      transitType: null,
      defaultLanguage: 'en',
      centralTitle: null,
      notificationHeader: null,
      description: null,
      colors: { background: '#FFFFFF', label: '#000000', text: '#000000' },
      images: { icon: ICON_PNG },
      fields: { header: {}, central: {}, details: {}, back: {} },
      appLinking: { apple: { appStoreUrl: [] }, google: {} },
      barcode: { enabled: false, type: 'qr', source: 'uuid' },
      locations: [],
      beacons: [],
    });
  });

  it('completes a partial watermark and treats null as not set', async () => {
    const data = await createProcessed(minimalTemplate({ description: null, images: { icon: ICON_PNG, banner: null, watermark: { color: 'dark' } } }));
    expect(data.attributes.description).toBeNull();
    expect(data.attributes.images).toEqual({ icon: ICON_PNG, watermark: { color: 'dark', position: 'bottomRight' } });
  });

  it('starts a transit template with transitType other', async () => {
    const res = await create(
      fullTemplate({ templateType: 'transit', fields: { central: { one: { id: 'from', label: 'From' }, two: { id: 'to', label: 'To' } } } }),
    ).expect(202);
    expect(res.body.attributes).toMatchObject({ templateType: 'transit', transitType: 'other' });
    const data = await settled(res.body.id);
    expect(data.attributes).toMatchObject({ templateType: 'transit', transitType: 'other' });
  });

  it('fails processing of a design that breaks the cross-member rules, listing every problem', async () => {
    const res = await create(
      fullTemplate({
        images: { icon: ICON_PNG },
        centralTitle: null,
        fields: {
          header: { one: { id: 'points', label: 'Points', localisation: { de: { label: 'Punkte' } } } },
          central: { one: { label: 'Nameless' }, two: { id: 'extra' } },
          details: { two: { id: 'points', label: 'Points', localisation: { de: { label: 'Zähler' } } } },
        },
        barcode: { enabled: true, type: 'qr', source: 'custom' },
      }),
    ).expect(202);
    const data = await settled(res.body.id);
    expect(data).toEqual({
      id: res.body.id,
      type: 'passTemplate',
      attributes: {
        name: 'Coffee Club Card',
        templateType: 'loyalty',
        templateKind: 'loyalty',
        transitType: null,
        processingStatus: 'failed',
        processingErrors: [
          { code: 'logo_missing', detail: expect.stringContaining('programLogo'), pointer: '/images/logo' },
          { code: 'central_title_missing', detail: expect.stringContaining('programName'), pointer: '/centralTitle' },
          { code: 'central_two_not_transit', detail: expect.any(String), pointer: '/fields/central/two' },
          { code: 'barcode_value_missing', detail: expect.any(String), pointer: '/barcode/value' },
          { code: 'field_id_missing', detail: expect.any(String), pointer: '/fields/central/one/id' },
          { code: 'duplicate_field_id', detail: 'Slots /fields/header/one and /fields/details/two both use the id points.', pointer: '/fields/details/two/id' },
          { code: 'ambiguous_translation', detail: expect.stringContaining('"Points"'), pointer: '/fields/details/two/localisation/de/label' },
        ],
      },
    });
  });

  it('fails processing without an icon and with a barcode value the source does not use', async () => {
    const data = await createProcessed({ name: 'No icon', templateType: 'generic', barcode: { source: 'uuid', value: 'X' } });
    expect(data.attributes.processingErrors).toEqual([
      expect.objectContaining({ code: 'icon_missing', pointer: '/images/icon' }),
      expect.objectContaining({ code: 'barcode_value_unused', pointer: '/barcode/value' }),
    ]);
  });

  it.each([
    ['a colour that is not #RRGGBB', { colors: { background: '#12345' } }, '/passTemplate/colors/background'],
    ['a colour name', { colors: { text: 'white' } }, '/passTemplate/colors/text'],
    ['an unknown templateType', { templateType: 'boardingPass' }, '/passTemplate/templateType'],
    ['an unknown watermark position', { images: { watermark: { position: 'middle' } } }, '/passTemplate/images/watermark/position'],
    ['an unknown barcode type', { barcode: { type: 'ean13' } }, '/passTemplate/barcode/type'],
    ['a language that is not ISO 639-1', { defaultLanguage: 'english' }, '/passTemplate/defaultLanguage'],
    [
      'a localisation key that is not a language',
      { fields: { header: { one: { id: 'a', localisation: { xx: { label: 'A' } } } } } },
      '/passTemplate/fields/header/one/localisation',
    ],
    ['a slot the area does not have', { fields: { central: { three: { id: 'x' } } } }, '/passTemplate/fields/central/three'],
    ['11 beacons', { beacons: Array.from({ length: 11 }, () => ({ proximityUuid: 'f7826da6-4fa2-4e98-8024-bc5b71e0893e' })) }, '/passTemplate/beacons'],
    ['11 locations', { locations: Array.from({ length: 11 }, () => ({ latitude: 1, longitude: 1 })) }, '/passTemplate/locations'],
    ['a latitude above 90', { locations: [{ latitude: 90.5, longitude: 0 }] }, '/passTemplate/locations/0/latitude'],
    ['a longitude below -180', { locations: [{ latitude: 0, longitude: -180.1 }] }, '/passTemplate/locations/0/longitude'],
    ['a radius of 0', { locations: [{ latitude: 0, longitude: 0, radius: 0 }] }, '/passTemplate/locations/0/radius'],
    ['a beacon major above 65535', { beacons: [{ proximityUuid: 'f7826da6-4fa2-4e98-8024-bc5b71e0893e', major: 65536 }] }, '/passTemplate/beacons/0/major'],
    ['a negative beacon minor', { beacons: [{ proximityUuid: 'f7826da6-4fa2-4e98-8024-bc5b71e0893e', minor: -1 }] }, '/passTemplate/beacons/0/minor'],
    ['a proximityUuid that is not a UUID', { beacons: [{ proximityUuid: 'beacon-1' }] }, '/passTemplate/beacons/0/proximityUuid'],
    ['an http image URL', { images: { logo: 'http://cdn.example.com/logo.png' } }, '/passTemplate/images/logo'],
    ['an image that is not a URL', { images: { icon: 'icon.png' } }, '/passTemplate/images/icon'],
    [
      'an App Store URL without an app id',
      { appLinking: { apple: { appStoreUrl: ['https://apps.apple.com/gb/app/coffee-club'] } } },
      '/passTemplate/appLinking/apple/appStoreUrl/0',
    ],
    [
      'a Play URL without a package',
      { appLinking: { google: { app: { playStoreUrl: 'https://play.google.com/store/apps' } } } },
      '/passTemplate/appLinking/google/app/playStoreUrl',
    ],
    ['a 31-character link text', { appLinking: { google: { displayText: { text: 'x'.repeat(31) } } } }, '/passTemplate/appLinking/google/displayText/text'],
    ['a 101-character name', { name: 'n'.repeat(101) }, '/passTemplate/name'],
    ['an empty name', { name: '' }, '/passTemplate/name'],
    ['a 501-character description', { description: 'd'.repeat(501) }, '/passTemplate/description'],
    ['a name that is a number', { name: 42 }, '/passTemplate/name'],
    ['a barcode enabled flag that is a string', { barcode: { enabled: 'yes' } }, '/passTemplate/barcode/enabled'],
    ['locations that are an object', { locations: { latitude: 1, longitude: 1 } }, '/passTemplate/locations'],
    ['a beacon major that is a string', { beacons: [{ proximityUuid: 'f7826da6-4fa2-4e98-8024-bc5b71e0893e', major: '1' }] }, '/passTemplate/beacons/0/major'],
  ])('refuses %s with 400 pointing at the member', async (_case, overrides, pointer) => {
    const res = await create(minimalTemplate(overrides));
    expectValidationError(res, { pointer });
  });

  it.each([
    ['an unknown member', { colour: '#FFFFFF' }, '/passTemplate/colour'],
    ['transitType, which create does not take (spec §4.1)', { transitType: 'bus' }, '/passTemplate/transitType'],
    ['processingStatus', { processingStatus: 'processing' }, '/passTemplate/processingStatus'],
    ['an unknown member of a slot', { fields: { header: { one: { id: 'a', value: 'x' } } } }, '/passTemplate/fields/header/one/value'],
  ])('refuses %s with 400 naming it', async (_case, overrides, pointer) => {
    const res = await create(minimalTemplate(overrides));
    expectValidationError(res, { pointer });
    expect(res.body.errors[0].detail).toContain('not an allowed member');
  });

  it.each([
    ['without name', { templateType: 'generic' }, '/passTemplate/name'],
    ['without templateType', { name: 'x' }, '/passTemplate/templateType'],
  ])('refuses a template %s', async (_case, passTemplate, pointer) => {
    expectValidationError(await create(passTemplate), { pointer });
  });

  it('refuses a body without passTemplate with 400 pointing at it', async () => {
    const res = await service.api.post('/api/v1/pass-templates').set(service.auth(tenant.token)).send({ name: 'x', templateType: 'generic' });
    expectValidationError(res, { pointer: '/passTemplate' });
  });

  it('refuses a passTemplate that is not an object', async () => {
    expectValidationError(await create('generic'), { pointer: '/passTemplate' });
  });

  it('answers 401 without a valid API key, before looking at the body', async () => {
    const res = await service.api.post('/api/v1/pass-templates').send({});
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toMatch(/^Bearer /);
    await service.api.post('/api/v1/pass-templates').set('Authorization', 'Bearer wps_unknown').send({ passTemplate: minimalTemplate() }).expect(401);
  });
});

describe('atomicity', () => {
  it('stores no template when its job cannot be enqueued (they commit together or not at all)', async () => {
    const noQueue = await startTestService({ jobs: 'off' });
    try {
      const account = await noQueue.createAccount();
      const res = await create(fullTemplate(), account.token, noQueue).expect(500);
      expect(res.body.errors[0]).toMatchObject({ code: 'internal_error' });
      const list = await noQueue.api.get('/api/v1/pass-templates').set(noQueue.auth(account.token)).expect(200);
      expect(list.body.meta.totalCount).toBe(0);
    } finally {
      await noQueue.close();
    }
  });
});
