/**
 * The Apple Wallet pass as Wallet lays it out, front and back, from Apple's design guides:
 * "Wallet Developer Guide: Pass Design and Creation"
 * (https://developer.apple.com/library/archive/documentation/UserExperience/Conceptual/PassKit_PG/Creating.html)
 * and the Human Interface Guidelines, Wallet
 * (https://developer.apple.com/design/human-interface-guidelines/wallet). Per style:
 *
 * - every style: the top row holds the logo (at most 160 × 50 points), the logo text beside it and
 *   the header fields at the right; the barcode, with its alt text under it, sits at the bottom on
 *   a white panel; the pass takes its background, foreground (values) and label colours;
 * - `storeCard` and `coupon`: the strip image (375 × 144 points) behind the primary field, whose
 *   value is drawn large over it with the label below; secondary and auxiliary fields share one
 *   row under the strip (at most four together);
 * - `eventTicket`: the strip (375 × 98 points) behind the primary field (label above value);
 *   a row of secondary, then of auxiliary fields;
 * - `generic`: the primary field (label above value) with no strip; rows of secondary and
 *   auxiliary fields;
 * - `boardingPass`: two primary fields, origin and destination, with the transit type's symbol
 *   between them; rows of secondary and auxiliary fields;
 * - the back (`side=back`): the back fields, label above value, one under another, values
 *   wrapping (Wallet does not truncate back fields).
 *
 * The card is drawn 320 points wide, the width of the guide's pass diagrams; images are scaled
 * to it. Pure.
 *
 * @module wallet/preview/appleLayout
 */
import { previewBarcode } from './barcodeImage.ts';
import { transitIcon } from './transitIcons.ts';
import { box, image, type LayoutRecord, type Element, type Region } from './elements.ts';
import type { AppleStyle, PreviewCard, PreviewField } from './previewCard.ts';

/** The card width in points. */
export const APPLE_WIDTH = 320;
const PAD = 12;
const INNER = APPLE_WIDTH - 2 * PAD;
const GAP = 8;

/** Strip heights at the card width (Apple: 375 × 144 store cards and coupons, 375 × 98 event tickets). */
const STRIP_HEIGHT: Partial<Record<AppleStyle, number>> = { storeCard: 123, coupon: 123, eventTicket: 84 };

/**
 * How many fields of each area Wallet shows per style (Pass Design and Creation, "Pass Styles":
 * up to three header fields, one primary field — two on boarding passes —, up to four secondary
 * and four auxiliary fields — five on boarding passes —; store cards and coupons show at most four
 * secondary and auxiliary fields together).
 */
export const APPLE_FIELD_LIMITS: Record<AppleStyle, { header: number; primary: number; secondary: number; auxiliary: number; shared?: number }> = {
  storeCard: { header: 3, primary: 1, secondary: 4, auxiliary: 4, shared: 4 },
  coupon: { header: 3, primary: 1, secondary: 4, auxiliary: 4, shared: 4 },
  eventTicket: { header: 3, primary: 1, secondary: 4, auxiliary: 4 },
  generic: { header: 3, primary: 1, secondary: 4, auxiliary: 4 },
  boardingPass: { header: 3, primary: 2, secondary: 5, auxiliary: 5 },
};

type Area = 'header' | 'primary' | 'secondary' | 'auxiliary';

/** The fields of an area that Wallet shows; the others are reported. */
function visible(card: PreviewCard, area: Area, record: LayoutRecord): PreviewField[] {
  const limits = APPLE_FIELD_LIMITS[card.appleStyle];
  let limit = limits[area];
  if (area === 'auxiliary' && limits.shared !== undefined) limit = Math.max(0, limits.shared - Math.min(card.secondary.length, limits.secondary));
  const fields = card[area];
  for (const hidden of fields.slice(limit)) {
    record.warn({
      code: 'fields_hidden',
      pointer: hidden.pointer,
      detail: `Apple Wallet shows ${limit} ${area} field${limit === 1 ? '' : 's'} on a ${card.appleStyle} pass${limits.shared && area === 'auxiliary' ? ' beside its secondary fields' : ''}; this one is not shown.`,
    });
  }
  return fields.slice(0, limit);
}

