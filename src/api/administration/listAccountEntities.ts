import type { OperationHandler } from '../../http/operation.ts';
import { pageEnvelope, pageRequest } from '../../http/pagination.ts';
import { requireAccount } from '../../domain/accounts/accountStore.ts';
import { selectEntityPage } from '../../domain/entities/entityStore.ts';
import { serializeEntity } from '../../domain/entities/serializeEntity.ts';
import { ENTITIES_PER_PAGE } from '../entities/listEntities.ts';

/** `GET /admin/v1/accounts/{accountId}/entities`: an account's entities, oldest first. */
export const listAccountEntities: OperationHandler<'listAccountEntities'> = async ({ params, query, url, ctx }) => {
  const page = pageRequest(query, ENTITIES_PER_PAGE);
  await requireAccount(ctx.db.prisma, params.accountId);
  const { rows, total } = await selectEntityPage(ctx.db.prisma, params.accountId, page);
  return {
    status: 200,
    body: { data: rows.map((row) => serializeEntity(row, ctx.baseUrl)), ...pageEnvelope(page, total, ctx.baseUrl, url) },
  };
};
