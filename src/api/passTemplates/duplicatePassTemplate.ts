import type { OperationHandler } from '../../http/operation.ts';
import { accountOf } from '../../http/operation.ts';
import { duplicateTemplate } from '../../domain/passTemplates/passTemplateService.ts';
import { passTemplateUrl, processingMeta, processingResource } from '../../domain/passTemplates/serializePassTemplate.ts';

/**
 * `POST /api/v1/pass-templates/{id}/duplicate`: a new template with this one's content, processed
 * as a created one; answers as createPassTemplate does (202, `Location`).
 * @throws NotFoundError (parameter `id`) for a template the account does not have.
 */
export const duplicatePassTemplate: OperationHandler<'duplicatePassTemplate'> = async ({ params, body, write, ctx }) => {
  const row = await write((tx) => duplicateTemplate(tx, ctx.jobs, accountOf(ctx), params.id, body?.passTemplate?.name));
  ctx.log.info({ templateId: row.id, from: params.id }, 'pass template duplicated');
  const url = passTemplateUrl(ctx.baseUrl, row.id);
  return { status: 202, headers: { Location: url }, body: { ...processingResource(row), meta: processingMeta(url) } };
};
