import type { OperationHandler } from '../../http/operation.ts';
import { NotFoundError } from '../../errors.ts';
import { updateEntityById } from '../../domain/entities/entityStore.ts';
import { serializeEntity } from '../../domain/entities/serializeEntity.ts';

/** `PATCH /admin/v1/entities/{entityId}`: only the members given change. */
export const updateEntity: OperationHandler<'updateEntity'> = async ({ params, body, ctx, write }) => {
  const row = await write((tx) => updateEntityById(tx, params.entityId, body.entity));
  if (!row) throw new NotFoundError(`No entity with id ${params.entityId} exists.`, { parameter: 'entityId' });
  return { status: 200, body: { data: serializeEntity(row, ctx.baseUrl) } };
};
