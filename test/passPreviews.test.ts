/**
 * Pass previews: getPassTemplatePreview, getPassPreview and createPassTemplatePreview
 * through HTTP on a real database, responses validated against the contract.
 *
 * - Visual: for each Apple style the service emits and each Google card type, the PNG of a fixed
 *   design (test/support/previewDesigns.ts) is compared with the committed reference in
 *   test/references/previews/ with pixelmatch. `UPDATE_REFERENCES=1` rewrites the references
 *   (then look at them). A shift of the layout by a few points fails the comparison (tested).
 * - Text: the SVG's text layer (invisible `<text>` elements placed where satori laid each text
 *   out, see src/wallet/preview/renderPreview.ts) holds every label and value of the design, in
 *   its region, and the regions are stacked as the wallet stacks them.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { PNG } from 'pngjs';
import sharp from 'sharp';
import type { Response, Test } from 'supertest';
import { startTestService, type TestService } from './support/testService.ts';
import { createTemplate, expectError, issuePass } from './support/passes.ts';
import { EVENT_TICKET_DESIGN, GENERIC_DESIGN, LOYALTY_DESIGN, STORE_CARD_DESIGN, TRANSIT_DESIGN } from './support/previewDesigns.ts';
import { ICON_PNG } from './support/images.ts';
import { diffRatio, expectMatchesReference, MAX_DIFF_RATIO, REFERENCES } from './support/previewReferences.ts';

let service: TestService;
let tenant: { accountId: string; token: string };
let other: { accountId: string; token: string };

beforeAll(async () => {
  service = await startTestService({ jobs: 'work' });
  tenant = await service.createAccount('Coffee Club Ltd');
  other = await service.createAccount('Other Tenant');
});
afterAll(() => service.close());

/** Buffers any body (SVG and PNG arrive as bytes). */
function raw(test: Test): Test {
  return test.buffer(true).parse((res, callback) => {
    const chunks: Buffer[] = [];
    res.on('data', (chunk: Buffer) => chunks.push(chunk));
    res.on('end', () => callback(null, Buffer.concat(chunks)));
  });
}

function preview(passTemplate: unknown, query = '', accept = 'image/svg+xml'): Test {
  return raw(service.api.post(`/api/v1/pass-templates/preview${query}`).set(service.auth(tenant.token)).set('Accept', accept).send({ passTemplate }));
}

interface LaidOutText {
  region: string;
  pointer: string;
  part: string;
  text: string;
  y: number;
}

/** The text layer of a preview SVG: every `<text>` element with its data attributes. */
function texts(svg: string): LaidOutText[] {
  const unescapeXml = (s: string) =>
    s
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&quot;/g, '"')
      .replace(/&amp;/g, '&');
  return [...svg.matchAll(/<text ([^>]*)>([^<]*)<\/text>/g)].map(([, attributes, content]) => {
    const attribute = (name: string) => unescapeXml(new RegExp(`${name}="([^"]*)"`).exec(attributes!)?.[1] ?? '');
    return {
      region: attribute('data-region'),
      pointer: attribute('data-pointer'),
      part: attribute('data-part'),
      text: unescapeXml(content!),
      y: Number(attribute('y')),
    };
  });
}

const APPLE_CASES = [
  ['apple-storeCard', LOYALTY_DESIGN],
  ['apple-storeCard-gift', STORE_CARD_DESIGN],
  ['apple-eventTicket', EVENT_TICKET_DESIGN],
  ['apple-generic', GENERIC_DESIGN],
  ['apple-boardingPass', TRANSIT_DESIGN],
] as const;
const GOOGLE_CASES = [
  ['google-loyalty', LOYALTY_DESIGN],
  ['google-eventTicket', EVENT_TICKET_DESIGN],
  ['google-transit', TRANSIT_DESIGN],
  ['google-generic', GENERIC_DESIGN],
] as const;

