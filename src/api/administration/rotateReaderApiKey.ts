import type { OperationHandler } from '../../http/operation.ts';
import { requireEntityById } from '../../domain/entities/entityStore.ts';
import { rotateApiKey } from '../../domain/readerConfigurations/readerConfigurationStore.ts';
import { serializeReaderConfigurationSettings } from '../../domain/readerConfigurations/serializeReaderConfiguration.ts';

/**
 * `POST /admin/v1/entities/{entityId}/readerConfiguration/rotate-api-key`: a new reader API key;
 * the account reads it with `getReaderConfiguration` (this answer does not show it).
 * @throws NotFoundError for an unknown entity.
 */
export const rotateReaderApiKey: OperationHandler<'rotateReaderApiKey'> = async ({ params, ctx, write }) => {
  const entity = await requireEntityById(ctx.db.prisma, params.entityId);
  const row = await write((tx) => rotateApiKey(tx, ctx.secrets, entity));
  ctx.log.info({ entityId: entity.id }, 'reader API key rotated');
  return { status: 200, body: { data: serializeReaderConfigurationSettings(row, ctx.config.applePassTypeId) } };
};
