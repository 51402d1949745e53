import escapeHtml from 'escape-html';
import Negotiator from 'negotiator';
import QRCode from 'qrcode';
import type { OperationHandler, OperationInput } from '../../http/operation.ts';
import { GoneError, NotFoundError, ValidationError } from '../../errors.ts';
import { googleSaveLink } from '../../domain/googleWallet/googleSaveLink.ts';
import { designLanguages } from '../../wallet/preview/previewCard.ts';
import { renderPreview } from '../../wallet/preview/renderPreview.ts';
import { selectSigningConfiguration } from '../../domain/appleConfigurations/appleConfigurationStore.ts';
import { designOfVersion, selectLatestProcessedVersion } from '../../domain/passTemplates/passTemplateStore.ts';
import { barcodeCaption, identifierValue, type BarcodeSettings } from '../../domain/passes/passRules.ts';
import { findPassByUuid } from '../../domain/passes/passStore.ts';
import { previewSourceOfPass } from '../../domain/passes/passPreview.ts';
import { passDownloadUrl } from '../../domain/passes/serializePass.ts';
import type { PassRow } from '../../domain/passes/passStore.ts';
import { renderNoticePage, renderPassPage, type PassPageView, type RenderedPage, type WalletCard } from '../../domain/holderPages/holderPageHtml.ts';
import { barcodeSvg, isMatrixCode } from '../../domain/holderPages/barcodeSvg.ts';
import { cachedHolderPage, cachedTemplateView } from '../../domain/holderPages/holderPageCache.ts';
import { DEFAULT_PAGE_LANGUAGE, PAGE_LANGUAGES, pageMessages, type PageMessages } from '../../domain/holderPages/holderPageMessages.ts';
import { readHolderPassLink } from '../../domain/holderPages/holderPassLink.ts';
import { platformOf, type HolderPlatform } from '../../domain/holderPages/holderPlatform.ts';
import { walletBadges } from '../../domain/holderPages/walletBadges.ts';

/** Headers of every holder page: no cache, no referrer, the page's own CSP, its language. */
function pageHeaders(page: RenderedPage, vary: string): Record<string, string> {
  return {
    'Content-Type': 'text/html; charset=utf-8',
    'Cache-Control': 'no-store',
    'Referrer-Policy': 'no-referrer',
    'X-Robots-Tag': 'noindex, nofollow',
    'Content-Security-Policy': page.contentSecurityPolicy,
    'Content-Language': page.language,
    Vary: vary,
  };
}

/** Whether the client prefers HTML to JSON (`Accept`, RFC 9110 §12.5.1): browsers do. */
function prefersHtml(headers: Record<string, string | string[] | undefined>): boolean {
  return new Negotiator({ headers }).mediaType(['application/json', 'text/html']) === 'text/html';
}

/**
 * `GET /passes/{id}`: the holder page behind a pass's `downloadUrl` (src/domain/holderPages/holderPageHtml.ts):
 * the wallet actions the holder's platform takes (src/domain/holderPages/holderPlatform.ts), the
 * web pass (the wallet's card drawn by the pass preview, see {@link walletCard}, and its barcode),
 * and for desktops a QR code of the page's URL, in the holder's language.
 * @throws ValidationError (a malformed id), NotFoundError (unknown UUID) and GoneError (nullified
 *   pass) when the client prefers JSON; a browser gets the 404 and 410 pages instead.
 */
export const getHolderPassPage: OperationHandler<'getHolderPassPage'> = (input) => holderPassPage(input, null);

/** What a holder page answers: the page (200), a redirect to its canonical URL (308), or the 404 and 410 pages. */
type HolderPageResult =
  | { status: 200; headers: Record<string, string>; body: string }
  | { status: 308; headers: Record<string, string>; body: undefined }
  | { status: 404; headers: Record<string, string>; body: string }
  | { status: 410; headers: Record<string, string>; body: string };

type HolderPageInput = Pick<OperationInput<'getHolderPassPage' | 'getGoogleHolderPassPage'>, 'params' | 'headers' | 'acceptsLanguages' | 'ctx'>;

/**
 * Builds a holder page (getHolderPassPage, getGoogleHolderPassPage).
 * @param platformOverride The platform whose action comes first; null: from `User-Agent`.
 * @throws ValidationError, NotFoundError and GoneError when the client prefers JSON.
 */
