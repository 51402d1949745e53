/**
 * The pure preview renderer (src/wallet/preview/) where the API cannot reach it: the Apple
 * `coupon` style (no template type emits it yet) and a boarding pass with a transit type other
 * than `other` (create starts transit templates at `other`), compared with their committed
 * references; and the rules behind the warnings — Wallet's field limits, WCAG contrast and
 * truncation with Inter's metrics.
 */
import { designOf, newTemplateContent, type PassTemplateCreate } from '../src/domain/passTemplates/templateContent.ts';
import { contrastRatio } from '../src/wallet/preview/barcodeImage.ts';
import { fitText, interFace, textWidth } from '../src/wallet/preview/fontMetrics.ts';
import { previewCard, type PreviewCard } from '../src/wallet/preview/previewCard.ts';
import { rasterisePreview, renderPreview } from '../src/wallet/preview/renderPreview.ts';
import { expectMatchesReference } from './support/previewReferences.ts';
import { STORE_CARD_DESIGN, TRANSIT_DESIGN } from './support/previewDesigns.ts';
import { BANNER_PNG, LOGO_PNG } from './support/images.ts';

function cardOf(input: unknown, overrides: Partial<PreviewCard> = {}): PreviewCard {
  const design = designOf(newTemplateContent(input as PassTemplateCreate));
  return { ...previewCard(design, design.defaultLanguage, { logo: LOGO_PNG, strip: BANNER_PNG, hero: BANNER_PNG }), ...overrides };
}

it('draws a coupon as its reference: strip behind the primary field, secondary and auxiliary fields in one row', async () => {
  const card = cardOf(STORE_CARD_DESIGN, { appleStyle: 'coupon', auxiliary: [{ pointer: '/auxiliary', label: 'Code', value: 'SPRING' }] });
  const rendered = await renderPreview(card, { platform: 'apple', side: 'front' });
  expect(rendered.texts.filter((t) => t.part === 'value' && t.region === 'secondary').map((t) => t.text)).toEqual(['Grace Hopper', '12/27', 'Soho', 'SPRING']);
  expectMatchesReference('apple-coupon', Buffer.from(rasterisePreview(rendered.svg, 1)));
});

it('draws a train boarding pass as its reference, with the train symbol between origin and destination', async () => {
  const rendered = await renderPreview(cardOf(TRANSIT_DESIGN, { transitType: 'train' }), { platform: 'apple', side: 'front' });
  expectMatchesReference('apple-boardingPass-train', Buffer.from(rasterisePreview(rendered.svg, 1)));
});

it('reports the fields a style does not show (Pass Design and Creation field counts)', async () => {
  const field = (n: number) => ({ pointer: `/f${n}`, label: `L${n}`, value: `${n}` });
  const card = cardOf(STORE_CARD_DESIGN, { secondary: [field(1), field(2), field(3)], auxiliary: [field(4), field(5)] });
  const rendered = await renderPreview(card, { platform: 'apple', side: 'front' });
  expect(rendered.warnings.filter((w) => w.code === 'fields_hidden').map((w) => w.pointer)).toEqual(['/f5']);
  const generic = await renderPreview({ ...card, appleStyle: 'generic' }, { platform: 'apple', side: 'front' });
  expect(generic.warnings.filter((w) => w.code === 'fields_hidden')).toEqual([]);
});

it('measures contrast as WCAG 2.2 does', () => {
  expect(contrastRatio('#000000', '#FFFFFF')).toBeCloseTo(21, 5);
  expect(contrastRatio('#777777', '#FFFFFF')).toBeCloseTo(4.48, 2);
  expect(contrastRatio('#767676', '#FFFFFF')).toBeGreaterThanOrEqual(4.5);
});

it('truncates with an ellipsis at the width Inter gives the text', () => {
  const inter = [interFace(400)];
  const width = textWidth('Night Orchestra', 30, inter);
  expect(width).toBeGreaterThan(150);
  expect(fitText('Night Orchestra', 30, inter, width)).toEqual({ text: 'Night Orchestra', truncated: false });
  const cut = fitText('Night Orchestra', 30, inter, width - 1);
  expect(cut.truncated).toBe(true);
  expect(cut.text).toMatch(/^Night Orche[a-z]*…$/);
  expect(textWidth(cut.text, 30, inter)).toBeLessThanOrEqual(width - 1);
  expect(textWidth('iiii', 20, inter)).toBeLessThan(textWidth('WWWW', 20, inter));
});
