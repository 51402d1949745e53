import type { OperationHandler, OperationResult } from '../../http/operation.ts';
import { accountOf } from '../../http/operation.ts';
import { imageFetchOptions } from '../../domain/passTemplates/processPassTemplate.ts';
import { unsavedPreviewSource } from '../../domain/passTemplates/templatePreview.ts';
import { previewResponse } from '../../http/previewResponse.ts';

/**
 * `POST /api/v1/pass-templates/preview`: an unsaved design (the create body) as Apple Wallet or
 * Google Wallet would show it. Stores nothing; an image that cannot be used is a 400 naming it.
 */
export const createPassTemplatePreview: OperationHandler<'createPassTemplatePreview'> = async ({ body, query, headers, ctx }) => {
  const source = await unsavedPreviewSource(ctx.db.prisma, accountOf(ctx), body.passTemplate, imageFetchOptions(ctx), {
    lang: query.lang,
    acceptLanguage: headers['accept-language'],
  });
  return (await previewResponse(source, query, headers)) as OperationResult<'createPassTemplatePreview'>;
};