describe('createPassTemplatePreview: visual references', () => {
  it.each(APPLE_CASES)('draws the Apple %s pass as its reference', async (name, design) => {
    const res = await preview(design, '?scale=1', 'image/png').expect(200);
    expect(res.headers['content-type']).toBe('image/png');
    expectMatchesReference(name, res.body);
  });

  it.each(GOOGLE_CASES)('draws the %s card as its reference', async (name, design) => {
    const res = await preview(design, '?platform=google&scale=1', 'image/png').expect(200);
    expectMatchesReference(name, res.body);
  });

  it('draws the back of an Apple pass as its reference', async () => {
    const res = await preview(LOYALTY_DESIGN, '?side=back&scale=1', 'image/png').expect(200);
    expectMatchesReference('apple-storeCard-back', res.body);
  });

  it('fails the comparison when the layout moves by four points', async () => {
    const res = await preview(LOYALTY_DESIGN, '?scale=1', 'image/png').expect(200);
    const { width, height } = PNG.sync.read(res.body);
    const moved = await sharp(res.body).extend({ top: 4, background: '#1A2B3C' }).extract({ left: 0, top: 0, width, height }).png().toBuffer();
    expect(diffRatio(moved, readFileSync(resolve(REFERENCES, 'apple-storeCard.png')))).toBeGreaterThan(MAX_DIFF_RATIO * 10);
  });

  it('draws at 2x and 3x', async () => {
    const [one, two, three] = await Promise.all(['1', '2', '3'].map((scale) => preview(LOYALTY_DESIGN, `?scale=${scale}`, 'image/png').expect(200)));
    const widths = [one!, two!, three!].map((res: Response) => PNG.sync.read(res.body).width);
    expect(widths).toEqual([320, 640, 960]);
  });
});

describe('createPassTemplatePreview: texts in their regions', () => {
  const cases = [LOYALTY_DESIGN, STORE_CARD_DESIGN, EVENT_TICKET_DESIGN, GENERIC_DESIGN, TRANSIT_DESIGN];
  it.each(cases.map((design) => [design.templateType, design] as const))(
    'puts every label and value of the %s design in its region (Apple front)',
    async (_, design) => {
      const svg = (await preview(design).expect(200)).body.toString();
      const laidOut = texts(svg);
      const region = { header: 'top', central: 'primary', details: 'secondary' } as const;
      for (const [area, slots] of Object.entries(design.fields)) {
        if (area === 'back') continue;
        for (const [slot, field] of Object.entries(slots as Record<string, { label: string; defaultValue: string }>)) {
          const pointer = `/fields/${area}/${slot}`;
          const at = laidOut.filter((t) => t.pointer === pointer);
          expect(at).toEqual(
            expect.arrayContaining([
              expect.objectContaining({
                region: region[area as keyof typeof region],
                part: 'label',
                text: expect.stringMatching(new RegExp(`^${field.label}$`, 'i')),
              }),
              expect.objectContaining({ region: region[area as keyof typeof region], part: 'value', text: field.defaultValue }),
            ]),
          );
        }
      }
      expect(laidOut).toContainEqual(expect.objectContaining({ region: 'top', part: 'logoText', text: design.centralTitle }));
      // The wallet stacks the regions: top row, primary, secondary, barcode.
      const lowest = (r: string) => Math.max(...laidOut.filter((t) => t.region === r).map((t) => t.y));
      const highest = (r: string) => Math.min(...laidOut.filter((t) => t.region === r).map((t) => t.y));
      expect(lowest('top')).toBeLessThan(highest('primary'));
      expect(lowest('primary')).toBeLessThan(highest('secondary'));
    },
  );

  it('puts the back fields on the back', async () => {
    const laidOut = texts((await preview(TRANSIT_DESIGN, '?side=back').expect(200)).body.toString());
    expect(laidOut).toEqual([
      expect.objectContaining({ region: 'back', pointer: '/fields/back/one', part: 'label', text: 'Conditions' }),
      expect.objectContaining({ region: 'back', pointer: '/fields/back/one', part: 'value', text: 'Valid on the 09:14 service only.' }),
    ]);
  });

  it('puts the Google card title, header, points and text modules in their regions', async () => {
    const laidOut = texts((await preview(LOYALTY_DESIGN, '?platform=google').expect(200)).body.toString());
    expect(laidOut).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ region: 'title', text: 'Coffee Club' }),
        expect.objectContaining({ region: 'points', part: 'value', text: '120' }),
        expect.objectContaining({ region: 'textModules', pointer: '/fields/central/one', part: 'value', text: 'Ada Lovelace' }),
        expect.objectContaining({ region: 'textModules', pointer: '/fields/details/two', part: 'label', text: 'Since' }),
      ]),
    );
    const generic = texts((await preview(GENERIC_DESIGN, '?platform=google').expect(200)).body.toString());
    expect(generic).toContainEqual(expect.objectContaining({ region: 'header', pointer: '/fields/central/one', text: 'Katherine Johnson' }));
  });
});