/** A label-over-value field (`align` right for header fields, as Wallet aligns them). */
function field(
  record: LayoutRecord,
  card: PreviewCard,
  f: PreviewField,
  width: number,
  region: Region,
  valueSize: number,
  align: 'flex-start' | 'flex-end' = 'flex-start',
): Element {
  const label = record.line(f.label, { size: 10, weight: 600, color: card.colors.label, uppercase: true }, width, region, f.pointer, 'label');
  const value = record.line(f.value, { size: valueSize, weight: valueSize > 20 ? 400 : 500, color: card.colors.text }, width, region, f.pointer, 'value');
  return box({ flexDirection: 'column', alignItems: align, width, flexShrink: 0 }, [label, value]);
}

function topRow(card: PreviewCard, record: LayoutRecord): Element {
  const headers = visible(card, 'header', record);
  // Header fields take the width of their text, up to a share of the row (Wallet truncates beyond).
  const headerWidth = (f: PreviewField) =>
    Math.min(
      headers.length === 1 ? 120 : 90,
      Math.ceil(Math.max(record.textWidth(f.label.toUpperCase(), 10, 600), record.textWidth(f.value, 15, 500), 16)) + 1,
    );
  const logo = card.images.logo ? image(card.images.logo, 96, 30, { objectFit: 'contain', objectPosition: 'left' }) : null;
  const titleWidth = INNER - (logo ? 96 + GAP : 0) - headers.reduce((sum, f) => sum + headerWidth(f) + GAP, 0);
  const title = card.title ? record.line(card.title, { size: 15, weight: 600, color: card.colors.text }, titleWidth, 'top', '/centralTitle', 'logoText') : null;
  return box({ alignItems: 'center', height: 44, width: INNER, justifyContent: 'space-between' }, [
    box({ alignItems: 'center', gap: GAP }, [logo, title]),
    box(
      { gap: GAP },
      headers.map((f) => field(record, card, f, headerWidth(f), 'top', 15, 'flex-end')),
    ),
  ]);
}

function primaryArea(card: PreviewCard, record: LayoutRecord): Element {
  const primary = visible(card, 'primary', record);
  const style = card.appleStyle;
  if (style === 'boardingPass') {
    const half = (INNER - 40) / 2;
    const [origin, destination] = primary;
    return box({ width: INNER, alignItems: 'flex-end', justifyContent: 'space-between', marginTop: 8, marginBottom: 8 }, [
      origin ? field(record, card, origin, half, 'primary', 34) : box({ width: half }, []),
      box({ width: 40, justifyContent: 'center', paddingBottom: 6 }, [image(transitIcon(card.transitType, card.colors.text), 26, 26)]),
      destination ? field(record, card, destination, half, 'primary', 34, 'flex-end') : box({ width: half }, []),
    ]);
  }
  const strip = STRIP_HEIGHT[style];
  const first = primary[0];
  if (strip === undefined) return box({ width: INNER, marginTop: 6, marginBottom: 10 }, [first ? field(record, card, first, INNER, 'primary', 26) : null]);
  const stripImage = card.images.strip ? image(card.images.strip, APPLE_WIDTH, strip, { position: 'absolute', left: 0, top: 0, objectFit: 'cover' }) : null;
  let content: Element | null = null;
  if (first) {
    const value = record.line(
      first.value,
      { size: style === 'eventTicket' ? 30 : 40, weight: 400, color: card.colors.text },
      INNER,
      'primary',
      first.pointer,
      'value',
    );
    const label = record.line(
      first.label,
      { size: 13, weight: 500, color: card.colors.label, uppercase: style === 'eventTicket' },
      INNER,
      'primary',
      first.pointer,
      'label',
    );
    content = box(
      { position: 'absolute', left: PAD, top: 0, width: INNER, flexDirection: 'column', justifyContent: 'center', height: strip },
      style === 'eventTicket' ? [label, value] : [value, label],
    );
  }
  return box({ width: APPLE_WIDTH, height: strip, position: 'relative', marginBottom: 10, marginLeft: -PAD }, [stripImage, content]);
}

/**
 * The widths of the fields of a row: each the width of its label or value, whichever is wider,
 * while they fit; else the widest are narrowed to a common width (and truncated) so the row fits.
 */
export function rowWidths(record: LayoutRecord, fields: PreviewField[], valueSize: number, available: number): number[] {
  const needs = fields.map((f) => Math.ceil(Math.max(record.textWidth(f.label.toUpperCase(), 10, 600), record.textWidth(f.value, valueSize, 500), 12)) + 1);
  if (needs.reduce((a, b) => a + b, 0) <= available) return needs;
  const sorted = [...needs].sort((a, b) => a - b);
  let rest = available;
  let cap = available / fields.length;
  for (let i = 0; i < sorted.length; i++) {
    cap = rest / (sorted.length - i);
    if (sorted[i]! > cap) break;
    rest -= sorted[i]!;
  }
  return needs.map((need) => Math.min(need, Math.floor(cap)));
}

