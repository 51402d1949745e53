import type { OperationHandler } from '../../http/operation.ts';
import { accountOf } from '../../http/operation.ts';
import { selectAccountTemplate } from './passTemplateStore.ts';
import { templateNotFound } from './passTemplateService.ts';
import { serializeLegacyPassTemplate } from './serializeLegacyPassTemplate.ts';

/**
 * `GET /api/v1/pass_templates/{pass_template_uuid}` (spec §4.5, deprecated): the template in the
 * legacy form of spec §2.2. Another account's template is a 404.
 */
export const getLegacyPassTemplate: OperationHandler<'getLegacyPassTemplate'> = async ({ params, ctx }) => {
  const row = await selectAccountTemplate(ctx.db.prisma, accountOf(ctx), params.pass_template_uuid);
  if (!row) throw templateNotFound(params.pass_template_uuid, 'pass_template_uuid');
  return { status: 200, body: { data: serializeLegacyPassTemplate(row) } };
};
