/**
 * The operator console through a working day, in a real headless Chromium (issue "a console an
 * operator can work in all day"): editing a saved template of every type in the designer and
 * saving it (only the changed members are sent; `transitType` is kept; audited as the console's); the warnings the API
 * computes (`X-Preview-Warnings` of the live preview, the template's `processingWarnings`) shown
 * in the designer; a wallet message written with `%{points}`, sent now behind a confirmation
 * that names how many passes and wallets it reaches, its result in words (how many passes were
 * in a wallet), and each holder's page showing the number. Every page state is checked with
 * axe-core (0 violations) and fits 390 px without horizontal scrolling; screenshots go to
 * test/artifacts/console-workday-*.png.
 *
 * One service and one browser for the file. Needs Debian's `chromium` (CHROMIUM_PATH overrides
 * /usr/bin/chromium); skipped without it. Runs in the pglite project only, as
 * test/consoleBrowser.test.ts does: the API's database behaviour is covered by the API tests on
 * both databases (test/batches.sending.test.ts, test/passTemplates.*.test.ts).
 */
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { axeViolations, launchChromium } from './support/chromium.ts';
import { cookieOf, joinAs, type SignedInPerson, totpCode } from './support/people.ts';
import { setAppleConfiguration } from './support/appleCredentials.ts';
import { createTemplate, issuePass, loyaltyTemplate, settledTemplate } from './support/passes.ts';
import { pollUntil } from './support/poll.ts';
import { testDatabaseKind } from './support/testDatabase.ts';
import { startTestService, type TestService } from './support/testService.ts';

const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const root = resolve(import.meta.dirname, '..');
const artifacts = resolve(root, 'test/artifacts');

let skipReason: string | undefined;
if (testDatabaseKind() !== 'pglite') skipReason = 'runs in the pglite project only';
else if (!existsSync(chromiumPath)) skipReason = `no Chromium at ${chromiumPath}`;
else if (!existsSync(resolve(root, 'console/dist/index.html'))) skipReason = 'console/dist is not built (npm run build:console)';

