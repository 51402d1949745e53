/**
 * Pass templates, duplicated and archived (duplicatePassTemplate, archivePassTemplate,
 * unarchivePassTemplate; `archived` of listPassTemplates; createPass from an archived template)
 * through HTTP on a real database, with the job workers processing the templates, responses
 * validated against the contract.
 */
import {
  expectValidationError,
  fullAttributes,
  fullTemplate,
  minimalTemplate,
  startTemplateService,
  templateApi,
  type Tenant,
} from './support/passTemplates.ts';
import { expectError, postPass } from './support/passes.ts';
import type { TestService } from './support/testService.ts';

let service: TestService;
let tenant: Tenant;
let other: Tenant;

beforeAll(async () => {
  ({ service, tenant, other } = await startTemplateService());
});
afterAll(() => service.close());

const { show, settled, createProcessed } = templateApi(
  () => service,
  () => tenant,
);
const action = (id: string, name: 'duplicate' | 'archive' | 'unarchive', token = tenant.token) =>
  service.api.post(`/api/v1/pass-templates/${id}/${name}`).set(service.auth(token));
const list = (query = '') => service.api.get(`/api/v1/pass-templates${query}`).set(service.auth(tenant.token));

describe('duplicatePassTemplate', () => {
  it('copies every member of the design under "<name> (copy)", processed as a new template', async () => {
    const source = await createProcessed(fullTemplate({ name: 'Kawiarnia Łódź — karta' }));
    const res = await action(source.id, 'duplicate').expect(202);
    expect(res.headers.location).toBe(`http://wallet.test/api/v1/pass-templates/${res.body.id}`);
    expect(res.body).toMatchObject({ type: 'passTemplate', attributes: { name: 'Kawiarnia Łódź — karta (copy)', processingStatus: 'processing' } });
    const copy = await settled(res.body.id);
    expect(copy.id).not.toBe(source.id);
    expect(copy.attributes).toEqual({ ...fullAttributes(), name: 'Kawiarnia Łódź — karta (copy)' });
    // The source is unchanged.
    expect(await show(source.id)).toEqual(source);
  });

  it('takes a name from the body; a name too long, or another member, is a 400 naming it', async () => {
    const source = await createProcessed(minimalTemplate({ name: 'x'.repeat(100) }));
    const named = await action(source.id, 'duplicate')
      .send({ passTemplate: { name: 'Winter 2027' } })
      .expect(202);
    expect(named.body.attributes.name).toBe('Winter 2027');
    // The default name is cut to the 100 characters a name may have.
    const cut = await action(source.id, 'duplicate').expect(202);
    expect(cut.body.attributes.name).toBe(`${'x'.repeat(93)} (copy)`);
    expectValidationError(await action(source.id, 'duplicate').send({ passTemplate: { name: 'y'.repeat(101) } }), {
      pointer: '/passTemplate/name',
    });
    expectValidationError(await action(source.id, 'duplicate').send({ passTemplate: { colors: {} } }), { pointer: '/passTemplate/colors' });
  });

  it("is a 404 for another account's template", async () => {
    const source = await createProcessed(minimalTemplate());
    expectError(await action(source.id, 'duplicate', other.token), 404, 'not_found', { parameter: 'id' });
  });
});

describe('archivePassTemplate and unarchivePassTemplate', () => {
  it('an archived template issues no pass and leaves the list; its passes still work; unarchived, it issues again', async () => {
    const template = await createProcessed(minimalTemplate({ name: 'Summer 2026' }));
    const pass = await postPass(service, tenant.token, { passTemplate: template.id }).expect(200);

    const archived = await action(template.id, 'archive').expect(200);
    const archivedAt = archived.body.data.meta.archivedAt as string;
    expect(Date.parse(archivedAt)).toBeGreaterThan(Date.now() - 60_000);
    expect(archived.body.data.attributes).toEqual(template.attributes);
    // Archiving again keeps the time it was first archived.
    expect((await action(template.id, 'archive').expect(200)).body.data.meta).toEqual({ archivedAt });
    expect(((await show(template.id)) as { meta?: unknown }).meta).toEqual({ archivedAt });

    expectError(await postPass(service, tenant.token, { passTemplate: template.id }), 409, 'conflict', { parameter: 'passTemplate' });
    await service.api.get(`/api/v1/passes/${pass.body.data.id}`).set(service.auth(tenant.token)).expect(200);

    const current = (await list('?perPage=100').expect(200)).body.data.map((t: { id: string }) => t.id);
    expect(current).not.toContain(template.id);
    const onlyArchived = (await list('?archived=true&perPage=100').expect(200)).body;
    expect(onlyArchived.data.map((t: { id: string }) => t.id)).toEqual([template.id]);
    expect(onlyArchived.data[0].meta).toEqual({ archivedAt });
    expect(onlyArchived.meta.totalCount).toBe(1);

    const unarchived = await action(template.id, 'unarchive').expect(200);
    expect(unarchived.body.data.meta).toBeUndefined();
    expect((await list('?perPage=100').expect(200)).body.data.map((t: { id: string }) => t.id)).toContain(template.id);
    await postPass(service, tenant.token, { passTemplate: template.id }).expect(200);
    // Unarchiving a template that is not archived answers it as it is.
    expect((await action(template.id, 'unarchive').expect(200)).body.data).toEqual(await show(template.id));
  });

  it("is a 404 for another account's template", async () => {
    const template = await createProcessed(minimalTemplate());
    expectError(await action(template.id, 'archive', other.token), 404, 'not_found', { parameter: 'id' });
    expectError(await action(template.id, 'unarchive', other.token), 404, 'not_found', { parameter: 'id' });
    expect(((await show(template.id)) as { meta?: unknown }).meta).toBeUndefined();
  });
});
