import { accountOf, type OperationHandler } from '../../http/operation.ts';
import { InsufficientScopeError } from '../../http/authorize.ts';
import { insertApiToken } from '../../domain/accounts/accountStore.ts';
import { serializeApiToken } from '../../domain/accounts/serializeAccount.ts';
import { apiKeyOptionsOf } from '../../domain/apiKeys/apiKeyOptions.ts';
import { ceilingBreach } from '../../domain/apiKeys/apiKeyCeiling.ts';

/**
 * `POST /api/v1/api-keys`: a new key for the caller's account, shown once; written with its audit
 * event (src/http/auditHook.ts), which records the request's members, never the key.
 * @throws ValidationError (400) naming the member a kind does not take; InsufficientScopeError
 *   (403) when the key would be wider than the caller (src/domain/apiKeys/apiKeyCeiling.ts).
 */
export const createApiKey: OperationHandler<'createApiKey'> = async ({ body, ctx, write }) => {
  const options = apiKeyOptionsOf(body?.apiToken ?? {}, ctx.clock.now());
  const breach = ceilingBreach(ctx.principal!, options);
  if (breach) throw new InsufficientScopeError(breach.detail, breach.scopes, { pointer: `/apiToken/${breach.member}` });
  const accountId = accountOf(ctx);
  const { apiToken, token } = await write(async (tx) => {
    const created = await insertApiToken(tx, accountId, options);
    return { id: created.apiToken.id, ...created };
  });
  ctx.log.info({ accountId, apiTokenId: apiToken.id, kind: apiToken.kind }, 'API key created');
  return { status: 201, body: { data: serializeApiToken(apiToken, token) } };
};
