/**
 * Pass templates, the read operations (spec §2.2, §2.9): listPassTemplates (pages, filter, sparse
 * fieldsets, tenancy), getPassTemplate and the deprecated getLegacyPassTemplate (the §2.2 legacy
 * attributes) through HTTP on a real database, with the job workers processing the templates
 * they read, responses validated against the contract.
 */
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

const { create, patch, show, settled, createProcessed } = templateApi(
  () => service,
  () => tenant,
);

describe('listPassTemplates', () => {
  let lister: { accountId: string; token: string };
  const ids: string[] = [];
  const eventIds: string[] = [];

  beforeAll(async () => {
    lister = await service.createAccount('Lister');
    for (let i = 0; i < 12; i++) {
      const eventTicket = i % 3 === 1;
      const body = eventTicket
        ? minimalTemplate({ name: `Event ${i}`, templateType: 'eventTicket', centralTitle: `Festival ${i}` })
        : minimalTemplate({ name: `Card ${i}`, colors: { background: `#00000${i % 10}` } });
      const res = await create(body, lister.token).expect(202);
      ids.push(res.body.id);
      if (eventTicket) eventIds.push(res.body.id);
    }
    for (const id of ids) await settled(id, lister.token);
  });

  const list = (query = '', token = lister.token) => service.api.get(`/api/v1/pass-templates${query}`).set(service.auth(token));

  it('returns the first page of 10, oldest first, with the §2.9 envelope and absolute links', async () => {
    const res = await list().expect(200);
    expect(res.body.data.map((t: { id: string }) => t.id)).toEqual(ids.slice(0, 10));
    expect(res.body.data[0]).toEqual(await show(ids[0]!, lister.token));
    expect(res.body.meta).toEqual({ totalCount: 12, resultsPerPage: 10, currentPage: 1, totalPages: 2 });
    expect(res.body.links).toEqual({
      first: `${BASE}/api/v1/pass-templates?page=1&perPage=10`,
      prev: null,
      next: `${BASE}/api/v1/pass-templates?page=2&perPage=10`,
      last: `${BASE}/api/v1/pass-templates?page=2&perPage=10`,
    });
  });

  it('returns the last page with the remainder and no next link', async () => {
    const res = await list('?page=2').expect(200);
    expect(res.body.data.map((t: { id: string }) => t.id)).toEqual(ids.slice(10));
    expect(res.body.meta).toEqual({ totalCount: 12, resultsPerPage: 10, currentPage: 2, totalPages: 2 });
    expect(res.body.links.prev).toBe(`${BASE}/api/v1/pass-templates?page=1&perPage=10`);
    expect(res.body.links.next).toBeNull();
  });

  it('answers a page past the end with empty data and the true totals', async () => {
    const res = await list('?page=5&perPage=5').expect(200);
    expect(res.body.data).toEqual([]);
    expect(res.body.meta).toEqual({ totalCount: 12, resultsPerPage: 5, currentPage: 5, totalPages: 3 });
    expect(res.body.links).toMatchObject({
      prev: `${BASE}/api/v1/pass-templates?page=3&perPage=5`,
      next: null,
      last: `${BASE}/api/v1/pass-templates?page=3&perPage=5`,
    });
  });

  it('takes up to 100 per page', async () => {
    const res = await list('?perPage=100').expect(200);
    expect(res.body.data).toHaveLength(12);
    expect(res.body.meta).toEqual({ totalCount: 12, resultsPerPage: 100, currentPage: 1, totalPages: 1 });
  });

  it('filters by templateType and keeps the filter in the links', async () => {
    const res = await list('?templateType=eventTicket&perPage=2').expect(200);
    expect(res.body.data.map((t: { id: string }) => t.id)).toEqual(eventIds.slice(0, 2));
    expect(res.body.data.every((t: { attributes: { templateType: string } }) => t.attributes.templateType === 'eventTicket')).toBe(true);
    expect(res.body.meta).toEqual({ totalCount: 4, resultsPerPage: 2, currentPage: 1, totalPages: 2 });
    expect(res.body.links.next).toBe(`${BASE}/api/v1/pass-templates?templateType=eventTicket&perPage=2&page=2`);
    const none = await list('?templateType=transit').expect(200);
    expect(none.body).toMatchObject({ data: [], meta: { totalCount: 0, totalPages: 0 } });
  });

  it('returns only the attributes a sparse fieldset names', async () => {
    const res = await list('?fields=name,colors&perPage=3').expect(200);
    expect(res.body.data).toEqual(
      [0, 1, 2].map((i) => ({
        id: ids[i],
        type: 'passTemplate',
        attributes: { name: i === 1 ? 'Event 1' : `Card ${i}`, colors: { background: i === 1 ? '#FFFFFF' : `#00000${i}`, label: '#000000', text: '#000000' } },
      })),
    );
    expect(res.body.links.next).toBe(`${BASE}/api/v1/pass-templates?fields=name%2Ccolors&perPage=3&page=2`);
  });

  it('accepts spaces and repeats in a fieldset', async () => {
    const res = await list('?fields=templateType,%20templateType&perPage=1').expect(200);
    expect(res.body.data[0].attributes).toEqual({ templateType: 'generic' });
  });

  it('returns processing and failed templates whole, whatever the fieldset', async () => {
    const account = await service.createAccount();
    const failed = await createProcessed({ name: 'Broken', templateType: 'generic' }, account.token);
    const res = await list('?fields=name', account.token).expect(200);
    expect(res.body.data).toEqual([failed]);
    expect(res.body.data[0].attributes).toMatchObject({ processingStatus: 'failed', templateType: 'generic', transitType: null });
  });

  it('refuses unknown attribute names with 400 naming them', async () => {
    const res = await list('?fields=name,colour,bogus').expect(400);
    expect(res.body.errors).toHaveLength(1);
    expect(res.body.errors[0]).toMatchObject({ code: 'validation_failed', source: { parameter: 'fields' } });
    expect(res.body.errors[0].detail).toContain('"colour", "bogus"');
    expectValidationError(await list('?fields=name,'), { parameter: 'fields' });
    expectValidationError(await list('?fields='), { parameter: 'fields' });
  });

  it.each([
    ['perPage=0', 'perPage'],
    ['perPage=101', 'perPage'],
    ['perPage=ten', 'perPage'],
    ['page=0', 'page'],
    ['templateType=boardingPass', 'templateType'],
    ['sort=name', 'sort'],
  ])('refuses %s with 400 naming the parameter', async (query, parameter) => {
    expectValidationError(await list(`?${query}`), { parameter });
  });

  it('shows only the templates of the caller’s account', async () => {
    const res = await list('', other.token).expect(200);
    expect(res.body.data.map((t: { id: string }) => t.id).filter((id: string) => ids.includes(id))).toEqual([]);
    const empty = await service.createAccount();
    const none = await list('', empty.token).expect(200);
    expect(none.body).toEqual({
      data: [],
      meta: { totalCount: 0, resultsPerPage: 10, currentPage: 1, totalPages: 0 },
      links: { first: `${BASE}/api/v1/pass-templates?page=1&perPage=10`, prev: null, next: null, last: `${BASE}/api/v1/pass-templates?page=1&perPage=10` },
    });
  });

  it('answers 401 without a valid API key', async () => {
    await service.api.get('/api/v1/pass-templates').expect(401);
    await service.api.get('/api/v1/pass-templates?perPage=abc').expect(401);
  });
});

