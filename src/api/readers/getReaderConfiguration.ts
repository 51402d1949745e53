import type { OperationHandler } from '../../http/operation.ts';
import { accountOf } from '../../http/operation.ts';
import { requireAccountEntity } from '../../domain/entities/entityStore.ts';
import { ensureReaderConfiguration, openReaderConfigurationSecrets } from '../../domain/readerConfigurations/readerConfigurationStore.ts';
import { serializeReaderConfiguration } from '../../domain/readerConfigurations/serializeReaderConfiguration.ts';

/**
 * `GET /api/v1/entities/{entity_id}/readerConfiguration` (PassEntry API reference: Show a reader configuration): the one operation that
 * decrypts the secrets. Sent with `Cache-Control: no-store` (the contract declares it; src/http/routes.ts
 * sets it); nothing of it is logged.
 * @throws NotFoundError for an unknown entity or another account's.
 */
export const getReaderConfiguration: OperationHandler<'getReaderConfiguration'> = async ({ params, ctx }) => {
  const entity = await requireAccountEntity(ctx.db.prisma, accountOf(ctx), params.entity_id, 'entity_id');
  const row = await ensureReaderConfiguration(ctx.db.prisma, ctx.secrets, entity);
  const secrets = openReaderConfigurationSecrets(row, ctx.secrets);
  return {
    status: 200,
    body: { data: serializeReaderConfiguration(row, secrets, ctx.config.applePassTypeId) },
  };
};
