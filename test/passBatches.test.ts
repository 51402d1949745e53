/**
 * CSV pass batches (PassEntry CSV pass creation and update; issue 17): createPassCreationBatch,
 * createPassUpdateBatch, getBatchResults and the pass batch layout of getBatchErrors, through HTTP
 * (multipart uploads) on a real database, responses validated against the contract, with the
 * `pass-batch` job run by the service's workers — or, to watch progress between chunks, by its
 * step function (`advancePassBatch`) with a small chunk size on a service whose jobs only queue.
 *
 * Covers every column, quoted values with commas, quotes and line breaks, BOMs, row errors (bad
 * enums, unknown field ids, duplicate and taken extIds, bad dates) parsed back from the errors CSV,
 * the results CSV, file-level refusals (non-CSV, not UTF-8, unknown column, no data, too large,
 * wrong content type, missing fields), progress, a restart between chunks without duplicates,
 * update batches at scheduledAt, and a client polling a batch over one keep-alive connection.
 */
import { parse } from 'csv-parse/sync';
import { spawn } from 'node:child_process';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHttpServer, listen, serveApp } from '../src/http/listener.ts';
import { advancePassBatch } from '../src/domain/batches/passBatchJob.ts';
import { startTestService, TestClock, type TestService } from './support/testService.ts';
import { createTemplate, issuePass, loyaltyTemplate } from './support/passes.ts';
import { webhookBodyProblems } from './support/webhookContract.ts';
import { startWebhookReceiver } from './support/webhookReceiver.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const DAY_MS = 24 * 3600 * 1000;

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    await sleep(25);
  }
}

/** Keeps the event loop busy for `ms` ms, as long synchronous work does. */
function holdEventLoop(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end);
}

/**
 * Runs a client in its own Node.js process with the given environment: it uploads ROWS rows to
 * TEMPLATE_ID (extIds PREFIX-1…), then polls the batch every 500 ms with fetch until it is final
 * (at most 2 minutes). Resolves with one line per request: the upload's `{ status, id }`, then each
 * poll's `{ status, batchStatus, processed }` or `{ error }` (the message and its cause).
 */
async function pollingClient(env: Record<string, string>): Promise<Record<string, any>[]> {
  const script = `
    const { BASE_URL, TOKEN, TEMPLATE_ID, PREFIX, ROWS } = process.env;
    const auth = { Authorization: 'Bearer ' + TOKEN };
    const rows = ['ext_id,passfield_member,passfield_points'];
    for (let i = 1; i <= Number(ROWS); i++) rows.push(PREFIX + '-' + i + ',Member ' + i + ',' + i);
    const form = new FormData();
    form.set('passTemplate', TEMPLATE_ID);
    form.set('csv', new Blob([rows.join('\\r\\n') + '\\r\\n'], { type: 'text/csv' }), 'members.csv');
    const upload = await fetch(BASE_URL + '/api/v1/passes/batch', { method: 'POST', headers: auth, body: form });
    const id = (await upload.json()).data?.id;
    console.log(JSON.stringify({ status: upload.status, id }));
    for (let i = 0; id && i < 240; i++) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      try {
        const res = await fetch(BASE_URL + '/api/v1/batches/' + id, { headers: auth });
        const { attributes } = (await res.json()).data;
        console.log(JSON.stringify({ status: res.status, batchStatus: attributes.status, processed: attributes.progress?.processed }));
        if (!['processing', 'scheduled', 'sending'].includes(attributes.status)) break;
      } catch (error) {
        console.log(JSON.stringify({ error: error.message + ': ' + (error.cause?.code ?? error.cause?.message) }));
      }
    }`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
    env: { PATH: process.env.PATH, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  await new Promise((resolve) => child.once('exit', resolve));
  return output
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, any>);
}

/** Parses a CSV answer into records keyed by its header. */
const records = (text: string) => parse(text, { columns: true }) as Record<string, string>[];

