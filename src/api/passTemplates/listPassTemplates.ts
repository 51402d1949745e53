import type { OperationHandler } from '../../http/operation.ts';
import { accountOf } from '../../http/operation.ts';
import { pageEnvelope, pageRequest } from '../../http/pagination.ts';
import { selectTemplatePage } from '../../domain/passTemplates/passTemplateStore.ts';
import { parseFieldset, serializePassTemplate } from '../../domain/passTemplates/serializePassTemplate.ts';

/** Default page size of template lists (PassEntry API reference: List pass templates; limits). */
export const PASS_TEMPLATES_PER_PAGE = 10;

/**
 * `GET /api/v1/pass-templates` (PassEntry API reference: List pass templates): the caller's templates, oldest first, optionally of
 * one `templateType`, with a sparse fieldset when `fields` is given; archived ones only with `archived=true`.
 * @throws ValidationError (parameter `fields`) naming unknown attribute names.
 */
export const listPassTemplates: OperationHandler<'listPassTemplates'> = async ({ query, url, ctx }) => {
  const fieldset = query.fields === undefined ? undefined : parseFieldset(query.fields);
  const page = pageRequest(query, PASS_TEMPLATES_PER_PAGE);
  const { rows, total } = await selectTemplatePage(ctx.db.prisma, accountOf(ctx), query.templateType, page, query.archived ?? false);
  return {
    status: 200,
    body: { data: rows.map((row) => serializePassTemplate(row, fieldset)), ...pageEnvelope(page, total, ctx.baseUrl, url) },
  };
};
