import type { OperationHandler } from '../../http/operation.ts';
import { accountOf } from '../../http/operation.ts';
import { pageEnvelope, pageRequest } from '../../http/pagination.ts';
import { requirePass } from '../../domain/passes/passStore.ts';
import { selectPassAttempts } from '../../domain/webhooks/webhookDeliveryAttemptStore.ts';
import { serializeWebhookDeliveryAttempt } from '../../domain/webhooks/serializeWebhookDeliveryAttempt.ts';

/**
 * `GET /api/v1/passes/{id}/webhook-delivery-attempts`: every request made to deliver the events
 * about the pass to the account's webhook subscriptions, newest first, paginated.
 * @throws NotFoundError for a pass the account does not have.
 */
export const listPassWebhookDeliveryAttempts: OperationHandler<'listPassWebhookDeliveryAttempts'> = async ({ params, query, url, ctx }) => {
  const page = pageRequest(query, 25);
  const accountId = accountOf(ctx);
  const pass = await requirePass(ctx.db.prisma, accountId, params.id);
  const [rows, total] = await selectPassAttempts(ctx.db.prisma, accountId, pass.id, page);
  return { status: 200, body: { data: rows.map(serializeWebhookDeliveryAttempt), ...pageEnvelope(page, total, ctx.baseUrl, url) } };
};
