import type { OperationHandler } from '../../http/operation.ts';
import { requireEntityById } from '../../domain/entities/entityStore.ts';
import { rotateNfcKey } from '../../domain/readerConfigurations/readerConfigurationStore.ts';
import { serializeReaderConfigurationSettings } from '../../domain/readerConfigurations/serializeReaderConfiguration.ts';

/**
 * `POST /admin/v1/entities/{entityId}/readerConfiguration/rotate-nfc-key`: a fresh EC P-256 key
 * pair and `googleKeyVersion` + 1. Answers with the new public key, never the private one.
 * @throws NotFoundError for an unknown entity.
 */
export const rotateReaderNfcKey: OperationHandler<'rotateReaderNfcKey'> = async ({ params, ctx, write }) => {
  const entity = await requireEntityById(ctx.db.prisma, params.entityId);
  const row = await write((tx) => rotateNfcKey(tx, ctx.secrets, entity));
  ctx.log.info({ entityId: entity.id, googleKeyVersion: row.googleKeyVersion }, 'reader NFC key rotated');
  return { status: 200, body: { data: serializeReaderConfigurationSettings(row, ctx.config.applePassTypeId) } };
};
