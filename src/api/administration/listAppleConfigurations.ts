import type { OperationHandler } from '../../http/operation.ts';
import { requireAccount } from '../../domain/accounts/accountStore.ts';
import { selectAppleConfigurations } from '../../domain/appleConfigurations/appleConfigurationStore.ts';
import { serializeAppleConfiguration } from '../../domain/appleConfigurations/serializeAppleConfiguration.ts';

/** `GET /admin/v1/accounts/{accountId}/apple-configurations`: every pass type of the account, the default first. */
export const listAppleConfigurations: OperationHandler<'listAppleConfigurations'> = async ({ params, ctx }) => {
  await requireAccount(ctx.db.prisma, params.accountId);
  const rows = await selectAppleConfigurations(ctx.db.prisma, params.accountId);
  const now = ctx.clock.now();
  return { status: 200, body: { data: rows.map((row, index) => serializeAppleConfiguration(row, index === 0, now)) } };
};
