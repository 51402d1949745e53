/**
 * Fixtures of the pass and loyalty tests: processed pass templates made through the API (the
 * service must run its job workers, `startTestService({ jobs: 'work' })`), passes issued through
 * the API, the wallet states no API operation makes yet, and the pass API calls of
 * test/passes.*.test.ts ({@link passApi}).
 */
import type { Response, Test } from 'supertest';
import type { TestService } from './testService.ts';
import { ICON_PNG, LOGO_PNG } from './images.ts';

/** A loyalty template: `points` (the loyalty field), `member`, `tier`, `terms`; a custom barcode; a place and a beacon. */
export function loyaltyTemplate(overrides: Record<string, unknown> = {}) {
  return {
    name: 'Coffee Club Card',
    templateType: 'loyalty',
    centralTitle: 'Coffee Club',
    notificationHeader: 'Coffee Club news',
    description: 'Loyalty card of the Coffee Club',
    colors: { background: '#1A2B3C', label: '#F5D76E', text: '#FFFFFF' },
    images: { logo: LOGO_PNG, icon: ICON_PNG },
    fields: {
      header: { one: { id: 'points', label: 'Points', defaultValue: '0', localisation: { de: { label: 'Punkte' } } } },
      central: { one: { id: 'member', label: 'Member', defaultValue: 'Guest' } },
      details: { one: { id: 'tier', label: 'Tier', defaultValue: 'Bronze' }, two: { id: 'since', label: 'Member since' } },
      back: { one: { id: 'terms', label: 'Terms', defaultValue: 'One stamp per drink.' } },
    },
    barcode: { enabled: true, type: 'qr', source: 'custom', value: 'COFFEE-CLUB' },
    locations: [{ name: 'Soho shop', latitude: 51.5136, longitude: -0.1365, radius: 100, message: 'Your coffee is one minute away.' }],
    beacons: [{ name: 'Counter', proximityUuid: 'f7826da6-4fa2-4e98-8024-bc5b71e0893e', major: 1, minor: 7, message: 'Show this card at the counter.' }],
    ...overrides,
  };
}

/** A generic template without a loyalty field, barcode, places or beacons. */
export function plainTemplate(overrides: Record<string, unknown> = {}) {
  return {
    name: 'Event pass',
    templateType: 'generic',
    images: { icon: ICON_PNG },
    fields: { central: { one: { id: 'guest', label: 'Guest', defaultValue: 'Anonymous' } } },
    ...overrides,
  };
}

