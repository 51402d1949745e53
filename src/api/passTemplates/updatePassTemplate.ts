import type { OperationHandler } from '../../http/operation.ts';
import { accountOf } from '../../http/operation.ts';
import { updateTemplate } from '../../domain/passTemplates/passTemplateService.ts';
import { passTemplateUrl, processingMeta, processingResource, serializePassTemplate } from '../../domain/passTemplates/serializePassTemplate.ts';

/**
 * `PATCH /api/v1/pass-templates/{id}` (PassEntry API reference: Update a pass template; pass template processing rule 2): 200 with the template when the
 * change was applied at once; 202 with the processing template, `meta.links.self` and
 * `Location` when the design changed.
 * @throws NotFoundError for an unknown template or another account's; ValidationError for a
 *   misplaced `transitType`.
 */
export const updatePassTemplate: OperationHandler<'updatePassTemplate'> = async ({ params, body, write, ctx }) => {
  const { row, reprocessing } = await write((tx) => updateTemplate(tx, ctx.jobs, accountOf(ctx), params.id, body.passTemplate));
  ctx.log.info({ templateId: row.id, reprocessing, designVersion: row.designVersion }, 'pass template updated');
  if (!reprocessing) return { status: 200, body: { data: serializePassTemplate(row) } };
  const url = passTemplateUrl(ctx.baseUrl, row.id);
  return { status: 202, headers: { Location: url }, body: { data: processingResource(row), meta: processingMeta(url) } };
};
