import { NotFoundError } from '../../errors.ts';
import { accountOf, type OperationHandler } from '../../http/operation.ts';
import { revokeApiTokenById } from '../../domain/accounts/accountStore.ts';
import { serializeApiToken } from '../../domain/accounts/serializeAccount.ts';

/**
 * `POST /api/v1/api-keys/{id}/revoke`: revokes one of the caller's account's keys; idempotent (the
 * first revocation time is kept).
 * @throws NotFoundError (404) for an id of no key of the account.
 */
export const revokeApiKey: OperationHandler<'revokeApiKey'> = async ({ params, ctx, write }) => {
  const row = await write((tx) => revokeApiTokenById(tx, params.id, ctx.clock.now(), accountOf(ctx)));
  if (!row) throw new NotFoundError(`No API key with id ${params.id} exists.`, { parameter: 'id' });
  // Other processes and nodes learn it from the api_tokens_changed notification.
  ctx.apiTokens.forget(row.id);
  ctx.log.info({ apiTokenId: row.id }, 'API key revoked');
  return { status: 200, body: { data: serializeApiToken(row) } };
};
