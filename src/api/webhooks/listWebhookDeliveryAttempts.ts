import type { components } from '../../../generated/api.d.ts';
import type { OperationHandler } from '../../http/operation.ts';
import { accountOf } from '../../http/operation.ts';
import { pageEnvelope, pageRequest } from '../../http/pagination.ts';
import { pageWindow } from '../../db/pagination.ts';
import { toNullableTimestamp, toTimestamp } from '../../domain/serialize.ts';
import { requireAccountSubscription } from '../../domain/webhooks/webhookSubscriptionStore.ts';

type Attributes = components['schemas']['WebhookDeliveryAttempt']['attributes'];

/**
 * `GET /api/v1/webhook-subscriptions/{id}/delivery-attempts`: every request made to the
 * subscription's URL, newest first, paginated.
 * @throws NotFoundError for another account's or an unknown subscription.
 */
export const listWebhookDeliveryAttempts: OperationHandler<'listWebhookDeliveryAttempts'> = async ({ params, query, url, ctx }) => {
  const page = pageRequest(query, 25);
  const subscription = await requireAccountSubscription(ctx.db.prisma, accountOf(ctx), params.id);
  const where = { subscriptionId: subscription.id };
  const [rows, total] = await Promise.all([
    ctx.db.prisma.webhookDeliveryAttempt.findMany({
      where,
      orderBy: { id: 'desc' },
      include: { delivery: { select: { eventId: true, event: { select: { eventType: true } } } } },
      ...pageWindow(page),
    }),
    ctx.db.prisma.webhookDeliveryAttempt.count({ where }),
  ]);
  return {
    status: 200,
    body: {
      data: rows.map((row) => ({
        id: String(row.id),
        type: 'webhookDeliveryAttempt' as const,
        attributes: {
          eventId: row.delivery.eventId,
          webhookType: row.delivery.event.eventType as Attributes['webhookType'],
          deliveryId: row.deliveryId,
          attempt: row.attempt,
          requestId: row.requestId,
          outcome: row.outcome as Attributes['outcome'],
          status: row.status,
          responseSnippet: row.responseSnippet,
          error: row.error,
          durationMs: row.durationMs,
          nextAttemptAt: toNullableTimestamp(row.nextAttemptAt),
          createdAt: toTimestamp(row.createdAt),
        },
      })),
      ...pageEnvelope(page, total, ctx.baseUrl, url),
    },
  };
};
