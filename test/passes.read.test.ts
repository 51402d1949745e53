/**
 * Passes, the read operations (spec §2.3, §4.16, the §2.9 envelope; PassEntry pass list):
 * listPasses (pages, filters, tenancy) and getPass (by id or extId, the include parameters,
 * wallet members) through HTTP on a real database, with the job workers processing templates as
 * in the server and every response validated against the contract.
 */
import { startTestService, type TestService } from './support/testService.ts';
import {
  createTemplate,
  expectError,
  issuePass,
  loyaltyTemplate,
  passApi,
  plainTemplate,
  setUpPassTenants,
  setWalletState,
  type PassTenants,
} from './support/passes.ts';

const BASE = 'http://wallet.test';
const UNKNOWN_ID = '0194f3a2-7c1e-7a51-9d7e-0b6a2f1c9e10';

let service: TestService;
let tenant: PassTenants['tenant'];
let other: PassTenants['other'];
let loyaltyId: string;
let otherTemplateId: string;

beforeAll(async () => {
  service = await startTestService({ jobs: 'work' });
  ({ tenant, other, loyaltyId, otherTemplateId } = await setUpPassTenants(service));
});
afterAll(() => service.close());

const { auth, get, patch, nullify, issue } = passApi(
  () => service,
  () => tenant,
  () => loyaltyId,
);

describe('listPasses', () => {
  let lister: { accountId: string; token: string };
  let templateA: string;
  let templateB: string;
  const ids: string[] = [];

  beforeAll(async () => {
    lister = await service.createAccount('Lister');
    templateA = await createTemplate(service, lister.token, loyaltyTemplate());
    templateB = await createTemplate(service, lister.token, plainTemplate());
    for (let i = 0; i < 27; i++) {
      const pass = await issuePass(
        service,
        lister.token,
        i % 3 === 0 ? templateB : templateA,
        { pass: {}, groupTags: i % 2 ? ['odd'] : ['even', 'all'] },
        { extId: `list-${i}` },
      );
      ids.push(pass.id);
    }
    await service.api.patch('/api/v1/passes/list-4').set(service.auth(lister.token)).send({ passAction: 'deactivate' }).expect(200);
    await service.api.post('/api/v1/passes/list-5/nullify').set(service.auth(lister.token)).expect(200);
  });

  const list = (query = '') => service.api.get(`/api/v1/passes${query}`).set(service.auth(lister.token));
  const newestFirst = () => [...ids].reverse();

  it('returns the first page of 25, newest first, with the §2.9 envelope', async () => {
    const res = await list().expect(200);
    expect(res.body.data.map((p: { id: string }) => p.id)).toEqual(newestFirst().slice(0, 25));
    expect(res.body.meta).toEqual({ totalCount: 27, resultsPerPage: 25, currentPage: 1, totalPages: 2 });
    expect(res.body.links).toEqual({
      first: `${BASE}/api/v1/passes?page=1&perPage=25`,
      prev: null,
      next: `${BASE}/api/v1/passes?page=2&perPage=25`,
      last: `${BASE}/api/v1/passes?page=2&perPage=25`,
    });
    expect(res.body.data[0].attributes).toMatchObject({ extId: 'list-26', passTemplateUuid: templateA });
  });

  it('pages with page and perPage', async () => {
    const res = await list('?page=3&perPage=10').expect(200);
    expect(res.body.data.map((p: { id: string }) => p.id)).toEqual(newestFirst().slice(20));
    expect(res.body.meta).toEqual({ totalCount: 27, resultsPerPage: 10, currentPage: 3, totalPages: 3 });
    expect((await list('?page=4&perPage=10').expect(200)).body.data).toEqual([]);
  });

  it.each([
    ['passTemplate', () => `passTemplate=${templateB}`, (i: number) => i % 3 === 0],
    ['status', () => 'status=deactivated', (i: number) => i === 4],
    ['status nullified', () => 'status=nullified', (i: number) => i === 5],
    ['extId', () => 'extId=list-7', (i: number) => i === 7],
    ['groupTag', () => 'groupTag=odd', (i: number) => i % 2 === 1],
    ['several filters', () => `groupTag=all&passTemplate=${templateA}&status=issued`, (i: number) => i % 2 === 0 && i % 3 !== 0 && i !== 4],
  ])('filters by %s', async (_case, query, matches) => {
    const res = await list(`?perPage=100&${query()}`).expect(200);
    const expected = newestFirst().filter((id) => matches(ids.indexOf(id)));
    expect(res.body.data.map((p: { id: string }) => p.id)).toEqual(expected);
    expect(res.body.meta.totalCount).toBe(expected.length);
    expect(res.body.links.first).toContain(query().split('&')[0]);
  });

  it('shows only the caller’s passes', async () => {
    const res = await service.api.get(`/api/v1/passes?passTemplate=${templateA}`).set(auth(other.token)).expect(200);
    expect(res.body).toMatchObject({ data: [], meta: { totalCount: 0 } });
  });

  it.each([
    ['perPage=101', 'perPage'],
    ['page=0', 'page'],
    ['status=lost', 'status'],
    ['passTemplate=coffee', 'passTemplate'],
    ['groupTag=', 'groupTag'],
    ['colour=blue', 'colour'],
  ])('answers 400 for %s', async (query, parameter) => {
    expectError(await list(`?${query}`), 400, 'validation_failed', { parameter });
  });

  it('answers 401 without a key', async () => {
    expectError(await service.api.get('/api/v1/passes'), 401, 'unauthorized');
  });
});