function fieldRow(card: PreviewCard, fields: PreviewField[], region: Region, record: LayoutRecord): Element | null {
  if (!fields.length) return null;
  const widths = rowWidths(record, fields, 15, INNER - GAP * (fields.length - 1));
  return box(
    { width: INNER, justifyContent: 'space-between', marginBottom: 10 },
    fields.map((f, i) => field(record, card, f, widths[i]!, region, 15, fields.length > 1 && i === fields.length - 1 ? 'flex-end' : 'flex-start')),
  );
}

function barcodePanel(card: PreviewCard, record: LayoutRecord): Element | null {
  if (!card.barcode) return null;
  const symbol = previewBarcode(card.barcode, record);
  const square = card.barcode.format === 'qr' || card.barcode.format === 'aztec';
  const width = square ? 130 : Math.min(INNER - 40, 240);
  const height = square ? width / symbol.aspect : card.barcode.format === 'code128' ? 60 : Math.min(70, width / symbol.aspect);
  const caption = card.barcode.altText
    ? record.line(card.barcode.altText, { size: 11, weight: 500, color: '#000000' }, width + 16, 'barcode', '/barcode', 'altText', { marginTop: 4 })
    : null;
  return box({ width: APPLE_WIDTH, justifyContent: 'center', marginTop: 'auto', marginLeft: -PAD, paddingTop: 6, paddingBottom: 14 }, [
    box({ flexDirection: 'column', alignItems: 'center', backgroundColor: '#FFFFFF', borderRadius: 6, padding: 8 }, [
      image(symbol.src, width, height, { objectFit: 'fill' }),
      caption,
    ]),
  ]);
}

/** The height of the card front per style, in points (Wallet shows every pass of a style at one height). */
const FRONT_HEIGHT: Record<AppleStyle, number> = { storeCard: 420, coupon: 420, eventTicket: 440, generic: 420, boardingPass: 440 };

/** The front of an Apple pass. */
export function appleFront(card: PreviewCard, record: LayoutRecord): { element: Element; width: number; height: number } {
  const secondary = visible(card, 'secondary', record);
  const auxiliary = visible(card, 'auxiliary', record);
  const shared = APPLE_FIELD_LIMITS[card.appleStyle].shared !== undefined;
  const rows = shared
    ? [fieldRow(card, [...secondary, ...auxiliary], 'secondary', record)]
    : [fieldRow(card, secondary, 'secondary', record), fieldRow(card, auxiliary, 'auxiliary', record)];
  const height = FRONT_HEIGHT[card.appleStyle];
  const element = box(
    {
      width: APPLE_WIDTH,
      height,
      flexDirection: 'column',
      padding: `0 ${PAD}px`,
      boxSizing: 'border-box',
      backgroundColor: card.colors.background,
      borderRadius: 12,
      fontFamily: 'Inter',
    },
    [topRow(card, record), primaryArea(card, record), ...rows, barcodePanel(card, record)],
  );
  return { element, width: APPLE_WIDTH, height };
}

/** The back of an Apple pass: its back fields, values wrapping. */
export function appleBack(card: PreviewCard, record: LayoutRecord): { element: Element; width: number; height: number } {
  const rows = card.back.map((f) =>
    box({ flexDirection: 'column', width: INNER, paddingTop: 10, paddingBottom: 10, borderBottom: `1px solid ${card.colors.label}` }, [
      record.line(f.label, { size: 12, weight: 500, color: card.colors.label }, INNER, 'back', f.pointer, 'label'),
      record.paragraph(f.value, { size: 14, weight: 400, color: card.colors.text }, INNER, 'back', f.pointer, 'value'),
    ]),
  );
  const height = FRONT_HEIGHT[card.appleStyle];
  const element = box(
    {
      width: APPLE_WIDTH,
      height,
      flexDirection: 'column',
      padding: `${PAD}px`,
      boxSizing: 'border-box',
      backgroundColor: card.colors.background,
      borderRadius: 12,
      fontFamily: 'Inter',
    },
    rows,
  );
  return { element, width: APPLE_WIDTH, height };
}
