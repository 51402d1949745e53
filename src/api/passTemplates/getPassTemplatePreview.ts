import type { OperationHandler, OperationResult } from '../../http/operation.ts';
import { accountOf } from '../../http/operation.ts';
import { templatePreviewSource } from '../../domain/passTemplates/templatePreview.ts';
import { previewResponse } from '../../http/previewResponse.ts';

/**
 * `GET /api/v1/pass-templates/{id}/preview`: the template's newest processed design as Apple
 * Wallet or Google Wallet shows it (SVG, PNG or JSON:API by `Accept`), `304` for a current
 * `If-None-Match`. Another account's template is a 404; one not processed yet a 409.
 */
export const getPassTemplatePreview: OperationHandler<'getPassTemplatePreview'> = async ({ params, query, headers, ctx }) => {
  const source = await templatePreviewSource(ctx.db.prisma, accountOf(ctx), params.id, { lang: query.lang, acceptLanguage: headers['accept-language'] });
  return (await previewResponse(source, query, headers)) as OperationResult<'getPassTemplatePreview'>;
};
