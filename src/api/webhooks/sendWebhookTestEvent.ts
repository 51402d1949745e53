import type { OperationHandler } from '../../http/operation.ts';
import { accountOf } from '../../http/operation.ts';
import { recordWebhookTestEvent } from '../../domain/webhooks/webhookEvents.ts';
import { ConflictError } from '../../errors.ts';
import { requireAccountSubscription } from '../../domain/webhooks/webhookSubscriptionStore.ts';

/**
 * `POST /api/v1/webhook-subscriptions/{id}/test-event`: queues a `test` webhook for this
 * subscription only (signed, retried and recorded like any event) and answers 202 with its body.
 * @throws NotFoundError for another account's or an unknown subscription; ConflictError when it is disabled.
 */
export const sendWebhookTestEvent: OperationHandler<'sendWebhookTestEvent'> = async ({ params, write, ctx }) => {
  const accountId = accountOf(ctx);
  const subscription = await requireAccountSubscription(ctx.db.prisma, accountId, params.id);
  if (!subscription.enabled) {
    throw new ConflictError(`The webhook subscription ${subscription.id} is disabled; enable it before sending a test event.`, { parameter: 'id' });
  }
  const payload = await write((tx) => recordWebhookTestEvent(tx, ctx, { accountId, subscriptionId: subscription.id, at: ctx.clock.now() }));
  ctx.log.info({ subscriptionId: subscription.id, eventId: payload.data.id }, 'webhook test event queued');
  return { status: 202, body: payload };
};
