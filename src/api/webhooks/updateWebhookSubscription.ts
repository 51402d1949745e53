import type { OperationHandler } from '../../http/operation.ts';
import { accountOf } from '../../http/operation.ts';
import { resumeWebhookDeliveries } from '../../domain/webhooks/webhookDeliveryQueue.ts';
import { checkWebhookUrl } from '../../domain/webhooks/webhookSubscriptionRules.ts';
import { requireAccountSubscription, updateSubscription, type WebhookSubscriptionChanges } from '../../domain/webhooks/webhookSubscriptionStore.ts';
import { serializeSubscription } from '../../domain/webhooks/serializeWebhookSubscription.ts';

/**
 * `PATCH /api/v1/webhook-subscriptions/{id}` (PassEntry API reference, webhook subscriptions):
 * `url` (checked as on creation when it changes; the delivery guard checks every delivery),
 * `enabled`, `subscribedEvents`. Enabling clears the reason the
 * service disabled it and the failure count, and queues its pending deliveries again, in the
 * same transaction.
 * @throws NotFoundError; ValidationError for a refused URL; ConflictError for a URL the scope has.
 */
export const updateWebhookSubscription: OperationHandler<'updateWebhookSubscription'> = async ({ params, body, write, ctx }) => {
  const accountId = accountOf(ctx);
  const input = body.webhookSubscription;
  const current = await requireAccountSubscription(ctx.db.prisma, accountId, params.id);
  const changes: WebhookSubscriptionChanges = {};
  // The URL it has is not a change (what GET answers is accepted back); each delivery checks it again.
  if (input.url !== undefined && input.url !== current.url) changes.url = await checkWebhookUrl(input.url, ctx.config, ctx.resolveHost);
  if (input.subscribedEvents !== undefined) changes.subscribedEvents = input.subscribedEvents;
  if (input.enabled !== undefined) changes.enabled = input.enabled;
  if (input.enabled === true) Object.assign(changes, { disabledReason: null, disabledAt: null, consecutiveFailures: 0 });
  const row = await write(async (tx) => {
    const updated = await updateSubscription(tx, accountId, params.id, changes);
    if (input.enabled === true) await resumeWebhookDeliveries(tx, ctx.jobs, updated.id);
    return updated;
  });
  ctx.log.info({ subscriptionId: row.id, enabled: row.enabled }, 'webhook subscription updated');
  return { status: 200, body: { data: serializeSubscription(row) } };
};
