import type { OperationHandler, OperationResult } from '../../http/operation.ts';
import { accountOf } from '../../http/operation.ts';
import { passPreviewSource } from '../../domain/passes/passPreview.ts';
import { previewResponse } from '../../http/previewResponse.ts';

/**
 * `GET /api/v1/passes/{id}/preview`: one pass (UUID or extId) as Apple Wallet or Google Wallet
 * shows it, with its values, points, barcode and latest message (SVG, PNG or JSON:API by
 * `Accept`), `304` for a current `If-None-Match`. Another account's pass is a 404.
 */
export const getPassPreview: OperationHandler<'getPassPreview'> = async ({ params, query, headers, ctx }) => {
  const source = await passPreviewSource(ctx.db.prisma, accountOf(ctx), params.id, { lang: query.lang, acceptLanguage: headers['accept-language'] });
  return (await previewResponse(source, query, headers)) as OperationResult<'getPassPreview'>;
};