describe('getPassTemplate', () => {
  it('answers 404 for an id that does not exist', async () => {
    const res = await service.api.get(`/api/v1/pass-templates/${UNKNOWN_ID}`).set(service.auth(tenant.token)).expect(404);
    expect(res.body.errors).toEqual([
      { status: '404', code: 'not_found', title: 'Resource not found', detail: `No pass template with id ${UNKNOWN_ID} exists.`, source: { parameter: 'id' } },
    ]);
  });

  it('answers 404, not the data, for another account’s template', async () => {
    const { id } = await createProcessed(minimalTemplate({ name: 'Secret recipe' }), other.token);
    const res = await service.api.get(`/api/v1/pass-templates/${id}`).set(service.auth(tenant.token)).expect(404);
    expect(res.text).not.toContain('Secret recipe');
  });

  it('answers 400 for an id that is not a UUID, and 401 without a key', async () => {
    expectValidationError(await service.api.get('/api/v1/pass-templates/coffee').set(service.auth(tenant.token)), { parameter: 'id' });
    await service.api.get(`/api/v1/pass-templates/${UNKNOWN_ID}`).expect(401);
  });
});

describe('getLegacyPassTemplate', () => {
  const empty = { id: null, label: null, default_value: null };

  it('maps the current template to the legacy attributes of §2.2, every slot present', async () => {
    const { id } = await createProcessed(
      fullTemplate({
        fields: {
          ...fullTemplate().fields,
          central: { one: { id: 'member', label: 'Member', defaultValue: 'Guest' } },
          back: { one: { id: 'terms', label: 'Terms' }, three: { id: 'help', label: 'Help', defaultValue: 'Ask us' } },
        },
      }),
    );
    const res = await service.api.get(`/api/v1/pass_templates/${id}`).set(service.auth(tenant.token)).expect(200);
    expect(res.body).toEqual({
      data: {
        id,
        type: 'passTemplate',
        attributes: {
          backgroundColor: '#1A2B3C',
          labelColor: '#F5D76E',
          textColor: '#FFFFFF',
          name: 'Coffee Club Card',
          description: 'Loyalty card of the Coffee Club',
          templateType: 'loyalty',
          header: { header_one: { id: 'points', label: 'Points', default_value: '0' }, header_two: empty, header_three: empty },
          primary: { primary_one: { id: 'member', label: 'Member', default_value: 'Guest' }, primary_two: empty },
          secondary: {
            secOne: { id: 'tier', label: 'Tier', default_value: 'Bronze' },
            secTwo: { id: 'since', label: 'Member since', default_value: '2026' },
            secThree: { id: 'shop', label: 'Home shop', default_value: 'Soho' },
          },
          auxiliary: { auxOne: empty, auxTwo: empty, auxThree: empty },
          backFields: {
            backOne: { id: 'terms', label: 'Terms', default_value: null },
            backTwo: empty,
            backThree: { id: 'help', label: 'Help', default_value: 'Ask us' },
            backFour: empty,
            backFive: empty,
          },
        },
      },
    });
  });

  it('follows updates and shows a template without fields as all-null groups', async () => {
    const { id } = await createProcessed(minimalTemplate());
    await patch(id, { name: 'Renamed', colors: { background: '#ABCDEF' } }).expect(202);
    const res = await service.api.get(`/api/v1/pass_templates/${id}`).set(service.auth(tenant.token)).expect(200);
    expect(res.body.data.attributes).toMatchObject({ name: 'Renamed', backgroundColor: '#ABCDEF', description: null, templateType: 'generic' });
    expect(Object.values(res.body.data.attributes.backFields)).toEqual([empty, empty, empty, empty, empty]);
    expect(res.body.data.attributes.header).toEqual({ header_one: empty, header_two: empty, header_three: empty });
  });

  it('is marked deprecated in the served contract', async () => {
    const res = await service.api.get('/openapi.json').expect(200);
    expect(res.body.paths['/api/v1/pass_templates/{pass_template_uuid}'].get).toMatchObject({ operationId: 'getLegacyPassTemplate', deprecated: true });
  });

  it('answers 404 for unknown and other accounts’ templates, 400 for a bad id, 401 without a key', async () => {
    const theirs = await createProcessed(minimalTemplate(), other.token);
    for (const id of [UNKNOWN_ID, theirs.id]) {
      const res = await service.api.get(`/api/v1/pass_templates/${id}`).set(service.auth(tenant.token)).expect(404);
      expect(res.body.errors[0]).toMatchObject({ code: 'not_found', source: { parameter: 'pass_template_uuid' } });
    }
    expectValidationError(await service.api.get('/api/v1/pass_templates/abc').set(service.auth(tenant.token)), { parameter: 'pass_template_uuid' });
    await service.api.get(`/api/v1/pass_templates/${UNKNOWN_ID}`).expect(401);
  });
});
