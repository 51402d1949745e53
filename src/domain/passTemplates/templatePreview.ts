/**
 * What a pass template preview is drawn from: the template's newest processed design
 * with its processed images, or an unsaved design (the body of `createPassTemplate`) with its
 * images fetched and drawn as processing draws them; the language chosen; and the tag of what
 * was read, from which the HTTP edge makes the entity tag. Rendering is src/wallet/preview/.
 *
 * @module domain/passTemplates/templatePreview
 */
import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { PrismaExecutor } from '../../db/database.ts';
import { ConflictError, ValidationError } from '../../errors.ts';
import { designLanguages, previewCard, type PreviewCard, type PreviewImages, type PreviewPassData } from '../../wallet/preview/previewCard.ts';
import type { TemplateDesign } from '../../wallet/templateDesign.ts';
import { appleImageRoles, drawBundleImages, loadImage, pngSize, TemplateImageError, type ImageFetchOptions } from '../../wallet/templateImages.ts';
import { designOf, newTemplateContent, type PassTemplateCreate } from './templateContent.ts';
import { designOfVersion, selectAccountTemplate, selectLatestProcessedVersion, selectVersionImages, templateNotFound } from './passTemplateStore.ts';

/** A preview to draw: the card and a tag naming everything it was built from (not the options). */
export interface PreviewSource {
  card: PreviewCard;
  language: string;
  tag: string;
}

/**
 * The language of a preview: `lang` when the design has it; else the first language of
 * `Accept-Language` (RFC 9110 §12.5.4, by quality) the design has; else its default language.
 * @throws ValidationError (parameter `lang`) for a language the design is not localised into.
 */
export function previewLanguage(design: TemplateDesign, lang: string | undefined, acceptLanguage: string | undefined): string {
  const languages = designLanguages(design);
  if (lang !== undefined) {
    if (languages.includes(lang)) return lang;
    throw new ValidationError({ detail: `The template has no texts in ${lang}; it has ${languages.join(', ')}.`, source: { parameter: 'lang' } });
  }
  const wanted = (acceptLanguage ?? '')
    .split(',')
    .map((part) => {
      const [range = '', ...params] = part.trim().split(';');
      const q = Number(
        params
          .find((p) => p.trim().startsWith('q='))
          ?.trim()
          .slice(2) ?? 1,
      );
      return { language: range.trim().toLowerCase().split('-')[0]!, q: Number.isNaN(q) ? 0 : q };
    })
    .filter((entry) => entry.language && entry.q > 0)
    .sort((a, b) => b.q - a.q);
  return wanted.find((entry) => languages.includes(entry.language))?.language ?? design.defaultLanguage;
}

/**
 * Images of unsaved designs already drawn (a `data:` URL and the size in pixels), by role and
 * SHA-256 of their reference: a designer sends the same images with every change, and a URL is
 * fetched once (at most 32 MB kept).
 */
const drawnImages = new LRUCache<string, { url: string; width: number; height: number }>({
  maxSize: 32 * 1024 * 1024,
  sizeCalculation: (drawn) => drawn.url.length,
});

const dataUrl = (png: Uint8Array) => `data:image/png;base64,${Buffer.from(png).toString('base64')}`;

/** The preview images of a processed version: its logo (with its size), icon and strip at 2x (the strip is also Google's hero image). */
function storedImages(images: Map<string, Uint8Array>): PreviewImages {
  const out: PreviewImages = {};
  const logo = images.get('logo@2x.png');
  const icon = images.get('icon@2x.png');
  const strip = images.get('strip@2x.png');
  if (logo) {
    out.logo = dataUrl(logo);
    const size = pngSize(logo);
    if (size) out.logoSize = size;
  }
  if (icon) out.icon = dataUrl(icon);
  if (strip) out.strip = out.hero = dataUrl(strip);
  return out;
}

