import type { OperationHandler } from '../../http/operation.ts';
import { pageEnvelope, pageRequest } from '../../http/pagination.ts';
import { requireAccount, selectApiTokenPage } from '../../domain/accounts/accountStore.ts';
import { serializeApiToken } from '../../domain/accounts/serializeAccount.ts';

/** `GET /admin/v1/accounts/{accountId}/tokens`: the account's keys, without secrets. */
export const listApiTokens: OperationHandler<'listApiTokens'> = async ({ params, query, url, ctx }) => {
  const page = pageRequest(query, 25);
  await requireAccount(ctx.db.prisma, params.accountId);
  const { rows, total } = await selectApiTokenPage(ctx.db.prisma, params.accountId, page);
  return {
    status: 200,
    body: { data: rows.map((row) => serializeApiToken(row)), ...pageEnvelope(page, total, ctx.baseUrl, url) },
  };
};
