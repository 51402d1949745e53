import type { OperationHandler } from '../../http/operation.ts';
import { requireAccount, insertApiToken } from '../../domain/accounts/accountStore.ts';
import { serializeApiToken } from '../../domain/accounts/serializeAccount.ts';

/** `POST /admin/v1/accounts/{accountId}/tokens`: a new key, shown once. */
export const createApiToken: OperationHandler<'createApiToken'> = async ({ params, body, ctx }) => {
  await requireAccount(ctx.db.prisma, params.accountId);
  const { apiToken, token } = await insertApiToken(ctx.db.prisma, params.accountId, body?.apiToken?.name ?? null);
  ctx.log.info({ accountId: params.accountId, apiTokenId: apiToken.id }, 'API key created');
  return { status: 201, body: { data: serializeApiToken(apiToken, token) } };
};