describe('CSV pass batches, with the job workers running', () => {
  const clock = new TestClock(new Date('2026-11-21T10:00:00Z'));
  let service: TestService;
  let tenant: { accountId: string; token: string };
  let templateId: string;
  let counter = 0;

  beforeAll(async () => {
    service = await startTestService({ jobs: 'work', clock, config: { webhookAllowPrivate: true } });
    tenant = await service.createAccount('Coffee Club Ltd');
    templateId = await createTemplate(service, tenant.token, loyaltyTemplate());
  });
  afterAll(() => service.close());

  const auth = () => service.auth(tenant.token);
  const upload = (csv: string | Buffer, fields: Record<string, string> = { passTemplate: templateId }, path = '/api/v1/passes/batch', type = 'text/csv') => {
    let req = service.api.post(path).set(auth());
    for (const [name, value] of Object.entries(fields)) req = req.field(name, value);
    return req.attach('csv', Buffer.isBuffer(csv) ? csv : Buffer.from(csv), { filename: 'passes.csv', contentType: type });
  };
  const getBatch = async (id: string) => (await service.api.get(`/api/v1/batches/${id}`).set(auth()).expect(200)).body.data;
  const finished = (id: string) =>
    until(
      () => getBatch(id),
      (b) => !['processing', 'scheduled', 'sending'].includes(b.attributes.status),
    );
  const csvOf = async (id: string, which: 'results' | 'errors') => {
    const res = await service.api.get(`/api/v1/batches/${id}/${which}.csv`).set(auth()).expect(200);
    expect(res.headers['content-type']).toMatch(/^text\/csv/);
    return records(res.text);
  };
  const pass = async (id: string) => (await service.api.get(`/api/v1/passes/${id}`).set(auth()).expect(200)).body.data;
  const ext = () => `csv-${++counter}`;

  it('creates a pass per row from a file with every column, quoted values and a BOM; results CSV lists them', async () => {
    const [a, b] = [ext(), ext()];
    const csv =
      '\uFEFFext_id,group_tags,nfc_enabled,nfc_source,nfc_custom_value,barcode_enabled,barcode_type,barcode_source,barcode_value,barcode_display_text,expires_at,passfield_member,passfield_points\r\n' +
      `${a},"gold, soho",true,custom,NFC-1,true,code128,custom,"BC,1",true,2027-01-31T23:59:59Z,"Ada ""The Countess"" Lovelace, Esq.",120\r\n` +
      `${b},,false,,,false,,,,,,"line one\nline two",\r\n`;
    const res = await upload(csv, { passTemplate: templateId, name: 'November members' }).expect(202);
    expect(res.headers.location).toBe(res.body.links.self);
    expect(res.body.data).toMatchObject({
      type: 'passCreation',
      attributes: { name: 'November members', status: 'processing', content: null, progress: { total: 2, processed: 0, pending: 2 }, errorsCsvUrl: null },
      relationships: { passTemplate: { data: { id: templateId, type: 'passTemplate' } } },
    });
    const done = await finished(res.body.data.id);
    expect(done.attributes).toMatchObject({ status: 'successful', progress: { total: 2, processed: 2, pending: 0 }, errorsCsvUrl: null });
    const results = await csvOf(res.body.data.id, 'results');
    expect(results.map((r) => [r.row, r.ext_id])).toEqual([
      ['2', a],
      ['3', b],
    ]);
    const first = await pass(results[0]!.pass_id!);
    expect(results[0]!.download_url).toBe(first.attributes.downloadUrl);
    expect(first.attributes).toMatchObject({
      extId: a,
      groupTags: ['gold', 'soho'],
      expiresAt: '2027-01-31T23:59:59Z',
    });
    expect(JSON.stringify(first.attributes)).toContain('Ada \\"The Countess\\" Lovelace, Esq.');
    const loyalty = await service.api.get(`/api/v1/loyalty/${first.id}`).set(auth()).expect(200);
    expect(loyalty.body.meta.loyalty.balance).toBe(120);
    const second = await pass(results[1]!.pass_id!);
    expect(JSON.stringify(second.attributes)).toContain('line one\\nline two');
  });

  it.each([
    ['semicolons (Excel in Germany or Poland)', ';'],
    ['tabs', '\t'],
  ])('reads a file separated by %s, non-Latin names and a value holding a comma intact', async (_case, d) => {
    const [a, b, c] = [ext(), ext(), ext()];
    const names = ['Łukasz Żółć', 'Дмитрий Шостакович', '山田 太郎, Jr.'];
    const csv = `\uFEFFext_id${d}group_tags${d}passfield_member${d}passfield_points\r\n${[a, b, c]
      .map((id, i) => `${id}${d}"gold, soho"${d}${names[i]}${d}${i + 1}`)
      .join('\r\n')}\r\n`;
    const res = await upload(csv).expect(202);
    const done = await finished(res.body.data.id);
    expect(done.attributes).toMatchObject({ status: 'successful', progress: { total: 3, processed: 3, pending: 0 }, errorsCsvUrl: null });
    const results = await csvOf(res.body.data.id, 'results');
    expect(results.map((r) => r.ext_id)).toEqual([a, b, c]);
    for (const [i, row] of results.entries()) {
      const created = await pass(row.pass_id!);
      expect(created.attributes).toMatchObject({ extId: [a, b, c][i], groupTags: ['gold', 'soho'] });
      expect(JSON.stringify(created.attributes)).toContain(JSON.stringify(names[i]));
    }
  });

  it('refuses bad rows into the errors CSV (bad enum, unknown field id, duplicate and taken extIds, bad date) and creates the others', async () => {
    const taken = ext();
    await issuePass(service, tenant.token, templateId, { pass: {} }, { extId: taken });
    const [ok, dup] = [ext(), ext()];
    const csv = [
      'ext_id,barcode_type,expires_at,passfield_member,passfield_nickname',
      `${ok},qr,,Ok,`,
      `${dup},,,,`,
      `${ext()},square,,,`,
      `${ext()},,,,Bob`,
      `${dup},,,,`,
      `${taken},,,,`,
      `${ext()},,tomorrow,,`,
      `=HYPERLINK("x"),,,,`,
    ].join('\n');
    const res = await upload(csv).expect(202);
    expect(res.body.data.attributes.progress).toEqual({ total: 8, processed: 7, pending: 1 });
    const done = await finished(res.body.data.id);
    expect(done.attributes).toMatchObject({ status: 'completedWithErrors', progress: { total: 8, processed: 8, pending: 0 } });
    const errors = await csvOf(res.body.data.id, 'errors');
    expect(errors.map((e) => [e.row, e.column])).toEqual([
      ['3', 'ext_id'],
      ['4', 'barcode_type'],
      ['5', 'passfield_nickname'],
      ['6', 'ext_id'],
      ['7', 'ext_id'],
      ['8', 'expires_at'],
      ['9', 'ext_id'],
    ]);
    expect(errors[1]!.error).toContain('square');
    expect(errors[2]!.error).toContain('nickname is not a field');
    expect(errors[4]!.error).toContain('already exists');
    // Formula-like cells are escaped (OWASP CSV injection).
    expect(errors[6]!.ext_id).toBe(`'=HYPERLINK("x")`);
    expect((await csvOf(res.body.data.id, 'results')).map((r) => r.ext_id)).toEqual([ok]);
  });

  it('refuses unreadable files and bad forms as a whole, naming the field; nothing is stored', async () => {
    const before = await service.database.db.prisma.batch.count();
    const refused = async (res: { status: number; body: { errors: { source?: unknown; detail: string }[] } }, status: number, source: unknown) => {
      expect(res.status).toBe(status);
      expect(res.body.errors[0]!.source).toEqual(source);
    };
    await refused(await upload(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0xff, 0xfe]), undefined, undefined, 'image/png'), 400, { pointer: '/csv' });
    await refused(await upload(Buffer.from([0x65, 0x78, 0x74, 0x5f, 0x69, 0x64, 0x0a, 0xff, 0xfe, 0x0a])), 400, { pointer: '/csv' });
    await refused(await upload('ext_id,colour\nx,red\n'), 400, { pointer: '/csv' });
    await refused(await upload('ext_id\n'), 400, { pointer: '/csv' });
    await refused(await upload(''), 400, { pointer: '/csv' });
    await refused(await upload('ext_id\n"unclosed\n'), 400, { pointer: '/csv' });
    await refused(await upload('ext_id\nx\n', {}), 400, { pointer: '/passTemplate' });
    const noFile = await service.api.post('/api/v1/passes/batch').set(auth()).field('passTemplate', templateId);
    await refused(noFile, 400, { pointer: '/csv' });
    const asText = await service.api.post('/api/v1/passes/batch').set(auth()).field('passTemplate', templateId).field('csv', 'ext_id\nx');
    await refused(asText, 400, { pointer: '/csv' });
    const json = await service.api.post('/api/v1/passes/batch').set(auth()).send({ csv: 'ext_id\nx', passTemplate: templateId });
    await refused(json, 415, { header: 'Content-Type' });
    const big = Buffer.alloc(10 * 1024 * 1024 + 10, 'a\n');
    await refused(await upload(Buffer.concat([Buffer.from('ext_id\n'), big])), 413, { pointer: '/csv' });
    await refused(await upload('ext_id\nx\n', { passTemplate: '0194f3a2-7c1e-7a51-9d7e-0b6a2f1c9e10' }), 404, { parameter: 'passTemplate' });
    expect(await service.database.db.prisma.batch.count()).toBe(before);
  });

  it('updates passes at scheduledAt: fields, pass_action and nullify; unknown passes are row errors', async () => {
    const a = await issuePass(service, tenant.token, templateId, { pass: {} }, { extId: ext() });
    const b = await issuePass(service, tenant.token, templateId, { pass: {} }, { extId: ext() });
    const c = await issuePass(service, tenant.token, templateId, { pass: {} }, { extId: ext() });
    const scheduledAt = new Date(clock.now().getTime() + DAY_MS).toISOString();
    const csv = [
      'pass_id,pass_action,passfield_member,group_tags',
      `${a.id},,Updated,vip`,
      `${b.attributes.extId},deactivate,,`,
      `${c.id},nullify,,`,
      'nobody,,X,',
    ].join('\n');
    const res = await upload(csv, { scheduledAt }, '/api/v1/passes/batch/update').expect(202);
    expect(res.body.data).toMatchObject({ type: 'passUpdate', attributes: { status: 'scheduled', progress: { total: 4, processed: 0, pending: 4 } } });
    await sleep(300);
    expect((await getBatch(res.body.data.id)).attributes.status).toBe('scheduled');
    // Waiting for scheduledAt is proven with the job's step below; here the batch is sent now.
    const sending = await service.api.post(`/api/v1/batches/${res.body.data.id}/send-now`).set(auth()).expect(200);
    expect(sending.body.data.attributes.status).toBe('sending');
    const done = await finished(res.body.data.id);
    expect(done.attributes).toMatchObject({ status: 'completedWithErrors', progress: { total: 4, processed: 4, pending: 0 } });
    expect((await pass(a.id as string)).attributes).toMatchObject({ groupTags: ['vip'] });
    expect(JSON.stringify((await pass(a.id as string)).attributes)).toContain('Updated');
    expect((await pass(b.id as string)).attributes.status).toBe('deactivated');
    expect((await pass(c.id as string)).attributes.status).toBe('nullified');
    const errors = await csvOf(res.body.data.id, 'errors');
    expect(errors.map((e) => [e.row, e.column, e.pass_id])).toEqual([['5', 'pass_id', 'nobody']]);
    expect((await csvOf(res.body.data.id, 'results')).map((r) => r.pass_id)).toEqual([a.id, b.id, c.id]);
  });

  it('announces a row that changes fields and nullifies once: one passUpdated for the pass, as nullifyPass sends', async () => {
    const receiver = await startWebhookReceiver();
    try {
      const account = await service.createAccount('Void Club');
      const template = await createTemplate(service, account.token, loyaltyTemplate());
      const voided = await issuePass(service, account.token, template, { pass: {} }, { extId: ext() });
      const changed = await issuePass(service, account.token, template, { pass: {} }, { extId: ext() });
      await service.api
        .post('/api/v1/webhook-subscriptions')
        .set(service.auth(account.token))
        .send({ webhookSubscription: { url: `${receiver.url}/passUpdated`, subscribedEvents: ['passUpdated'], scopeType: 'organisation' } })
        .expect(201);
      const scheduledAt = new Date(clock.now().getTime() + DAY_MS).toISOString();
      const csv = ['pass_id,pass_action,passfield_member', `${voided.id},nullify,Gone`, `${changed.id},,Still here`].join('\n');
      const res = await service.api
        .post('/api/v1/passes/batch/update')
        .set(service.auth(account.token))
        .field('scheduledAt', scheduledAt)
        .attach('csv', Buffer.from(csv), { filename: 'passes.csv', contentType: 'text/csv' })
        .expect(202);
      await service.api.post(`/api/v1/batches/${res.body.data.id}/send-now`).set(service.auth(account.token)).expect(200);
      await until(
        async () => (await service.api.get(`/api/v1/batches/${res.body.data.id}`).set(service.auth(account.token)).expect(200)).body.data.attributes.status,
        (status) => status === 'successful',
      );
      await receiver.waitFor(2);
      // Both rows' events are recorded by the same relay; a second event for the voided pass would be on its way with them.
      await sleep(1500);
      const subjects = receiver.received.map((r) => r.body.included[0]);
      expect(subjects.map((p) => p.id).sort()).toEqual([voided.id, changed.id].sort());
      expect(subjects.find((p) => p.id === voided.id).attributes.status).toBe('nullified');
    } finally {
      await receiver.close();
    }
  });

  it('sends passCreated for every created pass, with the pass as getPass shows it, to the subscriptions listening', async () => {
    const receiver = await startWebhookReceiver();
    try {
      const account = await service.createAccount('Webhook Club');
      const template = await createTemplate(service, account.token, loyaltyTemplate());
      const subscribe = (subscribedEvents: string[]) =>
        service.api
          .post('/api/v1/webhook-subscriptions')
          .set(service.auth(account.token))
          .send({ webhookSubscription: { url: `${receiver.url}/${subscribedEvents[0]}`, subscribedEvents, scopeType: 'organisation' } })
          .expect(201);
      await subscribe(['passCreated']);
      await subscribe(['passUpdated']);
      const extIds = [ext(), ext(), ext()];
      const res = await service.api
        .post('/api/v1/passes/batch')
        .set(service.auth(account.token))
        .field('passTemplate', template)
        .attach('csv', Buffer.from(`ext_id,passfield_member\n${extIds.map((e) => `${e},Member ${e}`).join('\n')}\n`), {
          filename: 'p.csv',
          contentType: 'text/csv',
        })
        .expect(202);
      await until(
        async () => (await service.api.get(`/api/v1/batches/${res.body.data.id}`).set(service.auth(account.token)).expect(200)).body.data.attributes.status,
        (status) => status === 'successful',
      );
      const received = await receiver.waitFor(3);
      expect(received.map((r) => r.path)).toEqual(['/passCreated', '/passCreated', '/passCreated']);
      expect(received.map((r) => webhookBodyProblems('passCreated', r.body))).toEqual([[], [], []]);
      const shown = received.map((r) => r.body.included[0]);
      expect(shown.map((p) => p.attributes.extId).sort()).toEqual([...extIds].sort());
      for (const pass of shown) {
        const { body } = await service.api.get(`/api/v1/passes/${pass.id}`).set(service.auth(account.token)).expect(200);
        expect(pass).toEqual(body.data);
      }
    } finally {
      await receiver.close();
    }
  });

  it('refuses an update batch without pass_id column or with a past scheduledAt', async () => {
    const future = new Date(clock.now().getTime() + DAY_MS).toISOString();
    const noRef = await upload('passfield_member\nX\n', { scheduledAt: future }, '/api/v1/passes/batch/update');
    expect(noRef.status).toBe(400);
    expect(noRef.body.errors[0].source).toEqual({ pointer: '/csv' });
    const past = await upload('pass_id\nx\n', { scheduledAt: '2020-01-01T00:00:00Z' }, '/api/v1/passes/batch/update');
    expect(past.status).toBe(400);
    expect(past.body.errors[0].source).toEqual({ pointer: '/scheduledAt' });
  });

  it('answers every poll of a 200-row batch over one keep-alive connection, even when the event loop was held past the keep-alive timeout', async () => {
    // The service's own HTTP server (src/http/listener.ts) around the app, and a client in its
    // own process — Node's fetch (undici), whose connections are kept alive — that uploads 200
    // rows and polls the batch every 500 ms until it is final, as a client script would.
    const server = createHttpServer({ headersTimeoutMs: 10_000, requestTimeoutMs: 30_000 });
    serveApp(server, service.app);
    // Node's keep-alive timeout (5 s by default) shortened to keep the test short; it announces it
    // (`Keep-Alive: timeout=3`) and undici then reuses a connection idle for up to 1 s.
    server.keepAliveTimeout = 3000;
    await listen(server, 0, '127.0.0.1');
    // On a loaded machine PGlite's synchronous WASM work holds the event loop for seconds. Held
    // here after the first two answers (the upload's and the first poll's, when the batch is still
    // running then) past the moment Node closes the idle connection (the keep-alive timeout plus
    // the 1 s Node 20.20 adds to it), while the client sends its next poll on it; from an immediate
    // callback, as work that runs after a request's I/O callbacks does (held from a timer callback
    // instead, the timers due after it wait for the next turn, and the request is read first).
    let holds = 2;
    const ports = new Set<number>();
    server.prependListener('request', (req: IncomingMessage, res: ServerResponse) => {
      ports.add(req.socket.remotePort!);
      if (holds-- > 0) res.once('finish', () => setImmediate(() => holdEventLoop(server.keepAliveTimeout + 1500)));
    });
    try {
      const { port } = server.address() as AddressInfo;
      const lines = await pollingClient({ BASE_URL: `http://127.0.0.1:${port}`, TOKEN: tenant.token, TEMPLATE_ID: templateId, PREFIX: ext(), ROWS: '200' });
      expect(lines[0]).toMatchObject({ status: 202 });
      const polls = lines.slice(1);
      expect(polls.filter((poll) => poll.error)).toEqual([]);
      expect(polls.every((poll) => poll.status === 200)).toBe(true);
      expect(polls.at(-1)).toMatchObject({ batchStatus: 'successful', processed: 200 });
      // One connection from the upload to the last poll: the polls went over the idle kept-alive connection.
      expect(ports.size).toBe(1);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  }, 60_000);
});

