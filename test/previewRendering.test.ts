/**
 * The pure preview renderer (src/wallet/preview/) where the API cannot reach it: the Apple
 * `coupon` style with an auxiliary field (no template area fills that row; coupon templates,
 * test/passTypes.test.ts, draw through the API) and a boarding pass with a transit type other
 * than `other` (create starts transit templates at `other`), compared with their committed
 * references; the rules behind the warnings — Wallet's field limits, WCAG contrast and
 * truncation with Inter's metrics —; and the fonts: which one draws a character (the CJK font
 * by script and language), what no font has, and right-to-left text drawn in order.
 */
import satori from 'satori';
import { designOf, newTemplateContent, type PassTemplateCreate } from '../src/domain/passTemplates/templateContent.ts';
import { contrastRatio } from '../src/wallet/preview/barcodeImage.ts';
import { satoriFonts, textFonts } from '../src/wallet/preview/fontFallback.ts';
import { fitText, interFace, textWidth } from '../src/wallet/preview/fontMetrics.ts';
import { previewCard, type PreviewCard } from '../src/wallet/preview/previewCard.ts';
import { rasterisePreview, renderPreview } from '../src/wallet/preview/renderPreview.ts';
import { diffRatio, expectMatchesReference } from './support/previewReferences.ts';
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

it('draws each character in the first font that has it: Inter, its other subsets, Noto Sans, Hebrew, Arabic, then the CJK font of the script or language', () => {
  const fontsOf = (text: string, language = 'en') => textFonts(text, 400, language).faces.map((face) => face.font.name.replace(/ \d+$/, ''));
  expect(fontsOf('Coffee Club')).toEqual(['Inter']);
  expect(fontsOf('Łucja')).toEqual(['Inter', 'Inter latin-ext']);
  expect(fontsOf('Юлия')).toEqual(['Inter', 'Inter cyrillic']);
  // What Inter lacks of a subset (Komi letters of Cyrillic Supplement, Devanagari): Noto Sans.
  expect(fontsOf('Ԁ')).toEqual(['Inter', 'Noto Sans cyrillic-ext']);
  expect(fontsOf('नमस्ते')).toEqual(['Inter', 'Noto Sans devanagari']);
  expect(fontsOf('דוד')).toEqual(['Inter', 'Noto Sans Hebrew hebrew']);
  expect(fontsOf('محمد')).toEqual(['Inter', 'Noto Sans Arabic arabic']);
  // Chinese characters, drawn in each language's forms; kana and hangul name their language.
  expect(new Set(fontsOf('會員', 'zh-Hant').slice(1))).toEqual(new Set(['Noto Sans TC']));
  expect(new Set(fontsOf('会員', 'ja').slice(1))).toEqual(new Set(['Noto Sans JP']));
  expect(new Set(fontsOf('会员'))).toEqual(new Set(['Inter', 'Noto Sans SC']));
  expect(new Set(fontsOf('山田さん'))).toEqual(new Set(['Inter', 'Noto Sans JP']));
  expect(new Set(fontsOf('김민준'))).toEqual(new Set(['Inter', 'Noto Sans KR']));
  // Private-use characters and this emoji are in no font; joiners and variation selectors are not drawn.
  expect(textFonts('Café \u{E000} \u{1F600} a\u{200D}b\u{FE0F}', 400, 'en').missing).toEqual(['\u{E000}', '\u{1F600}']);
  // A CJK text is measured in its font, not as missing-glyph boxes.
  const ja = textFonts('山田花子', 400, 'ja');
  expect(textWidth('山田花子', 20, ja.faces)).toBeCloseTo(80, 0);
});

it('draws Hebrew and Arabic right to left, Arabic letters joined', async () => {
  const draw = async (language: string, ...words: string[]) => {
    const faces = textFonts(words.join(''), 400, language).faces;
    const children = words.map((word) => ({ type: 'div', key: null, props: { style: { display: 'flex' }, children: word } }));
    const fontFamily = faces.map((face) => face.font.name).join(', ');
    const element = {
      type: 'div',
      key: null,
      props: { style: { display: 'flex', fontFamily, fontSize: 40, color: '#000000', backgroundColor: '#FFFFFF' }, children },
    };
    return Buffer.from(rasterisePreview(await satori(element as never, { width: 200, height: 60, fonts: satoriFonts(faces.slice(1)) }), 1));
  };
  // Alef then bet, written as one word, is drawn bet | alef from left to right.
  const word = await draw('he', 'אב');
  expect(diffRatio(word, await draw('he', 'ב', 'א'))).toBeLessThan(0.01);
  expect(diffRatio(word, await draw('he', 'א', 'ב'))).toBeGreaterThan(0.02);
  // Arabic letters take their joined forms: the word is not its isolated letters laid side by side.
  expect(diffRatio(await draw('ar', 'سلام'), await draw('ar', 'م', 'ا', 'ل', 'س'))).toBeGreaterThan(0.02);
});