(skipReason ? describe.skip : describe)(`operator console, a working day${skipReason ? ` (skipped: ${skipReason})` : ''}`, () => {
  let service: TestService;
  let server: Server;
  let origin: string;
  let browser: Browser;
  let page: Page;
  let tenant: { accountId: string; token: string };
  let context: BrowserContext;
  let owner: SignedInPerson;

  /** Signs the owner in again (password and code, through the API) and gives the browser the session's cookie. */
  async function signInOwner(): Promise<void> {
    const signedIn = await service.api
      .post('/api/v1/sign-in/password')
      .send({ email: owner.email, password: owner.password, totpCode: await totpCode(owner.totpSecret!) })
      .expect(201);
    const [name, value] = cookieOf(signedIn.headers['set-cookie']).split('=') as [string, string];
    await context.addCookies([{ name, value, url: origin, httpOnly: true, sameSite: 'Lax' }]);
  }

  beforeAll(async () => {
    service = await startTestService({ jobs: 'work', passChangeRelayIntervalMs: 200 });
    tenant = await service.createAccount('Coffee Club Ltd');
    await service.createEntity(tenant.accountId, 'Soho');
    await setAppleConfiguration(service, tenant.accountId);
    server = service.app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    browser = await launchChromium(chromiumPath);
    context = await browser.newContext({ viewport: { width: 1366, height: 900 } });
    context.setDefaultTimeout(15_000);
    page = await context.newPage();
    await mkdir(artifacts, { recursive: true });
    // The account's owner, signed in (the console holds no API key).
    owner = await joinAs(service, tenant.accountId, 'owner', 'Olga Owner');
    const [name, value] = owner.cookie.split('=') as [string, string];
    await context.addCookies([{ name, value, url: origin, httpOnly: true, sameSite: 'Lax' }]);
    await page.goto(`${origin}/console/`);
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    if (server) await new Promise((r) => server.close(r));
    await service?.close();
  });

  /** 0 axe-core violations (WCAG 2.x A/AA rules and best practices) on the page as it is now. */
  async function checkPage(name: string): Promise<void> {
    await page.locator('h1').first().waitFor();
    const violations = await axeViolations(page);
    expect({ name, violations }).toEqual({ name, violations: [] });
  }

  /** Screenshots at 1366 px and 390 px (`<name>-1366.png`, `<name>-390.png`); at 390 px the page scrolls only vertically. */
  async function screenshots(name: string, fullPage = true): Promise<void> {
    await page.screenshot({ path: resolve(artifacts, `${name}-1366.png`), fullPage });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.waitForTimeout(100);
    expect(await page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await page.screenshot({ path: resolve(artifacts, `${name}-390.png`), fullPage });
    await page.setViewportSize({ width: 1366, height: 900 });
  }

  const template = async (id: string) =>
    (await service.api.get(`/api/v1/pass-templates/${id}`).set(service.auth(tenant.token)).expect(200)).body.data.attributes as Record<string, any>;

  it('edits a saved template of each type in the designer and saves it, sending only what changed', async () => {
    const types = ['generic', 'loyalty', 'storeCard', 'eventTicket', 'transit'] as const;
    const ids = await Promise.all(
      types.map((templateType) => createTemplate(service, tenant.token, loyaltyTemplate({ name: `${templateType} card`, templateType }))),
    );
    // A transit template's transitType, which the designer does not show, is set through the API (create has no such member).
    await service.api
      .patch(`/api/v1/pass-templates/${ids[4]}`)
      .set(service.auth(tenant.token))
      .send({ passTemplate: { transitType: 'train' } })
      .expect(202);
    await pollUntil(
      () => settledTemplate(service, tenant.token, ids[4]!),
      (a) => a.transitType === 'train' && a.processingStatus === 'processed',
    );
    const patches: Record<string, unknown>[] = [];
    page.on('request', (request) => {
      if (request.method() === 'PATCH' && request.url().includes('/api/v1/pass-templates/')) patches.push(request.postDataJSON());
    });
    for (const [i, templateType] of types.entries()) {
      const id = ids[i]!;
      await page.goto(`${origin}/console/#/templates/${id}`);
      await page.getByRole('heading', { level: 1, name: `${templateType} card` }).waitFor();
      await page.locator('.status-line .badge-processed').waitFor();
      // The form is filled from the stored template before it is edited.
      await pollUntil(
        () => page.getByLabel('Central title').inputValue(),
        (value) => value === 'Coffee Club',
      );
      await page.getByLabel('Central title').fill(`Coffee Club ${templateType}`);
      await page.getByRole('button', { name: 'Save changes' }).click();
      await page.getByText('Saved; the template is being processed.').waitFor();
      const stored = await pollUntil(
        () => settledTemplate(service, tenant.token, id),
        (a) => a.centralTitle === `Coffee Club ${templateType}`,
      );
      expect({ templateType, status: stored.processingStatus ?? 'processed' }).toEqual({ templateType, status: 'processed' });
      expect(stored).toMatchObject({ templateType, name: `${templateType} card`, transitType: templateType === 'transit' ? 'train' : null });
    }
    expect(patches).toEqual(types.map((templateType) => ({ passTemplate: { centralTitle: `Coffee Club ${templateType}` } })));
    // The console's changes are audited as its own (src/http/requestChannel.ts); the test's own API call as the API's.
    const channels = await service.runtime.db.sql.$queryRaw<{ resource_id: string; channel: string; changes: Record<string, unknown> }[]>`
      SELECT resource_id, channel, changes FROM audit_events WHERE operation_id = 'updatePassTemplate' ORDER BY seq`;
    expect(channels.map(({ resource_id, channel }) => [resource_id, channel])).toEqual([[ids[4], 'api'], ...ids.map((id) => [id, 'console'])]);
    expect(channels[1]!.changes).toMatchObject({ centralTitle: { before: 'Coffee Club', after: 'Coffee Club generic' } });
    await checkPage('designer (edited)');
  }, 120_000);

  it('shows the warnings the API computes: the preview’s X-Preview-Warnings and the template’s processingWarnings', async () => {
    // Label and text colours close to the background: a low contrast the API warns about.
    const id = await createTemplate(
      service,
      tenant.token,
      loyaltyTemplate({ name: 'Dim card', colors: { background: '#1A2B3C', label: '#2A3B4C', text: '#FFFFFF' } }),
    );
    expect((await template(id)).processingWarnings).toEqual([expect.objectContaining({ code: 'low_contrast', pointer: '/colors/label' })]);
    await page.goto(`${origin}/console/#/templates/${id}`);
    await page.getByRole('heading', { level: 1, name: 'Dim card' }).waitFor();
    const processing = page.getByRole('list', { name: 'Processing warnings' });
    await processing.getByText(/contrast ratio of/).waitFor();
    expect(await processing.locator('code').allTextContents()).toEqual(['/colors/label']);
    const preview = page.getByRole('list', { name: 'Preview warnings' });
    await preview.getByText(/Text is hard to read on this background/).waitFor();
    expect(await preview.locator('code').allTextContents()).toContain('/colors/label');
    // Fixing the colour in the form clears the preview's warning.
    await page.getByLabel('Label colour').fill('#f5d76e');
    await preview.getByText(/Text is hard to read on this background/).waitFor({ state: 'detached' });
    await checkPage('designer (warnings)');
    await page.setViewportSize({ width: 1366, height: 900 });
    await page.getByLabel('Label colour').fill('#2a3b4c');
    await preview.getByText(/Text is hard to read on this background/).waitFor();
    await screenshots('console-workday-designer', false);
  }, 60_000);

  it('duplicates a template, archives the copy (it moves to Archived and issues no pass) and unarchives it', async () => {
    const id = await createTemplate(service, tenant.token, loyaltyTemplate({ name: 'Karta Łódź' }));
    await settledTemplate(service, tenant.token, id);
    await page.goto(`${origin}/console/#/templates`);
    await page.getByRole('heading', { level: 1, name: 'Templates' }).waitFor();
    await page.getByRole('button', { name: 'Duplicate Karta Łódź', exact: true }).click();
    await page.getByRole('status').getByText('Copied as “Karta Łódź (copy)”.').waitFor();
    const copy = page.getByRole('link', { name: 'Karta Łódź (copy)', exact: true });
    await copy.waitFor();
    const copyId = (await copy.getAttribute('href'))!.split('/').pop()!;
    await settledTemplate(service, tenant.token, copyId);
    await checkPage('templates');

    await page.getByRole('button', { name: 'Archive Karta Łódź (copy)', exact: true }).click();
    await page
      .getByRole('status')
      .getByText(/archived: no new passes from it/)
      .waitFor();
    await copy.waitFor({ state: 'detached' });
    await page.getByRole('button', { name: 'Archived', exact: true }).click();
    await copy.waitFor();
    expect(await page.getByRole('link', { name: 'Karta Łódź', exact: true }).count()).toBe(0);
    await page
      .getByText(/^\s*archived/)
      .first()
      .waitFor();
    await checkPage('templates (archived)');
    await screenshots('console-workday-templates-archived', false);
    const refused = await service.api.post(`/api/v1/passes?passTemplate=${copyId}`).set(service.auth(tenant.token)).send({ pass: {} });
    expect(refused.status).toBe(409);

    await page.getByRole('button', { name: 'Unarchive Karta Łódź (copy)', exact: true }).click();
    await copy.waitFor({ state: 'detached' });
    await page.getByRole('button', { name: 'Current', exact: true }).click();
    await copy.waitFor();
  }, 60_000);

  it('sends a message with %{points} after a confirmation naming its reach; each holder page shows the number', async () => {
    const templateId = await createTemplate(service, tenant.token, loyaltyTemplate({ name: 'Points card' }));
    const passes = await Promise.all(
      [
        ['ada-1', 42],
        ['bob-2', 7],
      ].map(async ([extId, points]) => {
        const pass = await issuePass(service, tenant.token, templateId, { pass: {}, groupTags: ['regulars'] }, { extId: String(extId) });
        await service.api.patch(`/api/v1/loyalty/${pass.id}`).set(service.auth(tenant.token)).send({ overrideBalance: points }).expect(200);
        return pass.id;
      }),
    );
    await page.goto(`${origin}/console/#/batches`);
    await page.getByRole('heading', { level: 1, name: 'Batches' }).waitFor();
    const form = page.getByRole('form', { name: 'Wallet message' });
    // The hint names the placeholder syntax the service fills.
    await form.getByText(/%\{points\} \(its balance\)/).waitFor();
    expect(await form.getByText('{{points}}').count()).toBe(0);
    await form.getByLabel('Message', { exact: true }).fill('You have %{points} points. See you soon!');
    await form.getByLabel('Segment: group tag').fill('regulars');
    await form.getByRole('button', { name: 'Schedule' }).click();
    const batch = page.locator('li.batch').first();
    await batch.getByText('Scheduled', { exact: true }).waitFor();
    await batch.getByText('Reaches 2 passes, 0 in a wallet').waitFor();
    await checkPage('batches (scheduled)');
    await batch.getByRole('button', { name: 'Send now' }).click();
    const dialog = page.getByRole('dialog', { name: 'Send now' });
    await dialog
      .getByText('Send “You have %{points} points. See you soon!” now to 2 passes? None of them is in a wallet: nobody will see it until they add their pass.')
      .waitFor();
    await checkPage('batches (confirm send)');
    await dialog.getByRole('button', { name: 'Send now' }).click();
    await batch.getByText('Done', { exact: true }).waitFor({ timeout: 30_000 });
    await batch.getByText('All 2 recipients got the message. None of them is in a wallet: the passes keep it for when their holders add them.').waitFor();
    await batch.getByText('Reached: 2 passes, 0 in a wallet').waitFor();
    expect(await batch.getByText('completedWithErrors').count()).toBe(0);
    await checkPage('batches (sent)');
    await screenshots('console-workday-batches');
    for (const [i, points] of [42, 7].entries()) {
      await page.goto(`${origin}/passes/${passes[i]}`);
      await page.locator('[data-latest-message]').getByText(`You have ${points} points. See you soon!`).waitFor();
    }
  }, 90_000);

  it('uploads a CSV separated by semicolons with non-Latin names, shows the batch in words and downloads the holders’ links', async () => {
    await createTemplate(service, tenant.token, loyaltyTemplate({ name: 'CSV card' }));
    const files = await mkdtemp(join(tmpdir(), 'console-workday-'));
    const names = ['Łukasz Żółć', 'Дмитрий Шостакович', '山田 太郎'];
    await writeFile(join(files, 'members.csv'), `ext_id;passfield_member\r\n${names.map((name, i) => `pl-${i + 1};${name}`).join('\r\n')}\r\n`);
    await page.goto(`${origin}/console/#/batches`);
    await page.getByRole('heading', { level: 1, name: 'Batches' }).waitFor();
    await page.getByLabel('Template', { exact: true }).selectOption({ label: 'CSV card' });
    await page.getByLabel('CSV file', { exact: true }).setInputFiles(join(files, 'members.csv'));
    await page.getByLabel('Batch name (optional)').fill('Polish members');
    await page.getByRole('button', { name: 'Upload' }).click();
    const batch = page.locator('li.batch', { hasText: 'Polish members' });
    await batch.getByText('Passes created from a CSV file').waitFor();
    await batch.getByText('Done', { exact: true }).waitFor({ timeout: 30_000 });
    await batch.getByText('All 3 rows were applied.').waitFor();
    expect(await page.locator('.batch .badge').allTextContents()).not.toContain('completedWithErrors');
    const [download] = await Promise.all([page.waitForEvent('download'), batch.getByRole('button', { name: /Download the results CSV/ }).click()]);
    const csv = readFileSync((await download.path())!, 'utf8');
    const lines = csv.trim().split(/\r?\n/);
    expect(lines).toHaveLength(4);
    expect(lines.slice(1).map((line) => line.split(',')[2])).toEqual(['pl-1', 'pl-2', 'pl-3']);
    const stored = await service.api.get('/api/v1/passes?search=pl-').set(service.auth(tenant.token)).expect(200);
    expect(stored.body.data.map((p: { attributes: Record<string, unknown> }) => JSON.stringify(p.attributes)).join()).toEqual(
      expect.stringContaining(JSON.stringify(names[0])),
    );
    await checkPage('batches (CSV done)');
  }, 60_000);

  it('the operator manages accounts without working in one: no "Work as", no API key made, an owner invited instead', async () => {
    const keys = async () =>
      ((await service.api.get(`/admin/v1/accounts/${tenant.accountId}/tokens?perPage=100`).set(service.adminAuth()).expect(200)).body.data as unknown[]).length;
    const before = await keys();
    await page.goto(`${origin}/console/`);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByText('Operator of this service').click();
    await page.getByLabel('Administration token').fill(service.adminToken);
    await page.getByRole('button', { name: 'Sign in as operator' }).click();
    await page.getByRole('heading', { level: 1, name: 'Accounts' }).waitFor();
    expect(await page.getByRole('button', { name: /^Work as/ }).count()).toBe(0);
    await page.getByRole('button', { name: 'Invite owner of Coffee Club Ltd' }).click();
    await page.locator('.alert.success code.secret').getByText('#invitation=').waitFor();
    await checkPage('accounts (owner invited)');
    // The operator's pages only: no account navigation.
    expect(await page.getByRole('navigation', { name: 'Main' }).getByRole('link').allTextContents()).toEqual(['Accounts']);
    expect(await keys()).toBe(before);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { level: 1, name: 'Sign in to the console' }).waitFor();
    await signInOwner();
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
  }, 60_000);

  it('edits a pass’s field values under their labels, sending only the changed one', async () => {
    const templateId = await createTemplate(service, tenant.token, loyaltyTemplate({ name: 'Values card' }));
    const pass = await issuePass(service, tenant.token, templateId, { pass: { member: 'Ada Lovelace', tier: 'Gold' } }, { extId: 'values-1' });
    const patches: unknown[] = [];
    const listener = (request: import('playwright-core').Request) => {
      if (request.method() === 'PATCH' && request.url().endsWith(`/api/v1/passes/${pass.id}`)) patches.push(request.postDataJSON());
    };
    page.on('request', listener);
    await page.goto(`${origin}/console/#/passes/${pass.id}`);
    await page.getByRole('heading', { level: 1, name: 'Pass values-1' }).waitFor();
    // The values table names fields by their template labels, not their ids.
    const values = page.locator('dl.values');
    await values.locator('dt', { hasText: 'Member since' }).waitFor();
    expect(await values.locator('dt').allTextContents()).toEqual(expect.arrayContaining(['Points', 'Member', 'Tier', 'Member since', 'Terms']));
    expect(await values.locator('dt').allTextContents()).not.toContain('member');
    const form = page.getByRole('form', { name: 'Field values' });
    expect(await form.getByLabel('Member', { exact: true }).inputValue()).toBe('Ada Lovelace');
    expect(await form.getByLabel('Points', { exact: true }).count()).toBe(0);
    await form.getByLabel('Member', { exact: true }).fill('Ada King');
    await form.getByRole('button', { name: 'Save values' }).click();
    await form.getByRole('status').getByText('Saved.', { exact: false }).waitFor();
    await values.locator('dd', { hasText: 'Ada King' }).waitFor();
    page.off('request', listener);
    expect(patches).toEqual([{ pass: { member: 'Ada King' } }]);
    const stored = (await service.api.get(`/api/v1/passes/${pass.id}`).set(service.auth(tenant.token)).expect(200)).body.data.attributes;
    expect(stored.passContent).toMatchObject({ member: 'Ada King', tier: 'Gold' });
    await checkPage('pass (values saved)');
    await screenshots('console-workday-pass', false);
  }, 60_000);

  it('shows a balance change, before → after, in the pass’s History and on the Audit log page filtered by the pass; exports it as CSV', async () => {
    const templateId = await createTemplate(service, tenant.token, loyaltyTemplate({ name: 'History card' }));
    const pass = await issuePass(service, tenant.token, templateId, { pass: { member: 'Ada Lovelace' } }, { extId: 'history-1' });
    // A change of the pass's values through the API: filed under `passes`, the balance under `loyalty`; History shows both.
    await service.api
      .patch(`/api/v1/passes/${pass.id}`)
      .set(service.auth(tenant.token))
      .send({ pass: { tier: 'Silver' } })
      .expect(200);
    await page.goto(`${origin}/console/#/passes/${pass.id}`);
    await page.getByRole('heading', { level: 1, name: 'Pass history-1' }).waitFor();
    const points = page.getByRole('form', { name: 'Change points' });
    await points.getByLabel('Or set the balance to').fill('25');
    await points.getByRole('button', { name: 'Change points' }).click();
    await points.getByRole('status').getByText('Points changed.').waitFor();
    const history = page.getByRole('list', { name: 'History of the pass, newest first' });
    const change = history.locator('li', { hasText: 'update loyalty' });
    await change.getByText('balance: 0 → 25').waitFor();
    // The person who made it, by name and address.
    expect(await change.locator('.audit-who').textContent()).toBe(`By Olga Owner <${owner.email}> in the console`);
    // Newest first, the two resource types merged: the console's balance change, the API's value change, the issue.
    expect(await history.locator('.audit-head code').allTextContents()).toEqual(['updateLoyalty', 'updatePass', 'createPass']);
    await history.locator('li', { hasText: 'update pass' }).getByText('content.tier: Bronze → Silver').waitFor();
    await checkPage('pass (history)');
    await page.getByRole('region', { name: 'History' }).screenshot({ path: resolve(artifacts, 'console-workday-history.png') });

    await page.getByRole('link', { name: 'Open in the audit log' }).click();
    await page.getByRole('heading', { level: 1, name: 'Audit log' }).waitFor();
    expect(await page.getByLabel('Resource id').inputValue()).toBe(pass.id);
    const events = page.getByRole('list', { name: 'Audit events, newest first' });
    const logged = events.locator('li', { hasText: 'update loyalty' });
    await logged.getByText('balance: 0 → 25').waitFor();
    expect(await events.locator('.audit-head code').allTextContents()).toEqual(['updateLoyalty', 'updatePass', 'createPass']);
    // Each event's target links to its console page.
    expect(await logged.getByRole('link', { name: `loyalty ${pass.id}` }).getAttribute('href')).toBe(`#/passes/${pass.id}`);
    await checkPage('audit log (filtered by a pass)');
    await screenshots('console-workday-audit-log');
    // The export carries the console's credentials and the filters.
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export CSV' }).click()]);
    const rows = readFileSync((await download.path())!, 'utf8')
      .trim()
      .split(/\r?\n/);
    expect(rows).toHaveLength(4);
    expect(rows[1]).toContain('updateLoyalty');
    // Choosing an event's actor filters by the person's id.
    await logged.getByRole('button', { name: `Olga Owner <${owner.email}> (show only this actor’s events)` }).click();
    expect(await page.getByLabel('Actor', { exact: true }).inputValue()).toBe(owner.personId);
    await logged.getByText('balance: 0 → 25').waitFor();
    await page.getByLabel('Actor', { exact: true }).fill('');
    // 25 more balance changes: the pass's events fill more than a page, "Load more" follows the cursor.
    for (let i = 1; i <= 25; i++) await service.api.patch(`/api/v1/loyalty/${pass.id}`).set(service.auth(tenant.token)).send({ balance: 1 }).expect(200);
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Audit log' }).waitFor();
    await pollUntil(
      () => events.locator('li.audit-event').count(),
      (n) => n === 25,
    );
    await page.getByRole('button', { name: 'Load more' }).click();
    await pollUntil(
      () => events.locator('li.audit-event').count(),
      (n) => n === 28,
    );
    expect(await events.locator('.audit-head code').last().textContent()).toBe('createPass');
    expect(await page.getByRole('button', { name: 'Load more' }).count()).toBe(0);
  }, 60_000);

  it('shows the API’s 413 for a too-large image at the image field, naming the file, its size and the size allowed', async () => {
    const files = await mkdtemp(join(tmpdir(), 'console-workday-'));
    await writeFile(join(files, 'huge-logo.png'), Buffer.alloc(1536 * 1024, 7));
    await page.goto(`${origin}/console/#/templates/new`);
    await page.getByRole('heading', { level: 1, name: 'New template' }).waitFor();
    await page.getByLabel('Name', { exact: true }).fill('Huge logo card');
    const logo = page.getByLabel('Logo', { exact: true });
    await logo.setInputFiles(join(files, 'huge-logo.png'));
    await page.getByAltText('Logo as uploaded').waitFor({ state: 'attached' });
    await page.getByRole('button', { name: 'Create template' }).click();
    await pollUntil(
      () => logo.getAttribute('aria-invalid'),
      (invalid) => invalid === 'true',
    );
    const errorId = ((await logo.getAttribute('aria-describedby')) ?? '').split(' ').find((ref) => ref.endsWith('-error'))!;
    expect(await page.locator(`[id="${errorId}"]`).textContent()).toMatch(
      /^huge-logo\.png has 1\.5 MB\. The template is [\d,]+ bytes; at most 1,048,576 bytes are accepted\. .*about 774,144 bytes: send smaller PNG images\.$/,
    );
    // Not a banner: the error is at its field only.
    expect(await page.getByRole('alert').count()).toBe(0);
    expect(page.url()).toMatch(/#\/templates\/new$/);
    await checkPage('designer (image too large)');
  }, 60_000);

  it('creates an entity on the account page and a reader for it on the readers page', async () => {
    await page.goto(`${origin}/console/`);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByText('Operator of this service').click();
    await page.getByLabel('Administration token').fill(service.adminToken);
    await page.getByRole('button', { name: 'Sign in as operator' }).click();
    await page.getByRole('link', { name: 'Coffee Club Ltd' }).click();
    // The Apple certificate's expiry, and that the test certificates are not Apple's: passes would not open on iPhones.
    const apple = (await service.api.get(`/admin/v1/accounts/${tenant.accountId}/apple-configurations`).set(service.adminAuth()).expect(200)).body.data[0]
      .attributes;
    await page.getByText('Certificate expires').waitFor();
    expect(await page.locator('time', { hasText: new Date(apple.certificate.notAfter).getFullYear().toString() }).count()).toBeGreaterThan(0);
    expect(apple.wwdrCertificate.isAppleWwdrG4).toBe(false);
    await page.getByText('Development certificate: its passes open in tooling but not on iPhones.').waitFor();
    const entities = page.getByRole('form', { name: 'Create an entity' });
    await entities.getByLabel('Entity name').fill('Camden');
    await entities.getByRole('button', { name: 'Create entity' }).click();
    await page.locator('li', { hasText: 'Camden' }).waitFor();
    await checkPage('account (entity created)');
    const listed = await service.api.get('/api/v1/entities?perPage=100').set(service.auth(tenant.token)).expect(200);
    const camden = listed.body.data.find((e: { attributes: { name: string } }) => e.attributes.name === 'Camden');
    expect(camden).toBeDefined();

    // The account's owner adds the reader.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await signInOwner();
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Readers & scans' }).click();
    await page.getByText('Add a reader to Camden').click();
    const form = page.getByRole('form', { name: 'Add a reader to Camden' });
    await form.getByLabel('Reader id').fill('till 1');
    await form.getByLabel('Reader name').fill('Camden till');
    await form.getByLabel('Reader password').fill('correct horse battery');
    await form.getByLabel('May add points').check();
    await form.getByRole('button', { name: 'Add reader' }).click();
    // The API's refusal of the id is shown at its field.
    await pollUntil(
      () => form.getByLabel('Reader id').getAttribute('aria-invalid'),
      (invalid) => invalid === 'true',
    );
    await checkPage('readers (reader refused)');
    await form.getByLabel('Reader id').fill('camden-till-1');
    await form.getByRole('button', { name: 'Add reader' }).click();
    await page.getByText('camden-till-1', { exact: true }).waitFor();
    const readers = await service.api.get(`/api/v1/entities/${camden.id}/readers`).set(service.auth(tenant.token)).expect(200);
    expect(readers.body.data.map((r: { id: string; attributes: Record<string, unknown> }) => [r.id, r.attributes.name, r.attributes.addPointsEnabled])).toEqual(
      [['camden-till-1', 'Camden till', true]],
    );
    await checkPage('readers (reader added)');
  }, 60_000);
});
