import type { OperationHandler } from '../../http/operation.ts';
import { requireAccount } from '../../domain/accounts/accountStore.ts';
import { insertEntity } from '../../domain/entities/entityStore.ts';
import { insertReaderConfiguration } from '../../domain/readerConfigurations/readerConfigurationStore.ts';
import { serializeEntity } from '../../domain/entities/serializeEntity.ts';

/**
 * `POST /admin/v1/accounts/{accountId}/entities`. The entity's reader configuration (PassEntry API reference: the reader configuration resource:
 * fresh NFC key and reader API key) is created in the same transaction.
 */
export const createEntity: OperationHandler<'createEntity'> = async ({ params, body, write, ctx }) => {
  await requireAccount(ctx.db.prisma, params.accountId);
  const row = await write(async (tx) => {
    const entity = await insertEntity(tx, params.accountId, body.entity);
    await insertReaderConfiguration(tx, ctx.secrets, entity);
    return entity;
  });
  return {
    status: 201,
    headers: { Location: `${ctx.baseUrl}/admin/v1/entities/${row.id}` },
    body: { data: serializeEntity(row, ctx.baseUrl) },
  };
};