describe('createPassTemplatePreview: warnings and errors', () => {
  it('names each problem in X-Preview-Warnings and in the JSON variant', async () => {
    const design = {
      ...STORE_CARD_DESIGN,
      colors: { background: '#FFFFFF', label: '#BBBBBB', text: '#000000' },
      images: { logo: STORE_CARD_DESIGN.images.logo },
      fields: {
        ...STORE_CARD_DESIGN.fields,
        central: {
          one: { id: 'balance', label: 'Balance', defaultValue: 'A balance far too long to fit on one line of the strip' },
          two: { id: 'x', label: 'X', defaultValue: 'Y' },
        },
      },
    };
    const svg = await preview(design).expect(200);
    const header = svg.headers['x-preview-warnings'];
    expect(header).toContain('value_truncated;pointer="/fields/central/one"');
    expect(header).toContain('image_missing;pointer="/images/icon"');
    expect(header).toContain('image_missing;pointer="/images/banner"');
    expect(header).toContain('contrast_low;pointer="/colors/label"');
    expect(header).toContain('fields_hidden;pointer="/fields/central/two"');
    expect(header).not.toContain('/colors/text');

    const json = await service.api
      .post('/api/v1/pass-templates/preview')
      .set(service.auth(tenant.token))
      .set('Accept', 'application/vnd.api+json')
      .send({ passTemplate: design })
      .expect(200);
    expect(json.headers['content-type']).toMatch(/^application\/vnd\.api\+json/);
    const { attributes } = json.body.data;
    expect(attributes).toMatchObject({ platform: 'apple', side: 'front', language: 'en', width: 320 });
    expect(attributes.svg).toMatch(/^<svg /);
    expect(attributes.warnings).toContainEqual(
      expect.objectContaining({ code: 'contrast_low', pointer: '/colors/label', detail: expect.stringContaining('4.5:1') }),
    );
    expect(attributes.warnings).toHaveLength(5);
  });

  it('draws a barcode without a message crossed out, with a warning', async () => {
    const empty = await preview({ ...GENERIC_DESIGN, barcode: { enabled: true, type: 'pdf417', source: 'custom' } }).expect(200);
    expect(empty.headers['x-preview-warnings']).toBe('barcode_invalid;pointer="/barcode/value"');
    const google = await preview({ ...GENERIC_DESIGN, barcode: { enabled: true, type: 'qr', source: 'custom' } }, '?platform=google').expect(200);
    expect(google.headers['x-preview-warnings']).toBe('barcode_invalid;pointer="/barcode/value"');
  });

  it('answers 400 naming the member for a body create refuses, and for an image that cannot be read', async () => {
    const missing = await service.api
      .post('/api/v1/pass-templates/preview')
      .set(service.auth(tenant.token))
      .send({ passTemplate: { name: 'No type' } });
    expect(missing.status).toBe(400);
    expect(JSON.stringify(missing.body.errors)).toContain('templateType');
    const unreadable = await service.api
      .post('/api/v1/pass-templates/preview')
      .set(service.auth(tenant.token))
      .send({ passTemplate: { ...GENERIC_DESIGN, images: { icon: ICON_PNG, logo: 'data:image/png;base64,bm90IGEgcG5n' } } });
    expectError(unreadable, 400, 'validation_failed', { pointer: '/passTemplate/images/logo' });
    const lang = await service.api.post('/api/v1/pass-templates/preview?lang=fr').set(service.auth(tenant.token)).send({ passTemplate: LOYALTY_DESIGN });
    expectError(lang, 400, 'validation_failed', { parameter: 'lang' });
  });

  it('stores nothing and needs an API key', async () => {
    await preview(GENERIC_DESIGN).expect(200);
    const list = await service.api.get('/api/v1/pass-templates').set(service.auth(tenant.token)).expect(200);
    expect(list.body.data).toHaveLength(0);
    await service.api.post('/api/v1/pass-templates/preview').send({ passTemplate: GENERIC_DESIGN }).expect(401);
  });
});

