import Negotiator from 'negotiator';
import QRCode from 'qrcode';
import type { OperationHandler, OperationInput } from '../../http/operation.ts';
import { GoneError, NotFoundError } from '../../errors.ts';
import { googleSaveLink } from '../../domain/googleWallet/googleSaveLink.ts';
import type { TemplateField } from '../../wallet/templateDesign.ts';
import { placedFields } from '../../wallet/templateDesign.ts';
import { selectSigningConfiguration } from '../../domain/appleConfigurations/appleConfigurationStore.ts';
import { designOfVersion, selectLatestProcessedVersion } from '../../domain/passTemplates/passTemplateStore.ts';
import { barcodeCaption, identifierValue, type BarcodeSettings } from '../../domain/passes/passRules.ts';
import { findPassByUuid } from '../../domain/passes/passStore.ts';
import { passContentOf, passDownloadUrl } from '../../domain/passes/serializePass.ts';
import { renderNoticePage, renderPassPage, type PreviewField, type RenderedPage } from '../../domain/holderPages/holderPageHtml.ts';
import { platformOf, type HolderPlatform } from '../../domain/holderPages/holderPlatform.ts';
import { walletBadges } from '../../domain/holderPages/walletBadges.ts';

/** Headers of every holder page: no cache, no referrer, the page's own CSP. */
function pageHeaders(page: RenderedPage): Record<string, string> {
  return {
    'Content-Type': 'text/html; charset=utf-8',
    'Cache-Control': 'no-store',
    'Referrer-Policy': 'no-referrer',
    'X-Robots-Tag': 'noindex, nofollow',
    'Content-Security-Policy': page.contentSecurityPolicy,
  };
}

/** Whether the client prefers HTML to JSON (`Accept`, RFC 9110 §12.5.1): browsers do. */
function prefersHtml(headers: Record<string, string | string[] | undefined>): boolean {
  return new Negotiator({ headers }).mediaType(['application/json', 'text/html']) === 'text/html';
}

/** The preferred language among those the template has (`Accept-Language`, RFC 9110 §12.5.4), else its default. */
function languageOf(acceptLanguage: string | undefined, defaultLanguage: string, fields: TemplateField[]): string {
  const available = [defaultLanguage, ...new Set(fields.flatMap((f) => Object.keys(f.localisation ?? {})))];
  if (!acceptLanguage) return defaultLanguage;
  return new Negotiator({ headers: { 'accept-language': acceptLanguage } }).language(available) ?? defaultLanguage;
}

/**
 * `GET /passes/{id}`: the holder page behind a pass's `downloadUrl` (src/domain/holderPages/holderPageHtml.ts):
 * the wallet actions the holder's platform takes (src/domain/holderPages/holderPlatform.ts),
 * a preview of the pass, and for desktops a QR code of the page's URL.
 * @throws NotFoundError (unknown UUID) and GoneError (nullified pass) when the client prefers JSON;
 *   a browser gets the 404 and 410 pages instead.
 */
export const getHolderPassPage: OperationHandler<'getHolderPassPage'> = (input) => holderPassPage(input, null);

/** What a holder page answers: the page (200), or the 404 and 410 pages. */
type HolderPageResult =
  | { status: 200; headers: Record<string, string>; body: string }
  | { status: 404; headers: Record<string, string>; body: string }
  | { status: 410; headers: Record<string, string>; body: string };

/**
 * Builds a holder page (getHolderPassPage, getGoogleHolderPassPage).
 * @param platformOverride The platform whose action comes first; null: from `User-Agent`.
 * @throws NotFoundError (unknown UUID) and GoneError (nullified pass) when the client prefers JSON.
 */
