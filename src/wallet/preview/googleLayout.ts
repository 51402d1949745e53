/**
 * The Google Wallet card of a pass as Google Wallet draws its default templates
 * (Generic pass template, https://developers.google.com/wallet/generic/resources/template;
 * Loyalty card template, https://developers.google.com/wallet/retail/loyalty-program/resources/template;
 * Event ticket template, https://developers.google.com/wallet/tickets/events/resources/template;
 * Transit pass template, https://developers.google.com/wallet/tickets/transit-passes/qr-code/resources/template),
 * with the members the service sends (src/wallet/google/walletClass.ts, walletObject.ts):
 *
 * - card title: the logo in a circle and the title — `cardTitle` (generic), `programName`
 *   (loyalty), the issuer name above `eventName` (event ticket) or the issuer (transit); a wide
 *   logo (walletClass.ts `isWideLogo`, sent as `wideLogo` / `wideProgramLogo`) is drawn
 *   uncropped in its own ratio, {@link LOGO_HEIGHT} high and at most {@link WIDE_LOGO_MAX_WIDTH}
 *   wide, in place of the circle (Google: the wide logo "will be used in place of the logo in
 *   the top left of the card view");
 * - the header: `header` (generic: the central field's value), `eventName`, origin → destination
 *   (transit: the central fields);
 * - loyalty: the points balance (`loyaltyPoints.balance`) in the first card row;
 * - card rows: the text modules (`textModulesData`, header over body), two per row;
 * - the barcode on a white panel with its `alternateText` under it;
 * - the hero image (`heroImage`, the template's banner) across the bottom of the card;
 * - the whole card in `hexBackgroundColor`, the text in white or black, whichever Google picks for
 *   contrast with it.
 *
 * The card is drawn 340 points wide. Pure.
 *
 * @module wallet/preview/googleLayout
 */
import { previewBarcode, relativeLuminance } from './barcodeImage.ts';
import { transitIcon } from './transitIcons.ts';
import { box, image, type LayoutRecord, type Element } from './elements.ts';
import { POINTS_FIELD_ID, type PreviewCard, type PreviewField } from './previewCard.ts';
import { isWideLogo } from '../google/walletClass.ts';

/** The card width in points. */
export const GOOGLE_WIDTH = 340;
const PAD = 16;
const INNER = GOOGLE_WIDTH - 2 * PAD;
/** Hero image: 1032 × 336 pixels (Google's brand guidelines), at the card width. */
const HERO_HEIGHT = Math.round((GOOGLE_WIDTH * 336) / 1032);

/** Google Wallet writes on the background in white or black, whichever reads better. */
function inkOn(background: string): string {
  return relativeLuminance(background) > 0.35 ? '#202124' : '#FFFFFF';
}

/** The height of the logo in the card title row, circle or wide, in points. */
export const LOGO_HEIGHT = 36;
/** The widest a wide logo is drawn, in points (a 3.2:1 logo, Google's recommended 1280 × 400 px, is 115 points wide). */
export const WIDE_LOGO_MAX_WIDTH = 160;

/** The logo of the card title row and the width it takes: a white circle, or a wide logo uncropped. */
function titleLogo(card: PreviewCard): { element: Element; width: number } | null {
  const { logo, logoSize } = card.images;
  if (!logo) return null;
  if (card.googleType !== 'offer' && isWideLogo(logoSize)) {
    const width = Math.min(WIDE_LOGO_MAX_WIDTH, Math.round((LOGO_HEIGHT * logoSize!.width) / logoSize!.height));
    return { element: image(logo, width, LOGO_HEIGHT, { objectFit: 'contain', objectPosition: 'left' }), width };
  }
  const radius = LOGO_HEIGHT / 2;
  return { element: image(logo, LOGO_HEIGHT, LOGO_HEIGHT, { borderRadius: radius, objectFit: 'cover', backgroundColor: '#FFFFFF' }), width: LOGO_HEIGHT };
}

function titleRow(card: PreviewCard, ink: string, record: LayoutRecord): Element {
  const logo = titleLogo(card);
  const width = INNER - (logo ? logo.width + 12 : 0);
  const title = card.googleType === 'eventTicket' || card.googleType === 'transit' ? (card.issuerName ?? card.title) : card.title;
  return box({ alignItems: 'center', gap: 12, width: INNER, paddingTop: PAD, paddingBottom: 12 }, [
    logo?.element ?? null,
    title ? record.line(title, { size: 15, weight: 500, color: ink }, width, 'title', '/centralTitle', 'title') : null,
  ]);
}