describe('listPasses search', () => {
  let searcher: { accountId: string; token: string };
  const byName: Record<string, string> = {};

  beforeAll(async () => {
    searcher = await service.createAccount('Searcher');
    const templateId = await createTemplate(service, searcher.token, loyaltyTemplate());
    for (const [extId, member] of [
      ['M-1001', 'Ada Lovelace'],
      ['M-1002', 'Łukasz Kowalski'],
      ['m-2001', 'Grace 100% Hopper'],
      ['X_9', 'Charles Babbage'],
    ]) {
      byName[member!] = (await issuePass(service, searcher.token, templateId, { pass: { member } }, { extId: extId! })).id;
    }
  });

  const search = async (text: string, more = '') =>
    (
      await service.api
        .get(`/api/v1/passes?search=${encodeURIComponent(text)}${more}`)
        .set(service.auth(searcher.token))
        .expect(200)
    ).body as { data: { id: string }[]; meta: { totalCount: number } };
  const found = async (text: string, more = '') => (await search(text, more)).data.map((p) => p.id).sort();
  const ids = (...members: string[]) => members.map((m) => byName[m]!).sort();

  it('finds passes by an extId prefix and by part of a field value, ignoring case', async () => {
    expect(await found('m-100')).toEqual(ids('Ada Lovelace', 'Łukasz Kowalski'));
    expect(await found('M-')).toEqual(ids('Ada Lovelace', 'Łukasz Kowalski', 'Grace 100% Hopper'));
    expect(await found('lovelace')).toEqual(ids('Ada Lovelace'));
    expect(await found('ŁUKASZ')).toEqual(ids('Łukasz Kowalski'));
    // Not a prefix of an extId, not in a value.
    expect(await found('1001')).toEqual([]);
    expect((await search('nobody')).meta.totalCount).toBe(0);
  });

  it('matches % and _ as themselves and combines with the other filters', async () => {
    expect(await found('100%')).toEqual(ids('Grace 100% Hopper'));
    expect(await found('X_')).toEqual(ids('Charles Babbage'));
    expect(await found('M_')).toEqual([]);
    expect(await found('a', '&extId=M-1001')).toEqual(ids('Ada Lovelace'));
  });

  it('shows only the caller’s passes and refuses an empty search', async () => {
    const res = await service.api.get('/api/v1/passes?search=Lovelace').set(service.auth(tenant.token)).expect(200);
    expect(res.body.data.filter((p: { id: string }) => p.id === byName['Ada Lovelace'])).toEqual([]);
    expectError(await service.api.get('/api/v1/passes?search=').set(service.auth(searcher.token)), 400, 'validation_failed', { parameter: 'search' });
  });
});

