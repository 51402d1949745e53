import type { OperationHandler } from '../../http/operation.ts';
import { requireAccount } from '../../domain/accounts/accountStore.ts';
import { requireAppleConfiguration, selectSigningConfiguration } from '../../domain/appleConfigurations/appleConfigurationStore.ts';
import { serializeAppleConfiguration } from '../../domain/appleConfigurations/serializeAppleConfiguration.ts';

/** `GET /admin/v1/accounts/{accountId}/apple-configurations/{passTypeIdentifier}`: one configuration, never its key. */
export const getAppleConfiguration: OperationHandler<'getAppleConfiguration'> = async ({ params, ctx }) => {
  await requireAccount(ctx.db.prisma, params.accountId);
  const row = await requireAppleConfiguration(ctx.db.prisma, params.accountId, params.passTypeIdentifier);
  const first = await selectSigningConfiguration(ctx.db.prisma, params.accountId, null);
  return { status: 200, body: { data: serializeAppleConfiguration(row, first?.id === row.id, ctx.clock.now()) } };
};
