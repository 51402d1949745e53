import type { OperationHandler } from '../../http/operation.ts';
import { accountOf } from '../../http/operation.ts';
import { pageEnvelope, pageRequest } from '../../http/pagination.ts';
import { requireAccountSubscription } from '../../domain/webhooks/webhookSubscriptionStore.ts';
import { selectSubscriptionAttempts } from '../../domain/webhooks/webhookDeliveryAttemptStore.ts';
import { serializeWebhookDeliveryAttempt } from '../../domain/webhooks/serializeWebhookDeliveryAttempt.ts';

/**
 * `GET /api/v1/webhook-subscriptions/{id}/delivery-attempts`: every request made to the
 * subscription's URL, newest first, paginated.
 * @throws NotFoundError for another account's or an unknown subscription.
 */
export const listWebhookDeliveryAttempts: OperationHandler<'listWebhookDeliveryAttempts'> = async ({ params, query, url, ctx }) => {
  const page = pageRequest(query, 25);
  const subscription = await requireAccountSubscription(ctx.db.prisma, accountOf(ctx), params.id);
  const [rows, total] = await selectSubscriptionAttempts(ctx.db.prisma, subscription.id, page);
  return { status: 200, body: { data: rows.map(serializeWebhookDeliveryAttempt), ...pageEnvelope(page, total, ctx.baseUrl, url) } };
};