function header(card: PreviewCard, ink: string, record: LayoutRecord): Element | null {
  if (card.googleType === 'transit') {
    const [origin, destination] = card.primary;
    if (!origin) return null;
    const half = (INNER - 36) / 2;
    return box({ width: INNER, alignItems: 'center', justifyContent: 'space-between', paddingBottom: 12 }, [
      record.line(origin.value, { size: 26, weight: 500, color: ink }, half, 'header', origin.pointer, 'value'),
      box({ width: 36, justifyContent: 'center' }, [image(transitIcon(card.transitType, ink), 22, 22)]),
      destination
        ? record.line(destination.value, { size: 26, weight: 500, color: ink }, half, 'header', destination.pointer, 'value')
        : box({ width: half }, []),
    ]);
  }
  const text = card.googleType === 'generic' ? card.primary[0]?.value : card.googleType === 'eventTicket' ? card.title : null;
  if (!text) return null;
  const pointer = card.googleType === 'generic' ? card.primary[0]!.pointer : '/centralTitle';
  return box({ width: INNER, paddingBottom: 12 }, [record.line(text, { size: 24, weight: 500, color: ink }, INNER, 'header', pointer, 'value')]);
}

/** The text modules Google shows of the fields: every field but the generic header's and the transit route. */
function textModules(card: PreviewCard): PreviewField[] {
  const primaryShownAbove = card.googleType === 'generic' ? 1 : card.googleType === 'transit' ? 2 : 0;
  const fields = [...card.header, ...card.primary.slice(primaryShownAbove), ...card.secondary, ...card.auxiliary];
  // A loyalty card's points field is its balance, shown as loyaltyPoints.
  return card.googleType === 'loyalty' ? fields.filter((f) => f.id !== POINTS_FIELD_ID) : fields;
}

function rows(card: PreviewCard, ink: string, record: LayoutRecord): Element[] {
  const items: Element[] = [];
  const width = (INNER - 12) / 2;
  const item = (label: string, value: string, region: 'points' | 'textModules', pointer: string) =>
    box({ flexDirection: 'column', width }, [
      record.line(label, { size: 11, weight: 500, color: ink }, width, region, pointer, 'label', { opacity: 0.8 }),
      record.line(value, { size: 16, weight: 500, color: ink }, width, region, pointer, 'value'),
    ]);
  if (card.points !== null) items.push(item('Points', String(card.points), 'points', '/loyaltyPoints'));
  for (const f of textModules(card)) items.push(item(f.label, f.value, 'textModules', f.pointer));
  const out: Element[] = [];
  for (let i = 0; i < items.length; i += 2) out.push(box({ width: INNER, gap: 12, paddingBottom: 12 }, items.slice(i, i + 2)));
  return out;
}

function barcodePanel(card: PreviewCard, record: LayoutRecord): Element | null {
  if (!card.barcode) return null;
  const symbol = previewBarcode(card.barcode, record);
  const square = card.barcode.format === 'qr' || card.barcode.format === 'aztec';
  const width = square ? 150 : 240;
  const height = square ? width / symbol.aspect : card.barcode.format === 'code128' ? 60 : Math.min(72, width / symbol.aspect);
  const caption = card.barcode.altText
    ? record.line(card.barcode.altText, { size: 12, weight: 400, color: '#202124' }, width + 24, 'barcode', '/barcode', 'alternateText', { marginTop: 6 })
    : null;
  return box({ width: INNER, justifyContent: 'center', paddingTop: 4, paddingBottom: PAD }, [
    box({ flexDirection: 'column', alignItems: 'center', backgroundColor: '#FFFFFF', borderRadius: 12, padding: 12 }, [
      image(symbol.src, width, height, { objectFit: 'fill' }),
      caption,
    ]),
  ]);
}

/** The Google Wallet card of a preview; its height follows its content (`height` null). */
export function googleCard(card: PreviewCard, record: LayoutRecord): { element: Element; width: number; height: null } {
  const ink = inkOn(card.colors.background);
  const body = [titleRow(card, ink, record), header(card, ink, record), ...rows(card, ink, record), barcodePanel(card, record)];
  const hero = card.images.hero
    ? image(card.images.hero, GOOGLE_WIDTH, HERO_HEIGHT, { objectFit: 'cover', borderBottomLeftRadius: 24, borderBottomRightRadius: 24 })
    : null;
  const element = box({ width: GOOGLE_WIDTH, flexDirection: 'column', backgroundColor: card.colors.background, borderRadius: 24, fontFamily: 'Inter' }, [
    box({ flexDirection: 'column', padding: `0 ${PAD}px`, flexGrow: 1, justifyContent: 'flex-start' }, body),
    hero,
  ]);
  return { element, width: GOOGLE_WIDTH, height: null };
}
