import type { OperationHandler } from '../../http/operation.ts';
import { accountOf } from '../../http/operation.ts';
import { setTemplateArchived } from '../../domain/passTemplates/passTemplateService.ts';
import { serializePassTemplate } from '../../domain/passTemplates/serializePassTemplate.ts';

/**
 * `POST /api/v1/pass-templates/{id}/unarchive`: the template is current again.
 * @throws NotFoundError (parameter `id`) for a template the account does not have.
 */
export const unarchivePassTemplate: OperationHandler<'unarchivePassTemplate'> = async ({ params, write, ctx }) => {
  const row = await write((tx) => setTemplateArchived(tx, accountOf(ctx), params.id, null));
  return { status: 200, body: { data: serializePassTemplate(row) } };
};
