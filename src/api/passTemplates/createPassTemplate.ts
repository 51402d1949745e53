import type { OperationHandler } from '../../http/operation.ts';
import { accountOf } from '../../http/operation.ts';
import { createTemplate } from '../../domain/passTemplates/passTemplateService.ts';
import { passTemplateUrl, processingMeta, processingResource } from '../../domain/passTemplates/serializePassTemplate.ts';

/**
 * `POST /api/v1/pass-templates` (PassEntry API reference: Create a pass template): stores the template with its processing job and
 * answers 202 with PassEntry's shape (the processing template at the top level, not under `data`)
 * and `Location`, both pointing at the URL to poll.
 */
export const createPassTemplate: OperationHandler<'createPassTemplate'> = async ({ body, write, ctx }) => {
  const row = await write((tx) => createTemplate(tx, ctx.jobs, accountOf(ctx), body.passTemplate));
  ctx.log.info({ templateId: row.id }, 'pass template created');
  const url = passTemplateUrl(ctx.baseUrl, row.id);
  return { status: 202, headers: { Location: url }, body: { ...processingResource(row), meta: processingMeta(url) } };
};
