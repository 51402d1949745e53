import type { OperationHandler } from '../../http/operation.ts';
import { accountOf } from '../../http/operation.ts';
import { selectAccountTemplate, templateNotFound } from '../../domain/passTemplates/passTemplateStore.ts';
import { serializePassTemplate } from '../../domain/passTemplates/serializePassTemplate.ts';

/**
 * `GET /api/v1/pass-templates/{id}` (PassEntry API reference: Show a pass template): one template in the variant of its processing
 * state. Another account's template is a 404.
 */
export const getPassTemplate: OperationHandler<'getPassTemplate'> = async ({ params, ctx }) => {
  const row = await selectAccountTemplate(ctx.db.prisma, accountOf(ctx), params.id);
  if (!row) throw templateNotFound(params.id);
  return { status: 200, body: { data: serializePassTemplate(row) } };
};