export async function holderPassPage(input: HolderPageInput, platformOverride: HolderPlatform | null): Promise<HolderPageResult> {
  const { params, headers, acceptsLanguages, ctx } = input;
  const vary = platformOverride ? 'Accept, Accept-Language' : 'Accept, Accept-Language, User-Agent';
  const pageLanguage = acceptsLanguages([...PAGE_LANGUAGES]) || DEFAULT_PAGE_LANGUAGE;
  const t = pageMessages(pageLanguage);
  const link = readHolderPassLink(params.id);
  if (link.kind === 'repaired') {
    // Relative (RFC 9110 §10.2.2): the holder stays on the host the link named.
    const canonical = `/passes/${link.id}${platformOverride ? `/${platformOverride}` : ''}`;
    return { status: 308, headers: { Location: canonical, 'Cache-Control': 'no-store' }, body: undefined };
  }
  const pass = link.kind === 'canonical' ? await findPassByUuid(ctx.db.prisma, link.id) : null;
  if (!pass || pass.status === 'nullified') {
    if (!prefersHtml(headers)) {
      if (link.kind === 'malformed') throw new ValidationError({ detail: 'id must be a pass UUID.', source: { parameter: 'id' } });
      if (!pass) throw new NotFoundError(`No pass with id ${params.id} exists.`, { parameter: 'id' });
      throw new GoneError('pass_nullified', `The pass ${pass.id} was nullified and is no longer valid.`, { parameter: 'id' });
    }
    const notice = renderNoticePage(pass ? 'gone' : 'notFound', pageLanguage, t);
    return { status: pass ? 410 : 404, headers: pageHeaders(notice, vary), body: notice.html };
  }
  const page = await passPage(input, pass, pageLanguage, t, platformOverride);
  return { status: 200, headers: pageHeaders(page, vary), body: page.html };
}

/** The page of an active or deactivated pass, from the cache when its pass, template, language and platform are unchanged. */
async function passPage(
  { headers, acceptsLanguages, ctx }: HolderPageInput,
  pass: PassRow,
  pageLanguage: string,
  t: PageMessages,
  platformOverride: HolderPlatform | null,
): Promise<RenderedPage> {
  const prisma = ctx.db.prisma;
  const template = await prisma.passTemplate.findUniqueOrThrow({
    where: { id: pass.templateId },
    select: { name: true, description: true, notificationHeader: true, applePassTypeIdentifier: true, updatedAt: true },
  });
  const { version, templateLanguages } = await cachedTemplateView(pass.templateId, template.updatedAt, async () => {
    const row = await selectLatestProcessedVersion(prisma, pass.templateId);
    return { version: row ? row.version : null, templateLanguages: row ? designLanguages(designOfVersion(row)) : ['en'] };
  });
  const language = acceptsLanguages(templateLanguages) || templateLanguages[0]!;
  const platform = platformOverride ?? platformOf(typeof headers['user-agent'] === 'string' ? headers['user-agent'] : undefined);
  const key = {
    baseUrl: ctx.baseUrl,
    passId: pass.id,
    passUpdatedAt: pass.updatedAt,
    templateUpdatedAt: template.updatedAt,
    designVersion: version,
    pageLanguage,
    cardLanguage: language,
    platform: `${platform}${platformOverride ? '!' : ''}`,
  };
  return cachedHolderPage(key, async () => {
    const actions = await walletActions(ctx, pass, template.applePassTypeIdentifier, platform, t);
    const shown = version === null ? null : await walletCard(ctx, pass, language, platform === 'google' && actions.google !== null ? 'google' : 'apple');
    return renderPassPage({
      title: template.name,
      description: template.description,
      pageLanguage,
      t,
      language,
      card: shown?.card ?? null,
      listedFields: shown?.listedFields ?? [],
      iconUrl: version === null ? null : await templateIconUrl(ctx, pass.templateId, version),
      barcode: webPassBarcode(pass, t),
      latestMessage: pass.latestMessage ? { heading: template.notificationHeader, text: pass.latestMessage } : null,
      state: pass.status === 'deactivated' ? 'inactive' : 'active',
      platform,
      ...actions,
    });
  });
}

/**
 * The card of the web pass: the pass preview's front (src/wallet/preview/, as
 * `GET /api/v1/passes/{id}/preview` draws it) in the card's language, so the page shows what the
 * wallet will — but without its barcode, which the page shows once, large, under its own heading
 * (two alike codes on one page would leave the holder guessing which one to show). The Google Wallet card on an Android phone whose account can save to Google Wallet
 * (`wallet` google), else the Apple Wallet front (iPhone, desktop, and Android without Google: the
 * `.pkpass` is what those holders get).
 * @returns The card and the fields to list as text under it: the back fields (the latest message
 *   is shown apart, so left out), after the front ones when the preview fonts cannot draw a
 *   character of the card (a `glyph_missing` warning).
 */
