import type { OperationHandler } from '../../http/operation.ts';
import { accountOf } from '../../http/operation.ts';
import { pageEnvelope, pageRequest } from '../../http/pagination.ts';
import { selectPassPage } from '../../domain/passes/passStore.ts';
import { serializePass } from '../../domain/passes/serializePass.ts';

/** Default page size of pass lists (PassEntry API reference: limits: 25 where the spec shows no other). */
export const PASSES_PER_PAGE = 25;

/** `GET /api/v1/passes`: the caller's passes, newest first, filtered and paginated (PassEntry API reference: pagination). */
export const listPasses: OperationHandler<'listPasses'> = async ({ query, url, ctx }) => {
  const page = pageRequest(query, PASSES_PER_PAGE);
  const filters = { templateId: query.passTemplate, status: query.status, extId: query.extId, groupTag: query.groupTag, search: query.search };
  const { rows, total } = await selectPassPage(ctx.db.prisma, accountOf(ctx), filters, page);
  return {
    status: 200,
    body: { data: rows.map((row) => serializePass(row, ctx.baseUrl)), ...pageEnvelope(page, total, ctx.baseUrl, url) },
  };
};
