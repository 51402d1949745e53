import type { OperationHandler } from '../../http/operation.ts';
import { requireAccount } from '../../domain/accounts/accountStore.ts';
import { removeGoogleConfiguration } from '../../domain/googleConfigurations/googleConfigurationStore.ts';

/** `DELETE /admin/v1/accounts/{accountId}/google-configuration`: forgets the credentials. */
export const deleteGoogleConfiguration: OperationHandler<'deleteGoogleConfiguration'> = async ({ params, write, ctx }) => {
  await requireAccount(ctx.db.prisma, params.accountId);
  await write((tx) => removeGoogleConfiguration(tx, params.accountId));
  ctx.log.info({ accountId: params.accountId }, 'Google configuration deleted');
  return { status: 204, body: undefined };
};