export async function holderPassPage(
  { params, headers, ctx }: Pick<OperationInput<'getHolderPassPage' | 'getGoogleHolderPassPage'>, 'params' | 'headers' | 'ctx'>,
  platformOverride: HolderPlatform | null,
): Promise<HolderPageResult> {
  const prisma = ctx.db.prisma;
  const pass = await findPassByUuid(prisma, params.id);
  if (!pass || pass.status === 'nullified') {
    if (!prefersHtml(headers)) {
      if (!pass) throw new NotFoundError(`No pass with id ${params.id} exists.`, { parameter: 'id' });
      throw new GoneError('pass_nullified', `The pass ${pass.id} was nullified and is no longer valid.`, { parameter: 'id' });
    }
    const notice = renderNoticePage(pass ? 'gone' : 'notFound');
    return pass ? { status: 410, headers: pageHeaders(notice), body: notice.html } : { status: 404, headers: pageHeaders(notice), body: notice.html };
  }

  const template = await prisma.passTemplate.findUniqueOrThrow({ where: { id: pass.templateId } });
  const version = await selectLatestProcessedVersion(prisma, pass.templateId);
  const design = version ? designOfVersion(version) : null;
  const placed = design ? placedFields(design) : [];
  const language = languageOf(
    headers['accept-language'],
    design?.defaultLanguage ?? 'en',
    placed.map((p) => p.field),
  );
  const content = passContentOf(pass);
  const fields: PreviewField[] = placed.map(({ area, field }) => {
    const translation = language === design!.defaultLanguage ? undefined : field.localisation?.[language as keyof typeof field.localisation];
    const own = field.id === undefined ? undefined : content[field.id];
    const value = own !== undefined && own !== field.defaultValue ? own : (translation?.defaultValue ?? field.defaultValue ?? '');
    return { area, label: translation?.label ?? field.label ?? null, value };
  });
  const images = version
    ? await prisma.passTemplateImage.findMany({
        where: { templateId: pass.templateId, version: version.version, name: { in: ['logo.png', 'logo@2x.png'] } },
        select: { name: true },
      })
    : [];
  const logo = images.some((i) => i.name === 'logo@2x.png') ? 'logo@2x.png' : images.some((i) => i.name === 'logo.png') ? 'logo.png' : null;
  const barcode = pass.barcode as BarcodeSettings | null;
  const barcodeValue = barcode?.enabled ? identifierValue(barcode.source, pass, barcode.value) : null;

  const active = pass.status !== 'deactivated';
  const [appleConfiguration, saveLink, badges] = active
    ? await Promise.all([
        selectSigningConfiguration(prisma, pass.accountId, template.applePassTypeIdentifier),
        googleSaveLink(ctx, pass).catch((error: unknown) => {
          ctx.log.warn({ passId: pass.id, err: error instanceof Error ? error.message : String(error) }, 'no Google Wallet save link for the holder page');
          return null;
        }),
        walletBadges(ctx.config.holderPageBadgesDir),
      ])
    : [null, null, { apple: null, google: null }];
  const platform = platformOverride ?? platformOf(typeof headers['user-agent'] === 'string' ? headers['user-agent'] : undefined);
  const pageUrl = passDownloadUrl(ctx.baseUrl, pass.id);
  const hasAction = appleConfiguration !== null || saveLink !== null;
  const qrSvg =
    active && platform === 'other' && hasAction
      ? (await QRCode.toString(pageUrl, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 })).replace(
          '<svg ',
          '<svg role="img" aria-label="QR code of this page" ',
        )
      : null;

  const rendered = renderPassPage({
    title: template.name,
    description: template.description,
    language,
    colors: design?.colors ?? { background: '#FFFFFF', label: '#000000', text: '#000000' },
    logoUrl: version && logo ? `/media/pass-templates/${pass.templateId}/versions/${version.version}/${logo}` : null,
    fields,
    barcodeText: barcode && barcodeValue !== null ? (barcodeCaption(barcode, barcodeValue) ?? null) : null,
    latestMessage: pass.latestMessage ? { heading: template.notificationHeader ?? 'Message', text: pass.latestMessage } : null,
    state: active ? 'active' : 'inactive',
    platform,
    apple: appleConfiguration ? { href: `/passes/${pass.id}/apple`, badge: badges.apple } : null,
    google: saveLink ? { href: saveLink, badge: badges.google } : null,
    qrSvg,
  });
  return { status: 200, headers: pageHeaders(rendered), body: rendered.html };
}