/** Polls a template (as a client polls `meta.links.self`) until it is no longer processing; returns its attributes. */
export async function settledTemplate(service: TestService, token: string, id: string): Promise<Record<string, unknown>> {
  for (;;) {
    const res = await service.api.get(`/api/v1/pass-templates/${id}`).set(service.auth(token)).expect(200);
    if (res.body.data.attributes.processingStatus !== 'processing') return res.body.data.attributes;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * Creates a template through the API and waits until processing is over.
 * @returns Its id.
 * @throws when it did not process (unless `expectFailure`).
 */
export async function createTemplate(service: TestService, token: string, passTemplate: unknown, expectFailure = false): Promise<string> {
  const res = await service.api.post('/api/v1/pass-templates').set(service.auth(token)).send({ passTemplate }).expect(202);
  const attributes = await settledTemplate(service, token, res.body.id);
  if ((attributes.processingStatus === 'failed') !== expectFailure) throw new Error(`Template ${res.body.id}: ${JSON.stringify(attributes)}`);
  return res.body.id as string;
}

/** `POST /api/v1/passes` with the given query (passTemplate and more) and body. */
export function postPass(service: TestService, token: string, query: Record<string, string>, body: unknown = { pass: {} }): Test {
  return service.api
    .post(`/api/v1/passes?${new URLSearchParams(query).toString()}`)
    .set(service.auth(token))
    .send(body as object);
}

/** Issues a pass through the API (200 expected); returns the pass resource object. */
export async function issuePass(
  service: TestService,
  token: string,
  templateId: string,
  body: unknown = { pass: {} },
  query: Record<string, string> = {},
): Promise<{ id: string; type: string; attributes: Record<string, unknown> }> {
  const res = await postPass(service, token, { passTemplate: templateId, ...query }, body);
  if (res.status !== 200) throw new Error(`createPass answered ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body.data;
}

/**
 * Puts a pass into a wallet state directly in the database: no API operation adds passes to or
 * removes them from wallets yet (the holder pages and wallet callbacks come later).
 */
export async function setWalletState(service: TestService, passId: string, state: 'active' | 'removed', at = new Date('2026-11-21T10:00:00Z')) {
  const data =
    state === 'active'
      ? { status: 'active' as const, addedAt: at, deviceType: 'iphone' as const }
      : { status: 'removed' as const, addedAt: new Date(at.getTime() - 60_000), removedAt: at };
  await service.database.db.prisma.pass.update({ where: { id: passId }, data });
}

/** Two accounts with templates, as the pass and loyalty tests start from. */
export interface PassTenants {
  tenant: { accountId: string; token: string };
  other: { accountId: string; token: string };
  /** `tenant`'s processed {@link loyaltyTemplate}. */
  loyaltyId: string;
  /** `tenant`'s processed {@link plainTemplate}. */
  plainId: string;
  /** `other`'s processed plain template, named "Not yours". */
  otherTemplateId: string;
}

/** Creates the accounts and templates of {@link PassTenants}. */
export async function setUpPassTenants(service: TestService): Promise<PassTenants> {
  const tenant = await service.createAccount('Coffee Club Ltd');
  const other = await service.createAccount('Other Tenant');
  return {
    tenant,
    other,
    loyaltyId: await createTemplate(service, tenant.token, loyaltyTemplate()),
    plainId: await createTemplate(service, tenant.token, plainTemplate()),
    otherTemplateId: await createTemplate(service, other.token, plainTemplate({ name: 'Not yours' })),
  };
}

/** Expects an error response: the status, and an error object with the code (and source, when given). */
export function expectError(res: Response, status: number, code: string, source?: Record<string, string>): void {
  expect(res.status).toBe(status);
  expect(res.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ status: String(status), code, ...(source ? { source } : {}) })]));
}

/**
 * The pass API calls of test/passes.*.test.ts, bound to the service, tenant and loyalty template
 * the getters return when a call is made (a test file sets them in `beforeAll`); a call may name
 * another token (or, for `issue`, template).
 */
export function passApi(service: () => TestService, tenant: () => PassTenants['tenant'], loyaltyId: () => string) {
  const auth = (token = tenant().token) => service().auth(token);
  const prisma = () => service().database.db.prisma;

  /** getPass by id or extId, with the query (`?include…`) as given. */
  function get(idOrExtId: string, query = '', token = tenant().token) {
    return service()
      .api.get(`/api/v1/passes/${encodeURIComponent(idOrExtId)}${query}`)
      .set(auth(token));
  }
  /** updatePass by id or extId. */
  function patch(idOrExtId: string, body: unknown, token = tenant().token) {
    return service()
      .api.patch(`/api/v1/passes/${encodeURIComponent(idOrExtId)}`)
      .set(auth(token))
      .send(body as object);
  }
  /** nullifyPass by id or extId. */
  function nullify(idOrExtId: string, token = tenant().token) {
    return service()
      .api.post(`/api/v1/passes/${encodeURIComponent(idOrExtId)}/nullify`)
      .set(auth(token));
  }
  /** Issues a pass of the tenant's loyalty template (unless another is named): {@link issuePass}. */
  const issue = (body: unknown = { pass: {} }, query: Record<string, string> = {}, templateId = loyaltyId()) =>
    issuePass(service(), tenant().token, templateId, body, query);

  /** Every attribute a fresh pass of the loyalty template shows with an empty `pass`. */
  function defaultAttributes(id: string, overrides: Record<string, unknown> = {}) {
    return {
      downloadUrl: `http://wallet.test/passes/${id}`,
      passType: 'storeCard',
      createdAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/),
      status: 'issued',
      extId: null,
      passTemplateUuid: loyaltyId(),
      passTemplateName: 'Coffee Club Card',
      nfc: null,
      barcode: { type: 'qr', source: 'custom', value: 'COFFEE-CLUB' },
      passContent: { points: '0', member: 'Guest', tier: 'Bronze', since: '', terms: 'One stamp per drink.' },
      addedAt: null,
      removedAt: null,
      deactivatedAt: null,
      nullifiedAt: null,
      expiresAt: null,
      latestMessage: null,
      groupTags: [],
      ...overrides,
    };
  }

  /** The resource object of a pass of the loyalty template: {@link defaultAttributes} with `overrides`. */
  function passResource(id: string, overrides: Record<string, unknown> = {}) {
    return { id, type: 'pass', attributes: defaultAttributes(id, overrides) };
  }

  return { auth, prisma, get, patch, nullify, issue, defaultAttributes, passResource };
}
