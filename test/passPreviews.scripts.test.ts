/**
 * Pass previews in every script a holder writes (test/support/scriptSamples.ts: the ten
 * languages of the holder page, Cyrillic, Greek, Chinese, Korean, Vietnamese, Czech, Turkish,
 * Arabic and Hebrew), through HTTP on a real database: for each sample a pass named in it and a
 * pass named in its missing-glyph twin (the same text with its letters outside ASCII replaced by
 * private-use characters, which no font has). The pass's SVG preview (its text layer aside), its
 * PNG preview and its card on the holder page each differ from the twin's — a letter drawn as a
 * missing-glyph box would draw exactly like the twin's box — and `glyph_missing` is reported
 * (`X-Preview-Warnings`) for the twins only. Templates: `processingWarnings` carries
 * `glyph_missing` for a private-use title, and nothing for titles and translations in scripts.
 */
import type { Test } from 'supertest';
import { BROWSER_ACCEPT } from './support/holderPages.ts';
import { createTemplate, issuePass, loyaltyTemplate } from './support/passes.ts';
import { missingGlyphTwin, SCRIPT_SAMPLES } from './support/scriptSamples.ts';
import { binary } from './support/simulatedIphone.ts';
import { startTestService, type TestService } from './support/testService.ts';

let service: TestService;
let tenant: { accountId: string; token: string };
let templateId: string;

beforeAll(async () => {
  service = await startTestService({ jobs: 'work' });
  tenant = await service.createAccount('Coffee Club Ltd');
  templateId = await createTemplate(service, tenant.token, loyaltyTemplate());
}, 60_000);
afterAll(() => service.close());

/** An SVG without its invisible text layer (which holds the text itself, whatever is drawn). */
const drawing = (svg: string) => svg.replace(/<g fill-opacity="0"[\s\S]*?<\/g><\/svg>$/, '</svg>');

function preview(passId: string, accept: string): Test {
  return service.api.get(`/api/v1/passes/${passId}/preview`).set(service.auth(tenant.token)).set('Accept', accept).buffer(true).parse(binary).expect(200);
}

/** What is drawn of a pass: its SVG preview's drawing and warnings, its PNG preview, the drawing of its holder page card. */
async function drawn(member: string): Promise<{ svg: string; warnings: string; png: Buffer; card: string }> {
  const pass = await issuePass(service, tenant.token, templateId, { pass: { member } });
  const svg = await preview(pass.id, 'image/svg+xml');
  const png = await preview(pass.id, 'image/png');
  const page = await service.api.get(`/passes/${pass.id}`).set('Accept', BROWSER_ACCEPT).expect(200);
  const card = /<svg class="wallet-card"[\s\S]*?<\/svg>/.exec(page.text)![0].replace(/<desc>[^<]*<\/desc>/, '');
  expect(drawing(card)).not.toBe(card);
  return { svg: drawing(svg.body.toString('utf8')), warnings: svg.headers['x-preview-warnings'] ?? '', png: png.body as Buffer, card: drawing(card) };
}

it.each(SCRIPT_SAMPLES.map((s) => [s.script, s.text]))(
  'draws %s (%s) in the SVG and PNG previews and the holder page card, not as missing-glyph boxes',
  async (_, text) => {
    const [sample, twin] = await Promise.all([drawn(text), drawn(missingGlyphTwin(text))]);
    expect(sample.svg).not.toBe(twin.svg);
    expect(sample.png.equals(twin.png)).toBe(false);
    expect(sample.card).not.toBe(twin.card);
    expect(sample.warnings).not.toContain('glyph_missing');
    expect(twin.warnings).toContain('glyph_missing;pointer="/fields/central/one"');
  },
);

it('says which text has characters no font has, in the JSON preview and in the template’s processingWarnings', async () => {
  const pass = await issuePass(service, tenant.token, templateId, { pass: { member: `Łucja ${String.fromCodePoint(0xe000)}` } });
  const json = await service.api.get(`/api/v1/passes/${pass.id}/preview`).set(service.auth(tenant.token)).set('Accept', 'application/vnd.api+json').expect(200);
  expect(json.body.data.attributes.warnings).toContainEqual({
    code: 'glyph_missing',
    pointer: '/fields/central/one',
    detail: expect.stringContaining('(U+E000)'),
  });
  const translated = loyaltyTemplate({
    centralTitle: missingGlyphTwin('Café'),
    fields: {
      central: {
        one: {
          id: 'member',
          label: 'Member',
          defaultValue: '山田 花子',
          localisation: { ko: { label: '회원' }, ru: { label: 'Участник' }, he: { label: 'חבר' } },
        },
      },
    },
  });
  const id = await createTemplate(service, tenant.token, translated);
  const attributes = (await service.api.get(`/api/v1/pass-templates/${id}`).set(service.auth(tenant.token)).expect(200)).body.data.attributes;
  expect(attributes.processingWarnings).toEqual([
    {
      code: 'glyph_missing',
      pointer: '/centralTitle',
      detail:
        'centralTitle "Caf\u{E000}" has characters that no font of the previews has (U+E000); the previews and the holder page draw them as empty boxes, and a phone may lack them too.',
    },
  ]);
  const scripts = await createTemplate(service, tenant.token, loyaltyTemplate({ centralTitle: '張記咖啡 Кафе' }));
  expect(
    (await service.api.get(`/api/v1/pass-templates/${scripts}`).set(service.auth(tenant.token)).expect(200)).body.data.attributes.processingWarnings,
  ).toBeUndefined();
});
