import { accountOf, type OperationHandler } from '../../http/operation.ts';
import { pageEnvelope, pageRequest } from '../../http/pagination.ts';
import { selectApiTokenPage } from '../../domain/accounts/accountStore.ts';
import { serializeApiToken } from '../../domain/accounts/serializeAccount.ts';

/** `GET /api/v1/api-keys`: the caller's account's keys, oldest first, without secrets. */
export const listApiKeys: OperationHandler<'listApiKeys'> = async ({ query, url, ctx }) => {
  const page = pageRequest(query, 25);
  const { rows, total } = await selectApiTokenPage(ctx.db.prisma, accountOf(ctx), page);
  return {
    status: 200,
    body: { data: rows.map((row) => serializeApiToken(row)), ...pageEnvelope(page, total, ctx.baseUrl, url) },
  };
};
