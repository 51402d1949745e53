/**
 * The docs portal (GET /docs, the Redoc page built from the contract) opened in a real headless
 * Chromium: every tag of the contract is in the side menu, an operation renders with its method
 * and path, search finds "loyalty", and nothing is fetched from anywhere but this service (every
 * other request is blocked, so the page is shown as it is offline). A full-page screenshot is
 * saved to test/artifacts/docs.png.
 *
 * Needs Debian's `chromium` (`.ci/run` installs it; CHROMIUM_PATH overrides /usr/bin/chromium);
 * without it the file is skipped with a warning saying how to install it. Runs in the pglite
 * project only: the database plays no part in the page.
 */
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { loadApiDocument } from '../src/app.ts';
import { documentOperations, type OpenApiDocument } from '../src/http/routes.ts';
import { testDatabaseKind } from './support/testDatabase.ts';
import { startTestService, type TestService } from './support/testService.ts';
import { launchChromium } from './support/chromium.ts';

const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const screenshotPath = resolve(import.meta.dirname, 'artifacts', 'docs.png');

const document = loadApiDocument() as OpenApiDocument & { info: { title: string }; tags: { name: string }[] };
const tagNames = document.tags.map((tag) => tag.name);
const operations = documentOperations(document).map((op) => ({
  ...op,
  ...(document.paths[op.path]![op.method] as { summary: string; tags: string[] }),
}));

let skipReason: string | undefined;
if (testDatabaseKind() !== 'pglite') skipReason = 'runs in the pglite project only';
else if (!existsSync(chromiumPath)) {
  skipReason = `no Chromium at ${chromiumPath}`;
  console.warn(
    `Skipping the docs portal browser test: no Chromium at ${chromiumPath}. ` +
      `Install it with 'apt-get install -y --no-install-recommends chromium' (or set CHROMIUM_PATH).`,
  );
}

(skipReason ? describe.skip : describe)(`docs portal in Chromium${skipReason ? ` (skipped: ${skipReason})` : ''}`, () => {
  let service: TestService;
  let server: Server;
  let origin: string;
  let browser: Browser;
  let page: Page;
  /** Every request the page tried to make off this service (all blocked). */
  const offService: string[] = [];

  beforeAll(async () => {
    service = await startTestService();
    server = service.app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    browser = await launchChromium(chromiumPath);
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    context.setDefaultTimeout(10_000);
    await context.route('**/*', (route) => {
      const url = route.request().url();
      if (new URL(url).origin === origin) return route.continue();
      offService.push(url);
      return route.abort('blockedbyclient');
    });
    page = await context.newPage();
    await page.goto(`${origin}/docs`, { timeout: 20_000 });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    if (server) await new Promise((r) => server.close(r));
    await service?.close();
  });

  const menu = (): Locator => page.locator('[data-component-name="Menu/Menu"]');

  it('lists every tag of the contract in the side menu, in order', async () => {
    expect(tagNames.length).toBeGreaterThan(0);
    await menu().getByRole('link', { name: tagNames[0], exact: true }).waitFor();
    const labels = await menu().getByTestId('menu-item-label').allInnerTexts();
    expect(labels.filter((label) => tagNames.includes(label))).toEqual(tagNames);
  });

  it('renders an operation (createPass) with its summary, method and path', async () => {
    const op = operations.find((candidate) => candidate.operationId === 'createPass')!;
    await menu().getByRole('link', { name: op.tags[0], exact: true }).click();
    await menu().getByRole('link', { name: op.summary }).click();
    const heading = page.getByRole('heading', { name: op.summary });
    await heading.waitFor();
    const section = page.locator('[data-item-kind="httpItem"]').filter({ has: heading });
    await section.getByText(op.path, { exact: true }).first().waitFor();
    await section.getByText(op.method.toUpperCase(), { exact: true }).first().waitFor();
  });

  it('finds the loyalty operations when searching for "loyalty"', async () => {
    const loyaltyOperations = operations.filter((op) => op.tags.includes('Loyalty'));
    expect(loyaltyOperations.length).toBeGreaterThan(0);
    await page.getByTestId('search-trigger').click();
    await page.getByPlaceholder('Search docs').fill('loyalty');
    const results = page.locator('[data-component-name="Search/SearchItem"]');
    await results.first().waitFor();
    const texts = await results.allInnerTexts();
    for (const op of loyaltyOperations) {
      const words = [op.method.toUpperCase(), op.path, op.summary].map((text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
      expect(texts).toContainEqual(expect.stringMatching(new RegExp(words.join('\\s+'))));
    }
    await page.keyboard.press('Escape');
  });

  it('saves a full-page screenshot of the opening page', async () => {
    await page.goto(`${origin}/docs`, { timeout: 20_000 });
    await page.getByRole('heading', { name: document.info.title }).first().waitFor();
    await page.getByTestId('search-trigger').filter({ hasText: 'Search' }).waitFor(); // the search index is built
    await mkdir(resolve(screenshotPath, '..'), { recursive: true });
    await page.screenshot({ path: screenshotPath, fullPage: true });
    expect(existsSync(screenshotPath)).toBe(true);
  });

  // Last: it judges the requests of every test above.
  it('asked for nothing but this service (works offline)', () => {
    // Redoc 3 draws its badge logo from cdn.redoc.ly; the page's CSP (img-src 'self' data:)
    // stops that before it leaves the browser, so nothing at all may show up here.
    expect(offService).toEqual([]);
  });
});
