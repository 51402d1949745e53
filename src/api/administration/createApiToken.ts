import type { OperationHandler } from '../../http/operation.ts';
import { requireAccount, insertApiToken } from '../../domain/accounts/accountStore.ts';
import { serializeApiToken } from '../../domain/accounts/serializeAccount.ts';
import { apiKeyOptionsOf } from '../../domain/apiKeys/apiKeyOptions.ts';

/**
 * `POST /admin/v1/accounts/{accountId}/tokens`: a new key of the kind asked for (secret by
 * default), shown once; written with its audit event (src/http/auditHook.ts).
 */
export const createApiToken: OperationHandler<'createApiToken'> = async ({ params, body, ctx, write }) => {
  const options = apiKeyOptionsOf(body?.apiToken ?? {}, ctx.clock.now());
  await requireAccount(ctx.db.prisma, params.accountId);
  const { apiToken, token } = await write(async (tx) => {
    const created = await insertApiToken(tx, params.accountId, options);
    return { id: created.apiToken.id, ...created };
  });
  ctx.log.info({ accountId: params.accountId, apiTokenId: apiToken.id, kind: apiToken.kind }, 'API key created');
  return { status: 201, body: { data: serializeApiToken(apiToken, token) } };
};
