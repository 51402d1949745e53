/**
 * The HTML of the holder pages: the page behind a pass's `downloadUrl` and its "not found" and
 * "no longer valid" pages. Pure functions of a view; every text from the pass or its template is
 * escaped (holder and template data are untrusted), and the page's one inline style block is
 * allowed by its hash in the Content-Security-Policy returned with it (CSP Level 3,
 * https://www.w3.org/TR/CSP3/#external-hash), so the page runs no script and loads nothing from
 * another host.
 *
 * @module domain/holderPages/holderPageHtml
 */
import { createHash } from 'node:crypto';
import escapeHtml from 'escape-html';
import type { HolderPlatform } from './holderPlatform.ts';

/** A wallet action of the page. */
export interface WalletAction {
  /** Where it leads: the `.pkpass` download (relative) or the "Save to Google Wallet" link. */
  href: string;
  /** The operator's official badge as a `data:` URL, or null for a plain labelled button. */
  badge: string | null;
}

/** One field of the preview, in display order. */
export interface PreviewField {
  area: 'header' | 'central' | 'details' | 'back';
  label: string | null;
  value: string;
}

/** What the page of a pass shows. */
export interface PassPageView {
  /** The template's name (the page title). */
  title: string;
  /** The template's description, if any. */
  description: string | null;
  /** The language of the preview's texts (BCP 47 / ISO 639-1). */
  language: string;
  /** `#RRGGBB` colours of the card. */
  colors: { background: string; label: string; text: string };
  /** The logo, served by this service (a same-origin path), or null. */
  logoUrl: string | null;
  fields: PreviewField[];
  /** The barcode's text, when the pass's `displayText` asks for one. */
  barcodeText: string | null;
  /** The pass's latest message and its heading. */
  latestMessage: { heading: string; text: string } | null;
  /** `inactive`: a deactivated pass, shown without actions. */
  state: 'active' | 'inactive';
  platform: HolderPlatform;
  /** The actions the account can serve (null: not configured). */
  apple: WalletAction | null;
  google: WalletAction | null;
  /** The QR code of the page's URL as an SVG element (generated, trusted), for `other` platforms. */
  qrSvg: string | null;
}

/** A rendered page and the Content-Security-Policy that goes with it. */
export interface RenderedPage {
  html: string;
  contentSecurityPolicy: string;
}

const HEX_COLOR = /^#[0-9A-Fa-f]{6}$/;
const color = (value: string, fallback: string) => (HEX_COLOR.test(value) ? value : fallback);
const text = (value: string) => escapeHtml(value);

const BASE_STYLE = `
*{box-sizing:border-box}
body{margin:0;font:16px/1.4 -apple-system,BlinkMacSystemFont,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;background:#f2f2f7;color:#1c1c1e}
main{max-width:28rem;margin:0 auto;padding:1.25rem}
h1{font-size:1.35rem;margin:0 0 1rem}
.card{border-radius:14px;padding:1rem;margin:0 0 1.25rem;box-shadow:0 1px 4px rgba(0,0,0,.2)}
.card img.logo{max-height:50px;max-width:160px;display:block;margin:0 0 .75rem}
.card dl{margin:0;display:grid;grid-template-columns:1fr 1fr;gap:.5rem 1rem}
.card dt{font-size:.75rem;text-transform:uppercase;letter-spacing:.03em}
.card dd{margin:0 0 .25rem;font-size:1.05rem;overflow-wrap:anywhere}
.card .central dd{font-size:1.4rem}
.card .barcode{margin:.75rem 0 0;font-family:ui-monospace,Menlo,Consolas,monospace;overflow-wrap:anywhere}
.message{background:#fff;border-radius:10px;padding:.75rem 1rem;margin:0 0 1.25rem}
.message h2{font-size:.9rem;margin:0 0 .25rem}
.actions{display:flex;flex-direction:column;gap:.75rem;margin:0 0 1.25rem}
a.action{display:block;text-align:center;padding:.85rem 1rem;border-radius:10px;background:#000;color:#fff;font-weight:600;text-decoration:none}
a.action.badge{background:none;padding:0}
a.action.badge img{height:48px}
a.action:focus-visible{outline:3px solid #0a84ff;outline-offset:2px}
.qr{background:#fff;border-radius:10px;padding:1rem;text-align:center;margin:0 0 1.25rem}
.qr svg{width:220px;height:220px}
.notice{background:#fff;border-left:4px solid #8e8e93;border-radius:6px;padding:.75rem 1rem;margin:0 0 1.25rem}
.other{font-size:.9rem}
.other a{color:#0a5fd6}
.other img{height:40px;vertical-align:middle}
`;

