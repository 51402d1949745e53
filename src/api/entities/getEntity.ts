import type { OperationHandler } from '../../http/operation.ts';
import { accountOf } from '../../http/operation.ts';
import { NotFoundError } from '../../errors.ts';
import { selectAccountEntity } from '../../domain/entities/entityStore.ts';
import { serializeEntity } from '../../domain/entities/serializeEntity.ts';

/** `GET /api/v1/entities/{id}` (PassEntry API reference: Retrieve an entity). Another account's entity is a 404. */
export const getEntity: OperationHandler<'getEntity'> = async ({ params, ctx }) => {
  const row = await selectAccountEntity(ctx.db.prisma, accountOf(ctx), params.id);
  if (!row) throw new NotFoundError(`No entity with id ${params.id} exists.`, { parameter: 'id' });
  return { status: 200, body: { data: serializeEntity(row, ctx.baseUrl) } };
};
