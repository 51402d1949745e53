import type { OperationHandler } from '../../http/operation.ts';
import { accountOf } from '../../http/operation.ts';
import { pageEnvelope, pageRequest } from '../../http/pagination.ts';
import { selectEntityPage } from '../../domain/entities/entityStore.ts';
import { serializeEntity } from '../../domain/entities/serializeEntity.ts';

/** Default page size of entity lists (PassEntry API reference: List entities; limits). */
export const ENTITIES_PER_PAGE = 25;

/** `GET /api/v1/entities` (PassEntry API reference: List entities): the caller's entities, oldest first, paginated. */
export const listEntities: OperationHandler<'listEntities'> = async ({ query, url, ctx }) => {
  const page = pageRequest(query, ENTITIES_PER_PAGE);
  const { rows, total } = await selectEntityPage(ctx.db.prisma, accountOf(ctx), page);
  return {
    status: 200,
    body: { data: rows.map((row) => serializeEntity(row, ctx.baseUrl)), ...pageEnvelope(page, total, ctx.baseUrl, url) },
  };
};