async function walletCard(
  ctx: HolderPageInput['ctx'],
  pass: PassRow,
  language: string,
  wallet: 'apple' | 'google',
): Promise<{ card: WalletCard; listedFields: PassPageView['listedFields'] }> {
  const source = await previewSourceOfPass(ctx.db.prisma, pass, { lang: language, withoutBarcode: true });
  const rendered = await renderPreview(source.card, { platform: wallet, side: 'front' });
  // Each drawn field as `label: value`, in the order drawn (a primary field draws its value first).
  const parts = new Map<string, Map<string, string>>();
  for (const { region, pointer, part, text } of rendered.texts) {
    const key = `${region}|${pointer}`;
    parts.set(key, (parts.get(key) ?? new Map()).set(part, text));
  }
  const texts = [...parts.values()].map((byPart) => {
    const { label, value } = Object.fromEntries(byPart) as Record<string, string | undefined>;
    return label && value ? `${label}: ${value}` : [...byPart.values()].filter(Boolean).join(' ');
  });
  // When the card shows a character no preview font has (a private-use character, an emoji…), its
  // fields are listed as text too, so the holder's browser can draw them.
  const { header, primary, secondary, auxiliary, back } = source.card;
  const listed = rendered.warnings.some((w) => w.code === 'glyph_missing') ? [...header, ...primary, ...secondary, ...auxiliary] : [];
  const fields = [...listed, ...back.filter((f) => f.pointer !== '/latestMessage')].map(({ label, value }) => ({ label, value }));
  return { card: { svg: rendered.svg, texts }, listedFields: fields };
}

/** The same-origin URL of a version's icon (the largest of 1x and 2x; null: none). */
async function templateIconUrl(ctx: HolderPageInput['ctx'], templateId: string, version: number): Promise<string | null> {
  const rows = await ctx.db.prisma.passTemplateImage.findMany({
    where: { templateId, version, name: { in: ['icon.png', 'icon@2x.png'] } },
    select: { name: true },
  });
  const names = new Set(rows.map((r) => r.name));
  const name = names.has('icon@2x.png') ? 'icon@2x.png' : names.has('icon.png') ? 'icon.png' : null;
  return name ? `/media/pass-templates/${templateId}/versions/${version}/${name}` : null;
}

/** The pass's barcode for the web pass (null: barcode disabled). */
function webPassBarcode(pass: PassRow, t: PageMessages): PassPageView['barcode'] {
  const barcode = pass.barcode as BarcodeSettings | null;
  if (!barcode?.enabled) return null;
  const value = identifierValue(barcode.source, pass, barcode.value);
  const label = escapeHtml(t('webPass.barcodeLabel', { symbology: t(`symbology.${barcode.type}`) }));
  return {
    svg: barcodeSvg(barcode.type, value, label),
    shape: isMatrixCode(barcode.type) ? 'matrix' : 'linear',
    caption: barcodeCaption(barcode, value) ?? null,
  };
}

/** The wallet actions the account can serve for an active pass, and the desktop QR code of the page. */
async function walletActions(
  ctx: HolderPageInput['ctx'],
  pass: PassRow,
  passTypeIdentifier: string | null,
  platform: HolderPlatform,
  t: PageMessages,
): Promise<Pick<PassPageView, 'apple' | 'google' | 'qrSvg'>> {
  if (pass.status === 'deactivated') return { apple: null, google: null, qrSvg: null };
  const [appleConfiguration, saveLink, badges] = await Promise.all([
    selectSigningConfiguration(ctx.db.prisma, pass.accountId, passTypeIdentifier),
    googleSaveLink(ctx, pass).catch((error: unknown) => {
      ctx.log.warn({ passId: pass.id, err: error instanceof Error ? error.message : String(error) }, 'no Google Wallet save link for the holder page');
      return null;
    }),
    walletBadges(ctx.config.holderPageBadgesDir),
  ]);
  const pageUrl = passDownloadUrl(ctx.baseUrl, pass.id);
  const qrSvg =
    platform === 'other' && (appleConfiguration !== null || saveLink !== null)
      ? (await QRCode.toString(pageUrl, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 })).replace(
          '<svg ',
          `<svg role="img" aria-label="${escapeHtml(t('qr.label'))}" `,
        )
      : null;
  return {
    apple: appleConfiguration ? { href: `/passes/${pass.id}/apple`, badge: badges.apple } : null,
    google: saveLink ? { href: saveLink, badge: badges.google } : null,
    qrSvg,
  };
}
