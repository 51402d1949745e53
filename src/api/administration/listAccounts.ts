import type { OperationHandler } from '../../http/operation.ts';
import { pageEnvelope, pageRequest } from '../../http/pagination.ts';
import { selectAccountPage } from '../../domain/accounts/accountStore.ts';
import { serializeAccount } from '../../domain/accounts/serializeAccount.ts';

/** `GET /admin/v1/accounts`: all accounts, oldest first, 25 per page by default. */
export const listAccounts: OperationHandler<'listAccounts'> = async ({ query, url, ctx }) => {
  const page = pageRequest(query, 25);
  const { rows, total } = await selectAccountPage(ctx.db.prisma, page);
  return { status: 200, body: { data: rows.map(serializeAccount), ...pageEnvelope(page, total, ctx.baseUrl, url) } };
};
