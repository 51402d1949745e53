import type { OperationHandler } from '../../http/operation.ts';
import { requireAccount } from '../../domain/accounts/accountStore.ts';
import { removeAppleConfiguration } from '../../domain/appleConfigurations/appleConfigurationStore.ts';

/** `DELETE /admin/v1/accounts/{accountId}/apple-configurations/{passTypeIdentifier}`: forgets the credentials. */
export const deleteAppleConfiguration: OperationHandler<'deleteAppleConfiguration'> = async ({ params, write, ctx }) => {
  await requireAccount(ctx.db.prisma, params.accountId);
  await write((tx) => removeAppleConfiguration(tx, params.accountId, params.passTypeIdentifier), { atomic: true });
  ctx.log.info({ accountId: params.accountId, passTypeIdentifier: params.passTypeIdentifier }, 'Apple configuration deleted');
  return { status: 204, body: undefined };
};
