/**
 * The HTTP side of the preview operations (getPassTemplatePreview, getPassPreview,
 * createPassTemplatePreview): the representation `Accept` asks for — SVG (default), PNG at a
 * scale, or the JSON:API document with the SVG and the warnings —, the entity tag of the
 * template version, pass version and options (`If-None-Match` → 304, RFC 9110 §13.1.2), the
 * `X-Preview-Warnings` header (a Structured Field list, RFC 9651 §3.1), and the cache of rendered
 * output by entity tag (one per process).
 *
 * @module http/previewResponse
 */
import { createHash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { PreviewSource } from '../domain/passTemplates/templatePreview.ts';
import { PreviewCache, rasterisePreview, renderPreview, type CachedPreview, type PreviewScale, type PreviewWarning } from '../wallet/preview/renderPreview.ts';
import { notModified } from './conditionalRequests.ts';

/** The preview query parameters (contract: PreviewPlatform, PreviewSide, PreviewScale). */
export interface PreviewQuery {
  platform?: 'apple' | 'google';
  side?: 'front' | 'back';
  scale?: 1 | 2 | 3;
}

type Format = 'svg' | 'png' | 'json';

/** The renderer's version: part of every entity tag, so a layout change is never served from a client's cache. */
const RENDERER_VERSION = 'preview-2';

/** The rendered previews of this process (src/wallet/preview/renderPreview.ts). */
export const previewCache = new PreviewCache();

/** The representation an `Accept` header asks for (SVG unless it names PNG or JSON:API before SVG). */
export function previewFormat(accept: string | undefined): Format {
  for (const range of (accept ?? '').split(',')) {
    const type = range.split(';')[0]!.trim().toLowerCase();
    if (type === 'image/svg+xml') return 'svg';
    if (type === 'image/png') return 'png';
    if (type === 'application/vnd.api+json') return 'json';
  }
  return 'svg';
}

/** `X-Preview-Warnings`: `code;pointer="…"` items (RFC 9651 sf-string: `\` and `"` escaped). */
export function warningsHeader(warnings: PreviewWarning[]): string {
  return warnings.map((w) => `${w.code};pointer="${w.pointer.replace(/[\\"]/g, (c) => `\\${c}`).replace(/[^\x20-\x7e]/g, '?')}"`).join(', ');
}

/**
 * Answers a preview request.
 * @returns `304` when `If-None-Match` names the entity tag; else `200` with the representation.
 * @throws Error from the renderer (an unencodable barcode), answered 500 by the error handler.
 */
export async function previewResponse(source: PreviewSource, query: PreviewQuery, headers: IncomingHttpHeaders) {
  const platform = query.platform ?? 'apple';
  const side = query.side ?? 'front';
  const scale: PreviewScale = query.scale ?? 2;
  const format = previewFormat(headers.accept);
  const options = [RENDERER_VERSION, source.tag, source.language, platform, side, format, format === 'png' ? scale : ''].join('|');
  const id = `preview-${createHash('sha256').update(options).digest('base64url').slice(0, 27)}`;
  const etag = `"${id}"`;
  if (headers['if-none-match'] !== undefined && notModified(headers, { etag, lastModified: new Date(0) })) {
    return { status: 304 as const, headers: { ETag: etag }, body: undefined };
  }
  const entry: CachedPreview = await previewCache.getOrRender(etag, async () => {
    const rendered = await renderPreview(source.card, { platform, side });
    const body =
      format === 'png'
        ? rasterisePreview(rendered.svg, scale)
        : format === 'json'
          ? JSON.stringify({
              data: {
                type: 'passPreview',
                id,
                attributes: {
                  platform,
                  side,
                  language: source.language,
                  width: rendered.width,
                  height: rendered.height,
                  svg: rendered.svg,
                  warnings: rendered.warnings,
                },
              },
            })
          : rendered.svg;
    return { body, warnings: rendered.warnings };
  });
  const contentType = format === 'png' ? 'image/png' : format === 'json' ? 'application/vnd.api+json' : 'image/svg+xml; charset=utf-8';
  const responseHeaders: Record<string, string> = {
    ETag: etag,
    'Content-Type': contentType,
    'Cache-Control': 'private, no-cache',
    Vary: 'Accept, Accept-Language',
  };
  if (entry.warnings.length) responseHeaders['X-Preview-Warnings'] = warningsHeader(entry.warnings);
  const body = format === 'json' ? (JSON.parse(entry.body as string) as unknown) : entry.body;
  return { status: 200 as const, headers: responseHeaders, body };
}
