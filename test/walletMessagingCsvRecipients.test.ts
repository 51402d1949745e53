/**
 * createWalletMessagingBatch with its recipients as a CSV file (multipart; PassEntry's CSV
 * recipients, issue 17), through HTTP on a real database with the job workers running: the right
 * passes get the message rendered with each row's variables, the others none; unknown and repeated
 * recipients land in the errors CSV; unreadable files are refused naming `recipients`; the JSON
 * body keeps working (test/batches.create.test.ts covers it in full).
 */
import { parse } from 'csv-parse/sync';
import { startTestService, TestClock, type TestService } from './support/testService.ts';
import { createTemplate, issuePass, loyaltyTemplate } from './support/passes.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('createWalletMessagingBatch with a CSV recipients file', () => {
  const clock = new TestClock(new Date('2026-11-21T10:00:00Z'));
  let service: TestService;
  let tenant: { accountId: string; token: string };
  let entityId: string;
  let templateId: string;

  beforeAll(async () => {
    service = await startTestService({ jobs: 'work', clock });
    tenant = await service.createAccount('Coffee Club Ltd');
    entityId = await service.createEntity(tenant.accountId, 'Soho');
    templateId = await createTemplate(service, tenant.token, loyaltyTemplate());
  });
  afterAll(() => service.close());

  const auth = () => service.auth(tenant.token);
  const upload = (csv: string, fields: Record<string, string> = { message: 'Hello %{first_name}!', scheduledAt: '2026-11-22T10:00:00Z' }) => {
    let req = service.api.post(`/api/v1/entities/${entityId}/messaging/wallet`).set(auth());
    for (const [name, value] of Object.entries(fields)) req = req.field(name, value);
    return req.attach('recipients', Buffer.from(csv), { filename: 'recipients.csv', contentType: 'text/csv' });
  };
  const batch = async (id: string) => (await service.api.get(`/api/v1/batches/${id}`).set(auth()).expect(200)).body.data.attributes;
  const until = async (id: string, done: (status: string) => boolean) => {
    for (;;) {
      const attributes = await batch(id);
      if (done(attributes.status)) return attributes;
      await sleep(25);
    }
  };
  const latestMessage = async (id: string) => (await service.api.get(`/api/v1/passes/${id}`).set(auth()).expect(200)).body.data.attributes.latestMessage;

  it('messages the passes the file lists, each with its row variables; the others get nothing', async () => {
    const [ada, alan, bystander] = await Promise.all(
      ['r-ada', 'r-alan', 'r-other'].map((extId) => issuePass(service, tenant.token, templateId, { pass: {} }, { extId })),
    );
    const csv = `\uFEFFpass_id,first_name\r\nr-ada,"Ada, Countess"\r\n${alan!.id},Alan\r\nnobody,X\r\nr-ada,Again\r\n`;
    const res = await upload(csv).expect(202);
    expect(res.body.data).toMatchObject({ type: 'walletMessaging', attributes: { status: 'validating', content: 'Hello %{first_name}!' } });
    const id = res.body.data.id as string;
    expect((await until(id, (s) => s !== 'validating')).status).toBe('scheduled');
    await service.api.post(`/api/v1/batches/${id}/send-now`).set(auth()).expect(200);
    const done = await until(id, (s) => !['scheduled', 'sending'].includes(s));
    expect(done).toMatchObject({ status: 'completedWithErrors', recipientCount: 2 });
    expect(await latestMessage(ada!.id as string)).toBe('Hello Ada, Countess!');
    expect(await latestMessage(alan!.id as string)).toBe('Hello Alan!');
    expect(await latestMessage(bystander!.id as string)).toBeNull();
    const errors = parse((await service.api.get(`/api/v1/batches/${id}/errors.csv`).set(auth()).expect(200)).text, { columns: true }) as Record<
      string,
      string
    >[];
    expect(errors.map((e) => e.recipient)).toEqual(['nobody', 'r-ada']);
  });

  it('refuses files it cannot read, naming recipients; nothing is stored', async () => {
    const before = await service.database.db.prisma.batch.count();
    for (const csv of ['first_name\nAda\n', 'pass_id,first name\nx,Ada\n', 'pass_id\n', 'pass_id,first_name\n,Ada\n', '"unclosed\n']) {
      const res = await upload(csv);
      expect({ csv, status: res.status, source: res.body.errors?.[0]?.source }).toEqual({ csv, status: 400, source: { pointer: '/recipients' } });
    }
    const missing = await service.api
      .post(`/api/v1/entities/${entityId}/messaging/wallet`)
      .set(auth())
      .field('message', 'Hi')
      .attach('recipients', Buffer.from('pass_id\nx\n'), 'r.csv');
    expect(missing.status).toBe(400);
    expect(missing.body.errors[0].source).toEqual({ pointer: '/scheduledAt' });
    expect(await service.database.db.prisma.batch.count()).toBe(before);
  });
});
