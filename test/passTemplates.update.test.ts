/**
 * Pass templates, updatePassTemplate through HTTP on a real database, with the job workers
 * processing templates as in the server, responses validated against the contract: changes
 * applied at once (200) or reprocessed (202), the merge of nested objects, arrays and nulls,
 * transit moves, failed and fixed designs, 400, 404 and 401, and concurrent updates.
 */
import { ICON_PNG, LOGO_PNG } from './support/images.ts';
import { expectValidationError, fullTemplate, minimalTemplate, startTemplateService, templateApi, type Tenant } from './support/passTemplates.ts';
import type { TestService } from './support/testService.ts';

let service: TestService;
let tenant: Tenant;
let other: Tenant;

const UNKNOWN_ID = '0194f3a2-7c1e-7a51-9d7e-0b6a2f1c9e10';
const BASE = 'http://wallet.test';

beforeAll(async () => {
  ({ service, tenant, other } = await startTemplateService());
});
afterAll(() => service.close());

const { patch, show, settled, createProcessed } = templateApi(
  () => service,
  () => tenant,
);

describe('updatePassTemplate', () => {
  /** Every attribute but those named, as JSON text: what must not change byte for byte. */
  const untouched = (attributes: Record<string, unknown>, ...changed: string[]) =>
    JSON.stringify(Object.fromEntries(Object.entries(attributes).filter(([key]) => !changed.includes(key))));

  it('applies a name change at once: 200 with the template, nothing else changed', async () => {
    const before = await createProcessed(fullTemplate());
    const res = await patch(before.id, { name: 'Coffee Club Card 2027' }).expect(200);
    expect(res.headers.location).toBeUndefined();
    expect(res.body).toEqual({ data: { ...before, attributes: { ...before.attributes, name: 'Coffee Club Card 2027' } } });
    const after = await show(before.id);
    expect(untouched(after.attributes, 'name')).toBe(untouched(before.attributes, 'name'));
    expect(after.attributes.name).toBe('Coffee Club Card 2027');
  });

  it('applies description and notificationHeader at once; null clears them', async () => {
    const before = await createProcessed(fullTemplate());
    const res = await patch(before.id, { description: null, notificationHeader: 'News' }).expect(200);
    expect(res.body.data.attributes).toMatchObject({ description: null, notificationHeader: 'News' });
    expect(untouched(res.body.data.attributes, 'description', 'notificationHeader')).toBe(untouched(before.attributes, 'description', 'notificationHeader'));
  });

  it('answers 200 for design members given with their current values', async () => {
    const before = await createProcessed(fullTemplate());
    const res = await patch(before.id, { colors: { text: '#FFFFFF' }, beacons: before.attributes.beacons, templateType: 'loyalty' }).expect(200);
    expect(res.body.data).toEqual(before);
  });

  it('reprocesses a design change: 202 with the status URL, then merges only what was given', async () => {
    const before = await createProcessed(fullTemplate());
    const res = await patch(before.id, { colors: { text: '#F0F0F0' } }).expect(202);
    const self = `${BASE}/api/v1/pass-templates/${before.id}`;
    expect(res.body).toEqual({
      data: {
        id: before.id,
        type: 'passTemplate',
        attributes: { name: 'Coffee Club Card', templateType: 'loyalty', templateKind: 'loyalty', transitType: null, processingStatus: 'processing' },
      },
      meta: { message: expect.stringContaining('being processed'), links: { self } },
    });
    expect(res.headers.location).toBe(self);
    const after = await settled(before.id);
    expect(after.attributes.colors).toEqual({ background: '#1A2B3C', label: '#F5D76E', text: '#F0F0F0' });
    expect(untouched(after.attributes, 'colors')).toBe(untouched(before.attributes, 'colors'));
  });

  it('merges nested objects per key at every depth', async () => {
    const before = await createProcessed(fullTemplate());
    await patch(before.id, {
      fields: { details: { one: { localisation: { fr: { label: 'Niveau' } } } } },
      appLinking: { google: { displayText: { text: 'Open' } } },
    }).expect(202);
    const after = await settled(before.id);
    const fields = after.attributes.fields as Record<string, Record<string, unknown>>;
    expect(fields.details!.one).toEqual({
      id: 'tier',
      label: 'Tier',
      defaultValue: 'Bronze',
      localisation: { de: { label: 'Stufe' }, fr: { label: 'Niveau' } },
    });
    expect(after.attributes.appLinking).toEqual({
      apple: { appStoreUrl: ['https://apps.apple.com/gb/app/coffee-club/id1234567890'] },
      google: { app: { playStoreUrl: 'https://play.google.com/store/apps/details?id=com.example.coffeeclub' }, displayText: { text: 'Open' } },
    });
    const beforeFields = before.attributes.fields as Record<string, Record<string, unknown>>;
    for (const area of ['header', 'central', 'back']) expect(JSON.stringify(fields[area])).toBe(JSON.stringify(beforeFields[area]));
    expect(JSON.stringify(fields.details!.two)).toBe(JSON.stringify(beforeFields.details!.two));
    expect(untouched(after.attributes, 'fields', 'appLinking')).toBe(untouched(before.attributes, 'fields', 'appLinking'));
  });

  it('replaces arrays whole and accepts empty arrays for appStoreUrl and beacons', async () => {
    const before = await createProcessed(fullTemplate());
    const location = { latitude: 48.8566, longitude: 2.3522, radius: 250 };
    await patch(before.id, { beacons: [], appLinking: { apple: { appStoreUrl: [] } }, locations: [location] }).expect(202);
    const after = await settled(before.id);
    expect(after.attributes.beacons).toEqual([]);
    expect(after.attributes.locations).toEqual([location]);
    expect((after.attributes.appLinking as { apple: unknown; google: unknown }).apple).toEqual({ appStoreUrl: [] });
    expect(JSON.stringify((after.attributes.appLinking as { google: unknown }).google)).toBe(
      JSON.stringify((before.attributes.appLinking as { google: unknown }).google),
    );
    expect(untouched(after.attributes, 'beacons', 'locations', 'appLinking')).toBe(untouched(before.attributes, 'beacons', 'locations', 'appLinking'));
  });

  it('removes optional members set to null', async () => {
    const before = await createProcessed(fullTemplate());
    await patch(before.id, {
      images: { banner: null },
      fields: { back: { one: null }, central: { one: { localisation: { fr: null } } } },
      centralTitle: 'Club',
    }).expect(202);
    const after = await settled(before.id);
    expect(after.attributes.images).toEqual({
      logo: LOGO_PNG,
      icon: ICON_PNG,
      watermark: { color: 'light', position: 'bottomRight' },
    });
    const fields = after.attributes.fields as Record<string, Record<string, { localisation?: unknown }>>;
    expect(fields.back).toEqual({});
    expect(fields.central!.one!.localisation).toEqual({ de: { label: 'Mitglied', defaultValue: 'Gast' } });
    expect(after.attributes.centralTitle).toBe('Club');
  });

  it('moves a template to and from transit, with transitType only on transit templates', async () => {
    const before = await createProcessed(fullTemplate({ fields: {} }));
    expectValidationError(await patch(before.id, { transitType: 'train' }), { pointer: '/passTemplate/transitType' });
    const toTransit = await patch(before.id, { templateType: 'transit' }).expect(202);
    expect(toTransit.body.data.attributes).toMatchObject({ templateType: 'transit', transitType: 'other' });
    expect((await settled(before.id)).attributes.transitType).toBe('other');
    await patch(before.id, { transitType: 'train' }).expect(202);
    expect((await settled(before.id)).attributes).toMatchObject({ templateType: 'transit', transitType: 'train' });
    const back = await patch(before.id, { templateType: 'storeCard' }).expect(202);
    expect(back.body.data.attributes).toMatchObject({ templateType: 'storeCard', transitType: null });
    expect(untouched((await settled(before.id)).attributes, 'templateType', 'templateKind', 'transitType')).toBe(
      untouched(before.attributes, 'templateType', 'templateKind', 'transitType'),
    );
  });

  it('takes transitType null as "not set": no change on other templates, the default other on transit ones', async () => {
    const before = await createProcessed(fullTemplate({ fields: {} }));
    expect(before.attributes.transitType).toBeNull();
    // What GET answers, sent back (the console's edit form): 200, nothing changed.
    expect((await patch(before.id, { name: before.attributes.name, transitType: null }).expect(200)).body.data).toEqual(before);
    // Becoming transit with null: the default.
    await patch(before.id, { templateType: 'transit', transitType: null }).expect(202);
    await patch(before.id, { transitType: 'ferry' }).expect(202);
    expect((await settled(before.id)).attributes).toMatchObject({ templateType: 'transit', transitType: 'ferry' });
    await patch(before.id, { transitType: null }).expect(202);
    expect((await settled(before.id)).attributes).toMatchObject({ templateType: 'transit', transitType: 'other' });
  });

  it('fails a design change that breaks a rule, and processes the fix', async () => {
    const before = await createProcessed(fullTemplate());
    await patch(before.id, { images: { logo: null } }).expect(202);
    const failed = await settled(before.id);
    expect(failed.attributes).toEqual({
      name: 'Coffee Club Card',
      templateType: 'loyalty',
      templateKind: 'loyalty',
      transitType: null,
      processingStatus: 'failed',
      processingErrors: [expect.objectContaining({ code: 'logo_missing', pointer: '/images/logo' })],
    });
    const renamed = await patch(before.id, { name: 'Still broken' }).expect(200);
    expect(renamed.body.data.attributes).toMatchObject({ name: 'Still broken', processingStatus: 'failed' });
    await patch(before.id, { images: { logo: ICON_PNG } }).expect(202);
    const fixed = await settled(before.id);
    expect(fixed.attributes.processingStatus).toBeUndefined();
    expect(fixed.attributes.images).toMatchObject({ logo: ICON_PNG });
  });

  it.each([
    ['an empty passTemplate', {}, '/passTemplate'],
    ['a bad colour', { colors: { label: '#GGGGGG' } }, '/passTemplate/colors/label'],
    ['an unknown templateType', { templateType: 'boardingPass' }, '/passTemplate/templateType'],
    ['an unknown transitType', { transitType: 'rocket' }, '/passTemplate/transitType'],
    ['11 beacons', { beacons: Array.from({ length: 11 }, () => ({ proximityUuid: 'f7826da6-4fa2-4e98-8024-bc5b71e0893e' })) }, '/passTemplate/beacons'],
    ['an unknown member', { colour: '#FFFFFF' }, '/passTemplate/colour'],
    ['processingStatus', { processingStatus: 'processing' }, '/passTemplate/processingStatus'],
    ['a null name', { name: null }, '/passTemplate/name'],
    ['a null colour', { colors: { text: null } }, '/passTemplate/colors/text'],
    ['beacons that are null', { beacons: null }, '/passTemplate/beacons'],
  ])('refuses %s with 400 and changes nothing', async (_case, passTemplate, pointer) => {
    const before = await show((await createProcessed(minimalTemplate())).id);
    expectValidationError(await patch(before.id, passTemplate), { pointer });
    expect(await show(before.id)).toEqual(before);
  });

  it('refuses a body without passTemplate', async () => {
    const { id } = await createProcessed(minimalTemplate());
    const res = await service.api.patch(`/api/v1/pass-templates/${id}`).set(service.auth(tenant.token)).send({ name: 'x' });
    expectValidationError(res, { pointer: '/passTemplate' });
  });

  it('answers 404 for an unknown template and for another account’s, which stays unchanged', async () => {
    const res = await patch(UNKNOWN_ID, { name: 'x' }).expect(404);
    expect(res.body.errors[0]).toMatchObject({ code: 'not_found', source: { parameter: 'id' } });
    const theirs = await createProcessed(minimalTemplate({ name: 'Theirs' }), other.token);
    await patch(theirs.id, { name: 'Mine now', colors: { text: '#123456' } }).expect(404);
    expect(await show(theirs.id, other.token)).toEqual(theirs);
  });

  it('answers 401 without a valid API key', async () => {
    await service.api
      .patch(`/api/v1/pass-templates/${UNKNOWN_ID}`)
      .send({ passTemplate: { name: 'x' } })
      .expect(401);
  });

  it('applies concurrent updates one after the other', async () => {
    const { id } = await createProcessed(fullTemplate());
    const results = await Promise.all([
      patch(id, { colors: { background: '#111111' } }),
      patch(id, { colors: { label: '#222222' } }),
      patch(id, { name: 'Both' }),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 202, 202]);
    const after = await settled(id);
    expect(after.attributes).toMatchObject({ name: 'Both', colors: { background: '#111111', label: '#222222', text: '#FFFFFF' } });
  });
});
