import type { OperationHandler } from '../../http/operation.ts';
import { insertAccountWithToken } from '../../domain/accounts/accountStore.ts';
import { serializeAccount, serializeApiToken } from '../../domain/accounts/serializeAccount.ts';

/** `POST /admin/v1/accounts`: an account and its first API key, returned once in `included`. */
export const createAccount: OperationHandler<'createAccount'> = async ({ body, write, ctx }) => {
  const { account, apiToken, token } = await write((tx) => insertAccountWithToken(tx, body.account.name));
  ctx.log.info({ accountId: account.id, apiTokenId: apiToken.id }, 'account created');
  return {
    status: 201,
    headers: { Location: `${ctx.baseUrl}/admin/v1/accounts/${account.id}/tokens` },
    body: { data: serializeAccount(account), included: [serializeApiToken(apiToken, token)] },
  };
};
