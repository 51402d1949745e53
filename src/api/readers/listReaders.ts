import type { OperationHandler } from '../../http/operation.ts';
import { accountOf } from '../../http/operation.ts';
import { pageEnvelope, pageRequest } from '../../http/pagination.ts';
import { requireAccountEntity } from '../../domain/entities/entityStore.ts';
import { selectEntityReaders } from '../../domain/readers/readerStore.ts';
import { serializeReader } from '../../domain/readers/serializeReader.ts';

/**
 * `GET /api/v1/entities/{entity_id}/readers`: the entity's readers by name, paginated.
 * @throws NotFoundError (parameter `entity_id`) for an unknown entity or another account's.
 */
export const listReaders: OperationHandler<'listReaders'> = async ({ params, query, url, ctx }) => {
  const page = pageRequest(query, 25);
  const entity = await requireAccountEntity(ctx.db.prisma, accountOf(ctx), params.entity_id, 'entity_id');
  const [rows, total] = await selectEntityReaders(ctx.db.prisma, entity.id, page);
  return { status: 200, body: { data: rows.map(serializeReader), ...pageEnvelope(page, total, ctx.baseUrl, url) } };
};