describe('getPassTemplatePreview and getPassPreview', () => {
  let templateId: string;
  beforeAll(async () => {
    templateId = await createTemplate(service, tenant.token, LOYALTY_DESIGN);
  });

  const get = (path: string, token = tenant.token) => raw(service.api.get(path).set(service.auth(token)));

  it('draws the processed template with an entity tag, and answers 304 while it is current', async () => {
    const res = await get(`/api/v1/pass-templates/${templateId}/preview`).expect(200);
    expect(res.headers['content-type']).toMatch(/^image\/svg\+xml/);
    const etag = res.headers.etag as string;
    expect(etag).toMatch(/^"preview-/);
    expect(texts(res.body.toString())).toContainEqual(expect.objectContaining({ pointer: '/fields/central/one', part: 'value', text: 'Ada Lovelace' }));
    await get(`/api/v1/pass-templates/${templateId}/preview`).set('If-None-Match', etag).expect(304);
    const png = await get(`/api/v1/pass-templates/${templateId}/preview?scale=1`).set('Accept', 'image/png').set('If-None-Match', etag).expect(200);
    expect(png.headers.etag).not.toBe(etag);
    expectMatchesReference('apple-storeCard', png.body);
  });

  it('takes the language from lang, then Accept-Language, then the default', async () => {
    const labels = async (res: Response) => texts(res.body.toString()).find((t) => t.pointer === '/fields/header/one' && t.part === 'label')?.text;
    expect(await labels(await get(`/api/v1/pass-templates/${templateId}/preview?lang=de`).expect(200))).toBe('PUNKTE');
    expect(await labels(await get(`/api/v1/pass-templates/${templateId}/preview`).set('Accept-Language', 'fr;q=0.9, de;q=0.8').expect(200))).toBe('PUNKTE');
    expect(await labels(await get(`/api/v1/pass-templates/${templateId}/preview`).set('Accept-Language', 'fr').expect(200))).toBe('POINTS');
    expectError(await service.api.get(`/api/v1/pass-templates/${templateId}/preview?lang=fr`).set(service.auth(tenant.token)), 400, 'validation_failed', {
      parameter: 'lang',
    });
  });

  it('answers 404 for another account template and 409 for one not processed', async () => {
    await service.api.get(`/api/v1/pass-templates/${templateId}/preview`).set(service.auth(other.token)).expect(404);
    const failed = await createTemplate(service, tenant.token, { ...GENERIC_DESIGN, images: {} }, true);
    expectError(await service.api.get(`/api/v1/pass-templates/${failed}/preview`).set(service.auth(tenant.token)), 409, 'template_not_processed');
  });

  it('draws a pass with its values, points, barcode and latest message', async () => {
    const pass = await issuePass(service, tenant.token, templateId, {
      pass: { member: 'Grace Hopper', tier: 'Platinum', barcode: { enabled: true, displayText: true } },
    });
    await service.api
      .patch(`/api/v1/loyalty/${pass.id}`)
      .set(service.auth(tenant.token))
      .send({ loyalty: { points: 340 } });
    await service.database.db.prisma.pass.update({ where: { id: pass.id }, data: { latestMessage: 'Double points this week.', balance: 340 } });
    const front = texts((await get(`/api/v1/passes/${pass.id}/preview`).expect(200)).body.toString());
    expect(front).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ region: 'primary', part: 'value', text: 'Grace Hopper' }),
        expect.objectContaining({ region: 'secondary', part: 'value', text: 'Platinum' }),
        expect.objectContaining({ region: 'top', pointer: '/fields/header/one', part: 'value', text: '340' }),
        expect.objectContaining({ region: 'barcode', text: 'COFFEE-CLUB-0001' }),
      ]),
    );
    const back = texts((await get(`/api/v1/passes/${pass.id}/preview?side=back`).expect(200)).body.toString());
    expect(back).toContainEqual(expect.objectContaining({ region: 'back', pointer: '/latestMessage', part: 'value', text: 'Double points this week.' }));
    const google = texts((await get(`/api/v1/passes/${pass.id}/preview?platform=google`).expect(200)).body.toString());
    expect(google).toContainEqual(expect.objectContaining({ region: 'points', part: 'value', text: '340' }));
    expect(google).toContainEqual(expect.objectContaining({ region: 'barcode', part: 'alternateText', text: 'COFFEE-CLUB-0001' }));
    const first = await get(`/api/v1/passes/${pass.id}/preview`).expect(200);
    await get(`/api/v1/passes/${pass.id}/preview`)
      .set('If-None-Match', first.headers.etag as string)
      .expect(304);
    await service.database.db.prisma.pass.update({ where: { id: pass.id }, data: { latestMessage: 'Changed.' } });
    await get(`/api/v1/passes/${pass.id}/preview`)
      .set('If-None-Match', first.headers.etag as string)
      .expect(200);
  });

  it('answers 404 for an unknown pass, 400 for an unknown option and 401 without a key', async () => {
    await service.api.get('/api/v1/passes/0194f3a2-7c1e-7a51-9d7e-0b6a2f1c9e10/preview').set(service.auth(tenant.token)).expect(404);
    await service.api.get(`/api/v1/pass-templates/${templateId}/preview?platform=windows`).set(service.auth(tenant.token)).expect(400);
    await service.api.get(`/api/v1/passes/0194f3a2-7c1e-7a51-9d7e-0b6a2f1c9e10/preview?scale=4`).set(service.auth(tenant.token)).expect(400);
    await service.api.get(`/api/v1/pass-templates/${templateId}/preview`).expect(401);
    await service.api.get('/api/v1/passes/x/preview').expect(401);
  });
});

