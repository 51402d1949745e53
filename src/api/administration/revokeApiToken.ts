import type { OperationHandler } from '../../http/operation.ts';
import { NotFoundError } from '../../errors.ts';
import { revokeApiTokenById } from '../../domain/accounts/accountStore.ts';
import { serializeApiToken } from '../../domain/accounts/serializeAccount.ts';

/** `POST /admin/v1/tokens/{tokenId}/revoke`: idempotent; the first revocation time is kept. */
export const revokeApiToken: OperationHandler<'revokeApiToken'> = async ({ params, ctx, write }) => {
  const row = await write((tx) => revokeApiTokenById(tx, params.tokenId, ctx.clock.now()));
  if (!row) throw new NotFoundError(`No API key with id ${params.tokenId} exists.`, { parameter: 'tokenId' });
  // Other processes and nodes learn it from the api_tokens_changed notification.
  ctx.apiTokens.forget(row.id);
  ctx.log.info({ apiTokenId: row.id }, 'API key revoked');
  return { status: 200, body: { data: serializeApiToken(row) } };
};
