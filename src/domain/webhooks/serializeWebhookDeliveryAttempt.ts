/**
 * The contract's WebhookDeliveryAttempt resource object of a stored attempt.
 *
 * @module domain/webhooks/serializeWebhookDeliveryAttempt
 */
import type { components } from '../../../generated/api.d.ts';
import { toNullableTimestamp, toTimestamp } from '../serialize.ts';
import type { WebhookDeliveryAttemptRow } from './webhookDeliveryAttemptStore.ts';

type Resource = components['schemas']['WebhookDeliveryAttempt'];
type Attributes = Resource['attributes'];

/** Serializes one attempt (its id is the row's sequence number, as text). */
export function serializeWebhookDeliveryAttempt(row: WebhookDeliveryAttemptRow): Resource {
  return {
    id: String(row.id),
    type: 'webhookDeliveryAttempt',
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
  };
}
