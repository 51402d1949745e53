import type { OperationHandler } from '../../http/operation.ts';
import { requireEntityById } from '../../domain/entities/entityStore.ts';
import { updateReaderConfigurationSettings } from '../../domain/readerConfigurations/readerConfigurationStore.ts';
import { serializeReaderConfigurationSettings } from '../../domain/readerConfigurations/serializeReaderConfiguration.ts';

/**
 * `PATCH /admin/v1/entities/{entityId}/readerConfiguration`: sets the Google collector id and/or
 * the validation configuration. Answers with the settings, never the secrets.
 * @throws NotFoundError for an unknown entity.
 */
export const updateReaderConfiguration: OperationHandler<'updateReaderConfiguration'> = async ({ params, body, ctx, write }) => {
  const entity = await requireEntityById(ctx.db.prisma, params.entityId);
  const row = await write((tx) => updateReaderConfigurationSettings(tx, ctx.secrets, entity, body.readerConfiguration));
  ctx.log.info({ entityId: entity.id, changed: Object.keys(body.readerConfiguration) }, 'reader configuration updated');
  return { status: 200, body: { data: serializeReaderConfigurationSettings(row, ctx.config.applePassTypeId) } };
};
