/**
 * A template's redesign reaching Google Wallet, through HTTP on a real database with the job
 * workers, against the stand-in Google Wallet API (test/support/fakeGoogleWallet.ts): the layout
 * lives in the class (`classTemplateInfo` with `FieldReference.fieldPath`), so a change of
 * colours, logo, layout or shared texts is one class PATCH and no object call; a label change also
 * rewrites the objects, through one batch request (`POST /batch`) rather than one call each, with
 * its progress in the template's `processingWarnings`; objects written before bodies were hashed
 * move to the new layout once (the `google-object-rewrite` job), and not again.
 */
import { googleObjectRewriteJob } from '../src/delivery/googleObjectRewriteJob.ts';
import { startFakeGoogleWallet, type FakeGoogleWallet, type GoogleCall } from './support/fakeGoogleWallet.ts';
import { CLIENT_EMAIL, ISSUER_ID, serviceAccountKeyPair, putGoogleConfiguration } from './support/googleCredentials.ts';
import { createTemplate, issuePass, loyaltyTemplate } from './support/passes.ts';
import { pollUntil } from './support/poll.ts';
import { startTestService, type TestService } from './support/testService.ts';

const PASSES = 4;
let fake: FakeGoogleWallet;
let service: TestService;
let tenant: { accountId: string; token: string };
let templateId: string;
let passIds: string[];

const auth = () => service.auth(tenant.token);
const isObjectCall = (c: GoogleCall) => /^\/loyaltyObject/.test(c.path);
const classPath = () => `/loyaltyClass/${ISSUER_ID}.${templateId}`;

/**
 * Waits until the template's refresh (marking its passes redesigned) and object rewrite jobs
 * created after `since` have completed, and answers how many `pass-changed` jobs were created for
 * the passes since then (none: without Apple devices, a redesign reaches Google through the class
 * and the rewrite job alone).
 */
async function redesignSettled(since: Date): Promise<number> {
  const open = () =>
    service.runtime.db.sql.$queryRaw<{ n: number }[]>`
      SELECT count(*)::int AS n FROM pgboss.job
       WHERE name IN ('pass-template-refresh', 'google-object-rewrite') AND data->>'templateId' = ${templateId} AND state <> 'completed' AND created_on > ${since}`;
  const done = () =>
    service.runtime.db.sql.$queryRaw<{ n: number }[]>`
      SELECT count(*)::int AS n FROM pgboss.job WHERE name = 'pass-template-refresh' AND data->>'templateId' = ${templateId} AND state = 'completed' AND created_on > ${since}`;
  const settled = await pollUntil(
    async () => ({ open: (await open())[0]!.n, done: (await done())[0]!.n }),
    (s) => s.done > 0 && s.open === 0,
    { timeoutMs: 60_000 },
  );
  expect(settled).toEqual({ open: 0, done: 1 });
  const [changed] = await service.runtime.db.sql.$queryRaw<{ n: number }[]>`
    SELECT count(*)::int AS n FROM pgboss.job WHERE name = 'pass-changed' AND created_on > ${since} AND data->>'passId' = ANY(${passIds})`;
  return changed!.n;
}

/** Patches the template's design and waits until its new version is processed. */
async function redesign(passTemplate: Record<string, unknown>): Promise<Date> {
  const since = new Date();
  await service.api
    .patch(`/api/v1/pass-templates/${templateId}`)
    .set(auth())
    .send({ passTemplate })
    .expect((r) => expect([200, 202]).toContain(r.status));
  await pollUntil(
    () => service.api.get(`/api/v1/pass-templates/${templateId}`).set(auth()),
    (res) => res.body.data.attributes.processingStatus === 'processed',
    { timeoutMs: 20_000 },
  );
  return since;
}

/** The template's processing warnings with code `google_objects_pending`. */
async function pendingWarnings() {
  const res = await service.api.get(`/api/v1/pass-templates/${templateId}`).set(auth()).expect(200);
  return ((res.body.data.attributes.processingWarnings ?? []) as { code: string; detail: string }[]).filter((w) => w.code === 'google_objects_pending');
}

beforeAll(async () => {
  fake = await startFakeGoogleWallet({ publicKey: serviceAccountKeyPair().publicKey, clientEmail: CLIENT_EMAIL });
  service = await startTestService({
    jobs: 'work',
    passChangeRelayIntervalMs: 200,
    config: { googleWalletApiUrl: fake.apiUrl, googleOauthTokenUrl: fake.tokenUrl },
  });
  tenant = await service.createAccount('Coffee Club Ltd');
  await putGoogleConfiguration(service, tenant.accountId);
  templateId = await createTemplate(service, tenant.token, loyaltyTemplate());
  passIds = [];
  for (let i = 0; i < PASSES; i++) passIds.push((await issuePass(service, tenant.token, templateId, { pass: { member: `Member ${i}` } })).id);
  await pollUntil(
    async () => fake.calls.filter((c) => c.method === 'POST' && c.path === '/loyaltyObject'),
    (calls) => calls.length === PASSES,
    { timeoutMs: 30_000 },
  );
});
afterAll(async () => {
  await service.close();
  await fake.close();
});

