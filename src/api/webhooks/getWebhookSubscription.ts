import type { OperationHandler } from '../../http/operation.ts';
import { accountOf } from '../../http/operation.ts';
import { requireAccountSubscription } from '../../domain/webhooks/webhookSubscriptionStore.ts';
import { serializeSubscription } from '../../domain/webhooks/serializeWebhookSubscription.ts';

/** `GET /api/v1/webhook-subscriptions/{id}` (PassEntry API reference, webhook subscriptions). Another account's subscription is a 404. */
export const getWebhookSubscription: OperationHandler<'getWebhookSubscription'> = async ({ params, ctx }) => {
  const row = await requireAccountSubscription(ctx.db.prisma, accountOf(ctx), params.id);
  return { status: 200, body: { data: serializeSubscription(row) } };
};
