import type { OperationHandler } from '../../http/operation.ts';
import { accountOf } from '../../http/operation.ts';
import { pageEnvelope, pageRequest } from '../../http/pagination.ts';
import { pageWindow } from '../../db/pagination.ts';
import { serializeSubscription } from '../../domain/webhooks/serializeWebhookSubscription.ts';

/** `GET /api/v1/webhook-subscriptions`: the account's subscriptions, oldest first, paginated. */
export const listWebhookSubscriptions: OperationHandler<'listWebhookSubscriptions'> = async ({ query, url, ctx }) => {
  const page = pageRequest(query, 25);
  const where = { accountId: accountOf(ctx) };
  const [rows, total] = await Promise.all([
    ctx.db.prisma.webhookSubscription.findMany({ where, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }], ...pageWindow(page) }),
    ctx.db.prisma.webhookSubscription.count({ where }),
  ]);
  return { status: 200, body: { data: rows.map(serializeSubscription), ...pageEnvelope(page, total, ctx.baseUrl, url) } };
};
