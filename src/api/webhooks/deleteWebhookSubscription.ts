import type { OperationHandler } from '../../http/operation.ts';
import { accountOf } from '../../http/operation.ts';
import { deleteSubscription } from '../../domain/webhooks/webhookSubscriptionStore.ts';

/**
 * `DELETE /api/v1/webhook-subscriptions/{id}`: the subscription goes with its pending deliveries
 * and its attempts (a queued delivery job finds nothing and ends).
 * @throws NotFoundError for another account's or an unknown subscription.
 */
export const deleteWebhookSubscription: OperationHandler<'deleteWebhookSubscription'> = async ({ params, ctx, write }) => {
  await write((tx) => deleteSubscription(tx, accountOf(ctx), params.id));
  ctx.log.info({ subscriptionId: params.id }, 'webhook subscription deleted');
  return { status: 204, body: undefined };
};
