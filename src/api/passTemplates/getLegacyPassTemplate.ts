import type { OperationHandler } from '../../http/operation.ts';
import { accountOf } from '../../http/operation.ts';
import { selectAccountTemplate, templateNotFound } from '../../domain/passTemplates/passTemplateStore.ts';
import { serializeLegacyPassTemplate } from '../../domain/passTemplates/serializeLegacyPassTemplate.ts';

/**
 * `GET /api/v1/pass_templates/{pass_template_uuid}` (PassEntry API reference: Show a pass template (deprecated), deprecated): the template in the
 * legacy form of PassEntry API reference: the legacy pass template. Another account's template is a 404.
 */
export const getLegacyPassTemplate: OperationHandler<'getLegacyPassTemplate'> = async ({ params, ctx }) => {
  const row = await selectAccountTemplate(ctx.db.prisma, accountOf(ctx), params.pass_template_uuid);
  if (!row) throw templateNotFound(params.pass_template_uuid, 'pass_template_uuid');
  return { status: 200, body: { data: serializeLegacyPassTemplate(row) } };
};