/** The newest processed design of a template, its images and version; what previews of it and of its passes show. */
export async function processedDesign(prisma: PrismaExecutor, templateId: string) {
  const version = await selectLatestProcessedVersion(prisma, templateId);
  if (!version) return null;
  return { design: designOfVersion(version), version: version.version, images: storedImages(await selectVersionImages(prisma, templateId, version.version)) };
}

/**
 * The preview of a stored template, or of one pass of it (`pass`).
 * @throws NotFoundError for a template not in the account; ConflictError `template_not_processed`
 *   when no design of it is processed yet; ValidationError for `lang` (see {@link previewLanguage}).
 */
export async function templatePreviewSource(
  prisma: PrismaExecutor,
  accountId: string,
  templateId: string,
  options: { lang?: string; acceptLanguage?: string; pass?: PreviewPassData & { tag: string } },
): Promise<PreviewSource> {
  const template = await selectAccountTemplate(prisma, accountId, templateId);
  if (!template) throw templateNotFound(templateId);
  const processed = await processedDesign(prisma, templateId);
  if (!processed) {
    throw new ConflictError(
      `The pass template ${templateId} has no processed design yet; preview the design with POST /api/v1/pass-templates/preview.`,
      { parameter: 'id' },
      'template_not_processed',
    );
  }
  const account = await prisma.account.findUniqueOrThrow({ where: { id: accountId }, select: { name: true } });
  const language = previewLanguage(processed.design, options.lang, options.acceptLanguage);
  const card = previewCard(processed.design, language, processed.images, { issuerName: account.name, ...options.pass });
  return { card, language, tag: `${templateId}/${processed.version}/${options.pass?.tag ?? 'template'}/${account.name}` };
}

/**
 * The preview of an unsaved design of an account (its name is the issuer's on Google cards):
 * defaults applied as create applies them; its images fetched
 * (`data:` URLs or URLs, through the outbound guard) and drawn at Apple's sizes as processing does.
 * @throws ValidationError naming `/passTemplate/images/<member>` for an image that cannot be
 *   fetched or read; for `lang` (see {@link previewLanguage}).
 */
export async function unsavedPreviewSource(
  prisma: PrismaExecutor,
  accountId: string,
  input: PassTemplateCreate,
  fetchOptions: ImageFetchOptions,
  options: { lang?: string; acceptLanguage?: string },
): Promise<PreviewSource> {
  const design = designOf(newTemplateContent(input));
  const language = previewLanguage(design, options.lang, options.acceptLanguage);
  const drawn = await Promise.all(
    appleImageRoles(design).map(async ({ member, role, box }) => {
      const key = `${role}/${createHash('sha256').update(design.images[member]!).digest('base64url')}`;
      const cached = drawnImages.get(key);
      if (cached) return { role, ...cached };
      try {
        const files = await drawBundleImages(await loadImage(design.images[member]!, fetchOptions), role, box);
        const file = files.find((f) => f.name.endsWith('@2x.png'))!;
        const drawn = { url: dataUrl(file.png), width: file.width, height: file.height };
        drawnImages.set(key, drawn);
        return { role, ...drawn };
      } catch (error) {
        if (!(error instanceof TemplateImageError)) throw error;
        throw new ValidationError({ detail: `images.${member}: ${error.message}`, source: { pointer: `/passTemplate/images/${member}` } });
      }
    }),
  );
  const images: PreviewImages = {};
  for (const { role, url, width, height } of drawn) {
    if (role === 'strip') images.strip = images.hero = url;
    else if (role !== 'eventLogo') images[role] = url;
    if (role === 'logo') images.logoSize = { width, height };
  }
  const account = await prisma.account.findUniqueOrThrow({ where: { id: accountId }, select: { name: true } });
  const tag = createHash('sha256')
    .update(JSON.stringify([design, account.name]))
    .digest('base64url')
    .slice(0, 22);
  return { card: previewCard(design, language, images, { issuerName: account.name }), language, tag: `unsaved/${tag}` };
}
