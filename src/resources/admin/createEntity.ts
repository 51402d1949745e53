import type { OperationHandler } from '../../http/operation.ts';
import { requireAccount } from './accountStore.ts';
import { insertEntity } from '../entities/entityStore.ts';
import { serializeEntity } from '../entities/serializeEntity.ts';

/** `POST /admin/v1/accounts/{accountId}/entities`. */
export const createEntity: OperationHandler<'createEntity'> = async ({ params, body, ctx }) => {
  await requireAccount(ctx.db.prisma, params.accountId);
  const row = await insertEntity(ctx.db.prisma, params.accountId, body.entity);
  return {
    status: 201,
    headers: { Location: `${ctx.baseUrl}/admin/v1/entities/${row.id}` },
    body: { data: serializeEntity(row, ctx.baseUrl) },
  };
};