describe('the Google logo: a wide one uncropped, a square one in a circle', () => {
  const LOGO_COLOUR = [0xf5, 0xd7, 0x6e];
  /** The logo's pixels in the card title row (the top 70 points at scale 1): their bounding box and the share of it they fill. */
  function logoPixels(png: Buffer): { width: number; height: number; fill: number } {
    const image = PNG.sync.read(png);
    let [left, top, right, bottom, count] = [Infinity, Infinity, -1, -1, 0];
    for (let y = 0; y < 70; y++) {
      for (let x = 0; x < image.width; x++) {
        const i = (y * image.width + x) * 4;
        if (LOGO_COLOUR.every((c, k) => Math.abs(image.data[i + k]! - c) <= 8)) {
          [left, top, right, bottom, count] = [Math.min(left, x), Math.min(top, y), Math.max(right, x), Math.max(bottom, y), count + 1];
        }
      }
    }
    const [width, height] = [right - left + 1, bottom - top + 1];
    return { width, height, fill: count / (width * height) };
  }
  /** A square logo of the wide test logo's colour. */
  const squareLogo = async () =>
    `data:image/png;base64,${(
      await sharp({ create: { width: 200, height: 200, channels: 3, background: '#F5D76E' } })
        .png()
        .toBuffer()
    ).toString('base64')}`;

  it('draws a wide logo (3.2:1) at its own ratio, uncropped, and a square logo masked into a circle (createPassTemplatePreview)', async () => {
    const wide = logoPixels((await preview(LOYALTY_DESIGN, '?platform=google&scale=1', 'image/png').expect(200)).body);
    // 36 points high and 115 wide (36 × 3.2), every pixel of its box drawn: no circle crops it.
    expect(wide.height).toBeGreaterThanOrEqual(35);
    expect(wide.width).toBeGreaterThanOrEqual(113);
    expect(wide.fill).toBeGreaterThan(0.97);
    const design = { ...LOYALTY_DESIGN, images: { ...LOYALTY_DESIGN.images, logo: await squareLogo() } };
    const square = logoPixels((await preview(design, '?platform=google&scale=1', 'image/png').expect(200)).body);
    expect(square.width).toBeLessThanOrEqual(37);
    expect(square.height).toBeLessThanOrEqual(37);
    // A disc fills π/4 of its bounding square.
    expect(square.fill).toBeGreaterThan(0.7);
    expect(square.fill).toBeLessThan(0.85);
  });

  it('draws the processed template’s wide logo uncropped too (getPassTemplatePreview)', async () => {
    const id = await createTemplate(service, tenant.token, { ...LOYALTY_DESIGN, name: 'Wide logo card' });
    const res = await raw(
      service.api.get(`/api/v1/pass-templates/${id}/preview?platform=google&scale=1`).set(service.auth(tenant.token)).set('Accept', 'image/png'),
    ).expect(200);
    const wide = logoPixels(res.body);
    expect(wide.width).toBeGreaterThanOrEqual(113);
    expect(wide.fill).toBeGreaterThan(0.97);
  });
});
