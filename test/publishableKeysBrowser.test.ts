/**
 * A publishable key in a web page, in a real headless Chromium: a sign-up page served from an
 * origin the key names issues a pass with `fetch` (the browser's CORS preflight and the request
 * both answered for that origin, the pass's `downloadUrl` read from the answer); the same page
 * served from another origin (another port) is refused by the browser, because the preflight got
 * `403` and no CORS header, and no pass is issued. Then the key's own rate limit per origin and
 * address: past `PUBLISHABLE_RATE_LIMIT_PER_MINUTE`, `429`, still readable by the page; the
 * preflight too gets `429`, without CORS headers.
 *
 * One service, one browser and two page servers for the file. Needs Debian's `chromium`
 * (CHROMIUM_PATH overrides /usr/bin/chromium); skipped without it. Runs in the pglite project
 * only: the CORS answers and refusals are checked on both databases in test/scopes.test.ts.
 */
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from './support/chromium.ts';
import { listenWith, type Listening } from './support/listen.ts';
import { createTemplate, plainTemplate } from './support/passes.ts';
import { testDatabaseKind } from './support/testDatabase.ts';
import { startTestService, type TestService } from './support/testService.ts';

const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/** The key's rate limit here: the page's preflight and request, one more, then 429. */
const PER_MINUTE = 3;

let skipReason: string | undefined;
if (testDatabaseKind() !== 'pglite') skipReason = 'runs in the pglite project only';
else if (!existsSync(chromiumPath)) skipReason = `no Chromium at ${chromiumPath}`;

/** What the page's script reports: the answer's status and body, or the error `fetch` threw. */
type Outcome = { status: number; body: IssuedPass } | { error: string };
/** The part of createPass's answer the page reads. */
type IssuedPass = { data?: { id: string; attributes: { downloadUrl: string } } };

(skipReason ? describe.skip : describe)(`a publishable key in a web page${skipReason ? ` (skipped: ${skipReason})` : ''}`, () => {
  let service: TestService;
  let server: Server;
  let api: string;
  let pages: Listening[];
  let browser: Browser;
  let page: Page;
  let secretKey: string;
  let templateId: string;
  let publishableKey: string;
  const origin = (listening: Listening) => `http://127.0.0.1:${listening.port}`;

  beforeAll(async () => {
    service = await startTestService({ jobs: 'work', config: { publishableRateLimitPerMinute: PER_MINUTE } });
    const account = await service.createAccount('Shop');
    secretKey = account.token;
    templateId = await createTemplate(service, secretKey, plainTemplate());
    server = service.app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    api = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    // The same sign-up page from two origins: two ports.
    const signUpPage = (_req: IncomingMessage, res: ServerResponse) =>
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end('<!doctype html><html lang="en"><title>Join the club</title><h1>Join</h1></html>');
    pages = [await listenWith(signUpPage), await listenWith(signUpPage)];
    const created = await service.api
      .post(`/admin/v1/accounts/${account.accountId}/tokens`)
      .set(service.adminAuth())
      .send({ apiToken: { name: 'Sign-up page', kind: 'publishable', passTemplates: [templateId], allowedOrigins: [origin(pages[0]!)] } })
      .expect(201);
    publishableKey = created.body.data.attributes.token;
    browser = await launchChromium(chromiumPath);
    page = await browser.newPage();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    if (server) await new Promise((r) => server.close(r));
    for (const listening of pages ?? []) await listening.close();
    await service?.close();
  });

  /** Opens the page from `pageOrigin` and issues a pass there with `fetch`, as a shop's sign-up form would. */
  async function issueFrom(pageOrigin: string): Promise<Outcome> {
    await page.goto(`${pageOrigin}/`);
    return page.evaluate(
      async ({ api, key, templateId }) => {
        try {
          const res = await fetch(`${api}/api/v1/passes?passTemplate=${templateId}`, {
            method: 'POST',
            headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json', 'Idempotency-Key': crypto.randomUUID() },
            body: JSON.stringify({ pass: { guest: 'Ada' } }),
          });
          return { status: res.status, body: (await res.json()) as IssuedPass };
        } catch (error) {
          return { error: String(error) };
        }
      },
      { api, key: publishableKey, templateId },
    );
  }

  const passCount = async () => (await service.api.get('/api/v1/passes').set(service.auth(secretKey)).expect(200)).body.data.length as number;

  test('a page on an allowed origin issues a pass; the same page on another origin is refused', async () => {
    const allowed = await issueFrom(origin(pages[0]!));
    expect(allowed).toMatchObject({ status: 200, body: { data: { attributes: { downloadUrl: expect.stringMatching(/^https?:\/\/.+\/passes\//) } } } });
    const passId = 'body' in allowed ? allowed.body.data!.id : '';
    const [event] = await service.runtime.db.sql.$queryRaw<{ actor_kind: string; actor_name: string }[]>`
      SELECT actor_kind, actor_name FROM audit_events WHERE operation_id = 'createPass' AND resource_id = ${passId}`;
    expect(event).toEqual({ actor_kind: 'publishable', actor_name: 'Sign-up page' });

    const before = await passCount();
    const refused = await issueFrom(origin(pages[1]!));
    expect(refused).toEqual({ error: expect.stringMatching(/Failed to fetch/) });
    expect(await passCount()).toBe(before);
  }, 60_000);

  test('the key has its own limit per origin and address; the 429 is readable by the page', async () => {
    // The page above spent 2 of its origin's requests (the preflight and the request).
    const send = () =>
      fetch(`${api}/api/v1/passes?passTemplate=${templateId}`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${publishableKey}`, 'Content-Type': 'application/json', 'Idempotency-Key': randomUUID(), Origin: origin(pages[0]!) },
        body: JSON.stringify({ pass: {} }),
      });
    expect((await send()).status).toBe(200);
    const limited = await send();
    expect(limited.status).toBe(429);
    expect(limited.headers.get('access-control-allow-origin')).toBe(origin(pages[0]!));
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(((await limited.json()) as { errors: { code: string }[] }).errors[0]!.code).toBe('rate_limited');
    // Preflights count too: past the limit the browser's preflight gets the 429, without CORS headers.
    const preflight = await fetch(`${api}/api/v1/passes?passTemplate=${templateId}`, {
      method: 'OPTIONS',
      headers: { Origin: origin(pages[0]!), 'Access-Control-Request-Method': 'POST' },
    });
    expect(preflight.status).toBe(429);
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
    expect(Number(preflight.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});