it('lays the fields out in the class: card rows and details refer to the object value, then the class text', async () => {
  const inserted = fake.calls.find((c) => c.method === 'POST' && c.path === '/loyaltyClass')!;
  const ref = (id: string) => ({ firstValue: { fields: [{ fieldPath: `object.textModulesData['${id}']` }, { fieldPath: `class.textModulesData['${id}']` }] } });
  expect(inserted.body.classTemplateInfo).toEqual({
    cardTemplateOverride: {
      cardRowTemplateInfos: [
        { oneItem: { item: ref('points') } },
        { oneItem: { item: ref('member') } },
        { twoItems: { startItem: ref('tier'), endItem: ref('since') } },
      ],
    },
    detailsTemplateOverride: { detailsItemInfos: [{ item: ref('terms') }] },
  });
  // Objects carry the holder's values only: no colour, logo or layout.
  const object = fake.calls.find((c) => c.method === 'POST' && c.path === '/loyaltyObject')!.body;
  expect(object).not.toHaveProperty('hexBackgroundColor');
  expect(object).not.toHaveProperty('classTemplateInfo');
  expect(object.textModulesData).toContainEqual({ id: 'member', header: 'Member', body: expect.stringMatching(/^Member \d$/) });
});

it('sends a redesign of colours, logo and shared texts as one class PATCH and no object call', async () => {
  fake.forgetCalls();
  const since = await redesign({
    colors: { background: '#AA0000', label: '#FFFFFF', text: '#FFFFFF' },
    fields: { back: { one: { defaultValue: 'Two stamps per drink.' } } },
  });
  expect(await redesignSettled(since)).toBe(0);
  expect(fake.calls.filter((c) => c.path === classPath()).map((c) => c.method)).toEqual(['PATCH']);
  expect(fake.calls.filter((c) => c.path === classPath())[0]!.body).toMatchObject({ hexBackgroundColor: '#aa0000' });
  expect(fake.calls.filter(isObjectCall)).toEqual([]);
  expect(fake.batches).toEqual([]);
  expect(fake.calls).toHaveLength(1);
});

it('sends a label change as one class PATCH and the objects in one batch request, its progress in processingWarnings', async () => {
  fake.forgetCalls();
  const since = await redesign({ fields: { central: { one: { label: 'Holder' } } } });
  await pollUntil(
    async () => fake.calls.filter(isObjectCall),
    (calls) => calls.length === PASSES,
    { timeoutMs: 30_000 },
  );
  expect(await redesignSettled(since)).toBe(0);
  expect(fake.calls.filter((c) => c.path === classPath()).map((c) => c.method)).toEqual(['PATCH']);
  const objects = fake.calls.filter(isObjectCall);
  expect(objects).toHaveLength(PASSES);
  expect(new Set(objects.map((c) => c.path))).toEqual(new Set(passIds.map((id) => `/loyaltyObject/${ISSUER_ID}.${id}`)));
  expect(objects.every((c) => c.method === 'PATCH' && c.batch === 1)).toBe(true);
  expect(fake.batches).toEqual([{ at: expect.any(Number), calls: PASSES }]);
  expect(objects[0]!.body.textModulesData).toContainEqual({ id: 'member', header: 'Holder', body: expect.any(String) });
  await pollUntil(pendingWarnings, (w) => w.length === 0, { timeoutMs: 10_000 });
});

it('moves objects written before bodies were hashed to the new layout once (the migration job), and not again', async () => {
  await service.runtime.db.sql
    .$executeRaw`UPDATE google_wallet_objects SET body_hash = NULL, data_hash = NULL, design_version = NULL WHERE pass_id = ANY(${passIds}::uuid[])`;
  await service.runtime.db.sql.$executeRaw`UPDATE google_wallet_classes SET body_hash = NULL WHERE template_id = ${templateId}::uuid`;
  fake.forgetCalls();
  fake.failNext(503);
  await service.jobs.enqueue(googleObjectRewriteJob, { templateId }, { singletonKey: templateId });
  // The class first (503, retried), then the objects in one batch.
  const objects = await pollUntil(
    async () => fake.calls.filter(isObjectCall),
    (calls) => calls.length === PASSES,
    { timeoutMs: 60_000 },
  );
  expect(fake.calls.filter((c) => c.path === classPath()).map((c) => c.method)).toEqual(['PATCH', 'PATCH']);
  expect(objects.every((c) => c.method === 'PATCH' && c.batch !== undefined)).toBe(true);
  const rows = await pollUntil(
    () => service.runtime.db.prisma.googleWalletObject.findMany({ where: { passId: { in: passIds } } }),
    (r) => r.every((o) => o.bodyHash !== null && o.designVersion !== null),
  );
  expect(rows).toHaveLength(PASSES);
  fake.forgetCalls();
  await service.jobs.enqueue(googleObjectRewriteJob, { templateId }, { singletonKey: templateId });
  await pollUntil(
    async () =>
      (
        await service.runtime.db.sql.$queryRaw<{ n: number }[]>`
        SELECT count(*)::int AS n FROM pgboss.job WHERE name = 'google-object-rewrite' AND state <> 'completed' AND data->>'templateId' = ${templateId}`
      )[0]!.n,
    (n) => n === 0,
    { timeoutMs: 30_000 },
  );
  expect(fake.calls).toEqual([]);
});