function styleFor(colors: PassPageView['colors'] | null): string {
  if (!colors) return BASE_STYLE;
  const background = color(colors.background, '#FFFFFF');
  return `${BASE_STYLE}.card{background:${background};color:${color(colors.text, '#000000')}}\n.card dt{color:${color(colors.label, '#000000')}}\n`;
}

function page(title: string, body: string, style: string): RenderedPage {
  const hash = createHash('sha256').update(style, 'utf8').digest('base64');
  const html =
    `<!doctype html>\n<html lang="en"><head><meta charset="utf-8">` +
    `<meta name="viewport" content="width=device-width, initial-scale=1">` +
    `<meta name="robots" content="noindex, nofollow">` +
    `<meta name="referrer" content="no-referrer">` +
    `<title>${text(title)}</title><style>${style}</style></head>\n<body><main>${body}</main></body></html>\n`;
  return {
    html,
    contentSecurityPolicy: `default-src 'none'; img-src 'self' data:; style-src 'sha256-${hash}'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
  };
}

const LABELS = { apple: 'Add to Apple Wallet', google: 'Add to Google Wallet' } as const;

function actionLink(kind: 'apple' | 'google', action: WalletAction, primary: boolean): string {
  const attributes = `class="action${action.badge ? ' badge' : ''}" data-action="${kind}"${primary ? ' data-primary' : ''} href="${text(action.href)}" rel="noreferrer"`;
  const content = action.badge ? `<img src="${text(action.badge)}" alt="${LABELS[kind]}">` : LABELS[kind];
  return `<a ${attributes}>${content}</a>`;
}

function preview(view: PassPageView): string {
  const groups = (['header', 'central', 'details', 'back'] as const)
    .map((area) => {
      const fields = view.fields.filter((f) => f.area === area);
      if (!fields.length) return '';
      const items = fields.map((f) => `<div><dt>${f.label === null ? '' : text(f.label)}</dt><dd>${text(f.value)}</dd></div>`).join('');
      return `<dl class="${area}">${items}</dl>`;
    })
    .join('');
  const logo = view.logoUrl ? `<img class="logo" src="${text(view.logoUrl)}" alt="${text(view.title)}">` : '';
  const barcode = view.barcodeText === null ? '' : `<p class="barcode" data-barcode-text>${text(view.barcodeText)}</p>`;
  return `<section class="card" lang="${text(view.language)}" aria-label="Pass preview">${logo}${groups}${barcode}</section>`;
}

function actions(view: PassPageView): string {
  const available = (['apple', 'google'] as const).filter((kind) => view[kind] !== null);
  if (!available.length) return `<p class="notice" data-state="unavailable">This pass cannot be added to a wallet yet.</p>`;
  if (view.platform === 'other') {
    const qr = view.qrSvg
      ? `<figure class="qr" id="qr">${view.qrSvg}<figcaption>Scan with your phone to add this pass to its wallet.</figcaption></figure>`
      : '';
    return `${qr}<div class="actions">${available.map((kind) => actionLink(kind, view[kind]!, false)).join('')}</div>`;
  }
  const primary = available.includes(view.platform) ? view.platform : null;
  const others = available.filter((kind) => kind !== primary);
  const main = primary ? `<div class="actions">${actionLink(primary, view[primary]!, true)}</div>` : '';
  const rest = others.length
    ? `<p class="other">${primary ? 'On another device? ' : ''}${others.map((kind) => actionLink(kind, view[kind]!, false).replace('class="action', 'class="action-link')).join(' ')}</p>`
    : '';
  return main + rest;
}

/** The page of an active or deactivated pass. */
export function renderPassPage(view: PassPageView): RenderedPage {
  const message = view.latestMessage
    ? `<section class="message" data-latest-message><h2>${text(view.latestMessage.heading)}</h2><p>${text(view.latestMessage.text)}</p></section>`
    : '';
  const description = view.description ? `<p>${text(view.description)}</p>` : '';
  const body =
    view.state === 'inactive'
      ? `<h1>${text(view.title)}</h1><p class="notice" data-state="inactive">This pass is currently inactive</p>${preview(view)}${message}`
      : `<h1>${text(view.title)}</h1>${description}${actions(view)}${preview(view)}${message}`;
  return page(view.title, body, styleFor(view.colors));
}

/** The page of a pass that is unknown (404) or no longer valid (410). */
export function renderNoticePage(kind: 'notFound' | 'gone'): RenderedPage {
  const [title, detail] =
    kind === 'gone'
      ? ['This pass is no longer valid', 'Its issuer has withdrawn it, so it can no longer be added to a wallet.']
      : ['Pass not found', 'No pass exists at this address. Check the link you were sent.'];
  return page(title, `<h1 data-state="${kind}">${title}</h1><p>${detail}</p>`, styleFor(null));
}
