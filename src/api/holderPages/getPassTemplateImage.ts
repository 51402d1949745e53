import type { OperationHandler } from '../../http/operation.ts';
import { NotFoundError } from '../../errors.ts';

/**
 * `GET /media/pass-templates/{templateId}/versions/{version}/{imageName}`: a processed template
 * image, for Google Wallet to fetch by URL (no API key; immutable once processed).
 * @throws NotFoundError when the version has no such image.
 */
export const getPassTemplateImage: OperationHandler<'getPassTemplateImage'> = async ({ params, ctx }) => {
  const image = await ctx.db.prisma.passTemplateImage.findUnique({
    where: { templateId_version_name: { templateId: params.templateId, version: Number(params.version), name: params.imageName } },
    select: { png: true },
  });
  if (!image)
    throw new NotFoundError(`No image ${params.imageName} of version ${params.version} of template ${params.templateId} exists.`, { parameter: 'imageName' });
  return { status: 200, headers: { 'Content-Type': 'image/png', 'Cache-Control': 'public, max-age=31536000, immutable' }, body: image.png };
};
