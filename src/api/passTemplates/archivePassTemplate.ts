import type { OperationHandler } from '../../http/operation.ts';
import { accountOf } from '../../http/operation.ts';
import { setTemplateArchived } from '../../domain/passTemplates/passTemplateService.ts';
import { serializePassTemplate } from '../../domain/passTemplates/serializePassTemplate.ts';

/**
 * `POST /api/v1/pass-templates/{id}/archive`: no more passes from it; lists leave it out.
 * @throws NotFoundError (parameter `id`) for a template the account does not have.
 */
export const archivePassTemplate: OperationHandler<'archivePassTemplate'> = async ({ params, write, ctx }) => {
  const row = await write((tx) => setTemplateArchived(tx, accountOf(ctx), params.id, ctx.clock.now()));
  return { status: 200, body: { data: serializePassTemplate(row) } };
};
