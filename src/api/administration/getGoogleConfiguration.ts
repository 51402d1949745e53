import type { OperationHandler } from '../../http/operation.ts';
import { requireAccount } from '../../domain/accounts/accountStore.ts';
import { requireGoogleConfiguration } from '../../domain/googleConfigurations/googleConfigurationStore.ts';
import { serializeGoogleConfiguration } from '../../domain/googleConfigurations/serializeGoogleConfiguration.ts';

/** `GET /admin/v1/accounts/{accountId}/google-configuration`: the configuration, never its key. */
export const getGoogleConfiguration: OperationHandler<'getGoogleConfiguration'> = async ({ params, ctx }) => {
  await requireAccount(ctx.db.prisma, params.accountId);
  const row = await requireGoogleConfiguration(ctx.db.prisma, params.accountId);
  return { status: 200, body: { data: serializeGoogleConfiguration(row) } };
};
