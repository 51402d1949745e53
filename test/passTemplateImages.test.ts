/**
 * Template images, as createPassTemplate's processing fetches and draws them: `data:` URLs and
 * http(s) URLs (a local image server on loopback, which the embedded default allows over http),
 * PNG and JPEG in, PNG at Apple's sizes out; every way an image can fail makes the template
 * `failed` with a processing error naming the image. Through HTTP, with the job workers.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { ICON_PNG } from './support/images.ts';
import { settledTemplate } from './support/passes.ts';
import { startTestService, type TestService } from './support/testService.ts';

let service: TestService;
let token: string;
let server: Server;
let origin: string;
let hits: string[];
let big: Buffer;

const jpeg = await sharp({ create: { width: 400, height: 200, channels: 3, background: '#336699' } })
  .jpeg()
  .toBuffer();
const gif = await sharp({ create: { width: 10, height: 10, channels: 3, background: '#000' } })
  .gif()
  .toBuffer();

beforeAll(async () => {
  service = await startTestService({ jobs: 'work' });
  ({ token } = await service.createAccount());
  big = Buffer.alloc(6 * 1024 * 1024, 7);
  hits = [];
  server = createServer((req, res) => {
    hits.push(req.url ?? '');
    const path = req.url ?? '';
    if (path === '/logo.jpg') return res.writeHead(200, { 'content-type': 'image/jpeg' }).end(jpeg);
    if (path === '/logo.gif') return res.writeHead(200, { 'content-type': 'image/gif' }).end(gif);
    if (path === '/big.png') return res.writeHead(200, { 'content-type': 'image/png' }).end(big);
    if (path === '/moved.png') return res.writeHead(302, { location: '/logo.jpg' }).end();
    const loop = /^\/loop(\d+)\.png$/.exec(path);
    if (loop) return res.writeHead(302, { location: `/loop${Number(loop[1]) + 1}.png` }).end();
    if (path === '/slow.png') return setTimeout(() => res.writeHead(200).end(jpeg), 60_000).unref();
    res.writeHead(404).end('not here');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await service.close();
});

/** Creates a store card with these images and waits for processing; returns its attributes. */
async function processWith(images: Record<string, string>) {
  const res = await service.api
    .post('/api/v1/pass-templates')
    .set(service.auth(token))
    .send({ passTemplate: { name: 'Images', templateType: 'storeCard', images: { icon: ICON_PNG, ...images } } })
    .expect(202);
  return { id: res.body.id as string, attributes: await settledTemplate(service, token, res.body.id) };
}

const stored = (templateId: string) =>
  service.database.db.prisma.passTemplateImage.findMany({
    where: { templateId },
    orderBy: { name: 'asc' },
    select: { name: true, width: true, height: true, png: true },
  });

it('fetches an http image on loopback once, follows a redirect, and stores a JPEG as PNG at Apple’s sizes', async () => {
  hits = [];
  const { id, attributes } = await processWith({ logo: `${origin}/moved.png`, banner: `${origin}/logo.jpg` });
  expect(attributes.processingStatus).toBeUndefined();
  expect(hits.sort()).toEqual(['/logo.jpg', '/logo.jpg', '/moved.png']);
  const images = await stored(id);
  expect(images.map((i) => [i.name, i.width, i.height])).toEqual([
    ['icon.png', 29, 29],
    ['icon@2x.png', 58, 58],
    ['icon@3x.png', 87, 87],
    ['logo.png', 100, 50],
    ['logo@2x.png', 200, 100],
    ['logo@3x.png', 300, 150],
    ['strip.png', 375, 144],
    ['strip@2x.png', 750, 288],
    ['strip@3x.png', 1125, 432],
  ]);
  expect((await sharp(images[3]!.png).metadata()).format).toBe('png');
});

it.each([
  ['an image that is not found', () => `${origin}/missing.png`, 'image_unavailable', 'answered 404'],
  ['a GIF', () => `${origin}/logo.gif`, 'image_not_png_or_jpeg', 'gif'],
  ['an image over 5 MB', () => `${origin}/big.png`, 'image_too_large', 'larger than'],
  ['more than 3 redirects', () => `${origin}/loop1.png`, 'image_unavailable', 'More than 3 redirects'],
  ['a private address', () => 'https://10.1.2.3/logo.png', 'image_unavailable', 'private or reserved address'],
  ['a link-local address (cloud metadata)', () => 'https://169.254.169.254/latest/meta-data/logo.png', 'image_unavailable', 'private or reserved address'],
  ['bytes that are no image', () => `data:image/png;base64,${Buffer.from('not an image at all').toString('base64')}`, 'image_unreadable', 'cannot be read'],
])('fails the template for %s, naming the image', async (_name, url, code, detail) => {
  const { attributes } = await processWith({ logo: url() });
  expect(attributes.processingStatus).toBe('failed');
  expect(attributes.processingErrors).toEqual([{ code, detail: expect.stringContaining(detail), pointer: '/images/logo' }]);
});

it('gives up on an image that does not arrive within the time budget of an outbound request (OUTBOUND_TIMEOUT_MS, 5 s), saying what ran out', async () => {
  const started = Date.now();
  const { attributes } = await processWith({ logo: `${origin}/slow.png` });
  expect(attributes.processingErrors).toEqual([
    {
      code: 'image_unavailable',
      detail: `images.logo: ${origin}/slow.png cannot be fetched: ${origin}: the time budget of 5000 ms ran out while waiting for the response.`,
      pointer: '/images/logo',
    },
  ]);
  expect(Date.now() - started).toBeLessThan(15_000);
}, 30_000);

it('refuses http images on loopback when the service runs on PostgreSQL (production)', async () => {
  const production = await startTestService({ jobs: 'work', config: { databaseUrl: 'postgresql://unused.invalid/db' } });
  try {
    const account = await production.createAccount();
    const res = await production.api
      .post('/api/v1/pass-templates')
      .set(production.auth(account.token))
      .send({ passTemplate: { name: 'Images', templateType: 'storeCard', images: { icon: ICON_PNG, logo: `${origin}/logo.jpg` } } })
      .expect(202);
    const attributes = await settledTemplate(production, account.token, res.body.id);
    expect(attributes.processingErrors).toEqual([{ code: 'image_unavailable', detail: expect.stringContaining('must use https:'), pointer: '/images/logo' }]);
  } finally {
    await production.close();
  }
});