describe('getPass', () => {
  it('finds a pass by UUID (any case) and by extId', async () => {
    const pass = await issue({ pass: {} }, { extId: 'lookup-1' });
    const byId = await get(pass.id).expect(200);
    expect(byId.body).toEqual({ data: pass });
    expect((await get(pass.id.toUpperCase()).expect(200)).body.data.id).toBe(pass.id);
    expect((await get('lookup-1').expect(200)).body.data.id).toBe(pass.id);
  });

  it('tries a UUID-shaped value as an id first, then as an extId', async () => {
    const target = await issue();
    const uuidShaped = '0194f3a2-0000-7000-8000-00000000abcd';
    const byExtId = await issue({ pass: {} }, { extId: uuidShaped });
    expect((await get(uuidShaped).expect(200)).body.data.id).toBe(byExtId.id);
    // A pass whose extId is another pass's id: the id wins.
    const shadow = await issue({ pass: {} }, { extId: target.id });
    expect((await get(target.id).expect(200)).body.data.id).toBe(target.id);
    expect(shadow.attributes.extId).toBe(target.id);
  });

  it('finds the live pass of an extId, else the newest nullified one', async () => {
    const old = await issue({ pass: {} }, { extId: 'recycled' });
    await nullify(old.id).expect(200);
    const newer = await issue({ pass: {} }, { extId: 'recycled' });
    await nullify(newer.id).expect(200);
    expect((await get('recycled').expect(200)).body.data.id).toBe(newer.id);
    const live = await issue({ pass: {} }, { extId: 'recycled' });
    expect((await get('recycled').expect(200)).body.data.id).toBe(live.id);
  });

  it('adds passDesign: the template’s current design', async () => {
    const pass = await issue();
    const res = await get(pass.id, '?includePassDesign=true').expect(200);
    const template = loyaltyTemplate();
    expect(res.body.data.attributes.passDesign).toEqual({
      templateType: 'loyalty',
      templateKind: 'loyalty',
      transitType: null,
      defaultLanguage: 'en',
      centralTitle: 'Coffee Club',
      notificationHeader: 'Coffee Club news',
      description: 'Loyalty card of the Coffee Club',
      colors: template.colors,
      images: template.images,
      fields: template.fields,
      appLinking: { apple: { appStoreUrl: [] }, google: {} },
    });
    expect(Object.keys((await get(pass.id).expect(200)).body.data.attributes)).not.toContain('passDesign');
  });

  it('adds locations and beacons only when asked and when there are any', async () => {
    const withPlaces = await issue();
    const none = await issue({ pass: {}, locations: [], beacons: [] });
    const asked = '?includeLocations=true&includeBeacons=true';
    expect((await get(withPlaces.id, asked).expect(200)).body.data.attributes).toMatchObject({
      locations: loyaltyTemplate().locations,
      beacons: loyaltyTemplate().beacons,
    });
    const attributes = Object.keys((await get(none.id, asked).expect(200)).body.data.attributes);
    expect(attributes).not.toContain('locations');
    expect(attributes).not.toContain('beacons');
    expect(Object.keys((await get(withPlaces.id, '?includeLocations=false').expect(200)).body.data.attributes)).not.toContain('locations');
  });

  it.each([
    ['issued', 'apple', true],
    ['issued', 'google', true],
    ['active', 'apple', false],
    ['removed', 'google', true],
    ['deactivated', 'apple', true],
    ['nullified', 'google', true],
  ] as const)('passSource of a pass in status %s for %s: present = %s', async (status, platform, present) => {
    const pass = await issue();
    if (status === 'active' || status === 'removed') await setWalletState(service, pass.id, status);
    if (status === 'deactivated') await patch(pass.id, { passAction: 'deactivate' }).expect(200);
    if (status === 'nullified') await nullify(pass.id).expect(200);
    const res = await get(pass.id, `?includePassSource=${platform}`).expect(200);
    expect(res.body.data.attributes.status).toBe(status);
    if (present) expect(res.body.data.attributes.passSource).toEqual({ platform, url: `${BASE}/passes/${pass.id}/${platform}` });
    else expect(res.body.data.attributes).not.toHaveProperty('passSource');
  });

  it('shows the wallet members once the pass is in a wallet', async () => {
    const pass = await issue();
    await setWalletState(service, pass.id, 'active', new Date('2026-11-21T10:00:00Z'));
    expect((await get(pass.id).expect(200)).body.data.attributes).toMatchObject({ status: 'active', deviceType: 'iphone', addedAt: '2026-11-21T10:00:00Z' });
  });

  it('answers 404 for an unknown id or extId, and for another account’s pass', async () => {
    const res = await get(UNKNOWN_ID).expect(404);
    expect(res.body.errors).toEqual([
      { status: '404', code: 'not_found', title: 'Resource not found', detail: `No pass with id or extId ${UNKNOWN_ID} exists.`, source: { parameter: 'id' } },
    ]);
    await get('no-such-ext-id').expect(404);
    const theirs = await issuePass(service, other.token, otherTemplateId, { pass: {} }, { extId: 'theirs-1' });
    await get(theirs.id).expect(404);
    await get('theirs-1').expect(404);
  });

  it.each([
    ['an id with a space', 'a b', '', 'id'],
    ['an id longer than 64 characters', 'x'.repeat(65), '', 'id'],
    ['a wallet that does not exist', 'abc', '?includePassSource=samsung', 'includePassSource'],
    ['a flag that is not a boolean', 'abc', '?includeBeacons=maybe', 'includeBeacons'],
  ])('answers 400 for %s', async (_case, id, query, parameter) => {
    expectError(await get(id, query), 400, 'validation_failed', { parameter });
  });

  it('answers 401 without a key', async () => {
    expectError(await service.api.get(`/api/v1/passes/${UNKNOWN_ID}`), 401, 'unauthorized');
  });
});