describe('CSV pass batches, progress and restart between chunks', () => {
  let service: TestService;
  let tenant: { accountId: string; token: string };
  let templateId: string;

  beforeAll(async () => {
    service = await startTestService({ jobs: 'work', persistent: true });
    tenant = await service.createAccount('Progress Ltd');
    templateId = await createTemplate(service, tenant.token, loyaltyTemplate());
    // From here the jobs only queue: the test runs the job's step itself, chunk by chunk.
    service = await service.restart({ jobs: 'enqueue', persistent: true });
  });
  afterAll(() => service.close());

  it('applies an update batch only once scheduledAt is reached (by the injected clock)', async () => {
    const clock = new TestClock(new Date('2026-11-21T10:00:00Z'));
    service = await service.restart({ jobs: 'enqueue', persistent: true, clock });
    const issued = await service.api
      .post(`/api/v1/passes?passTemplate=${templateId}&extId=sched-1`)
      .set(service.auth(tenant.token))
      .send({ pass: {} })
      .expect(200);
    const res = await service.api
      .post('/api/v1/passes/batch/update')
      .set(service.auth(tenant.token))
      .field('scheduledAt', '2026-11-21T12:00:00Z')
      .attach('csv', Buffer.from('pass_id,pass_action\nsched-1,deactivate\n'), { filename: 'u.csv', contentType: 'text/csv' })
      .expect(202);
    const id = res.body.data.id as string;
    expect(await advancePassBatch(service.runtime, id)).toBe('deferred');
    expect((await service.database.db.prisma.pass.findUniqueOrThrow({ where: { id: issued.body.data.id } })).status).toBe('issued');
    clock.set('2026-11-21T12:00:00Z');
    expect(await advancePassBatch(service.runtime, id)).toBe('finished');
    expect((await service.database.db.prisma.pass.findUniqueOrThrow({ where: { id: issued.body.data.id } })).status).toBe('deactivated');
    const batch = await service.api.get(`/api/v1/batches/${id}`).set(service.auth(tenant.token)).expect(200);
    expect(batch.body.data.attributes).toMatchObject({
      status: 'successful',
      completedAt: '2026-11-21T12:00:00Z',
      progress: { total: 1, processed: 1, pending: 0 },
    });
  });

  it('shows progress as chunks commit, and a run that stops after a chunk resumes without creating a pass twice', async () => {
    const csv = ['ext_id,passfield_member', ...Array.from({ length: 7 }, (_, i) => `prog-${i},Member ${i}`)].join('\n');
    const res = await service.api
      .post('/api/v1/passes/batch')
      .set(service.auth(tenant.token))
      .field('passTemplate', templateId)
      .attach('csv', Buffer.from(csv), { filename: 'p.csv', contentType: 'text/csv' })
      .expect(202);
    const id = res.body.data.id as string;
    const progress = async () => (await service.api.get(`/api/v1/batches/${id}`).set(service.auth(tenant.token)).expect(200)).body.data.attributes.progress;
    expect(await progress()).toEqual({ total: 7, processed: 0, pending: 7 });
    // One run of one chunk of 3 rows, then the "worker dies": a fresh service on the same database.
    expect(await advancePassBatch(service.runtime, id, { chunkSize: 3, chunksPerRun: 1 })).toBe('continued');
    expect(await progress()).toEqual({ total: 7, processed: 3, pending: 4 });
    service = await service.restart({ jobs: 'enqueue', persistent: true });
    // The same chunk run again by a duplicate job changes nothing already done.
    expect(await advancePassBatch(service.runtime, id, { chunkSize: 3, chunksPerRun: 1 })).toBe('continued');
    expect(await progress()).toEqual({ total: 7, processed: 6, pending: 1 });
    expect(await advancePassBatch(service.runtime, id, { chunkSize: 3 })).toBe('finished');
    expect(await progress()).toEqual({ total: 7, processed: 7, pending: 0 });
    const passes = await service.database.db.prisma.pass.findMany({ where: { accountId: tenant.accountId, extId: { startsWith: 'prog-' } } });
    expect(passes.map((p) => p.extId).sort()).toEqual(Array.from({ length: 7 }, (_, i) => `prog-${i}`));
    const rows = await service.database.db.prisma.batchRow.findMany({ where: { batchId: id } });
    expect(new Set(rows.map((r) => r.passId)).size).toBe(7);
  });
});
