/**
 * Turns webhook subscription rows into `webhookSubscription` resource objects (PassEntry API
 * reference, webhook subscriptions). The secret appears only in {@link serializeSubscriptionWithSecret},
 * for the two answers that show it (create, rotate).
 *
 * @module domain/webhooks/serializeWebhookSubscription
 */
import type { components } from '../../../generated/api.d.ts';
import { toTimestamp } from '../serialize.ts';
import type { WebhookSubscriptionRow } from './webhookSubscriptionStore.ts';

type Schemas = components['schemas'];
export type WebhookSubscriptionResource = Schemas['WebhookSubscription'];
export type WebhookSubscriptionWithSecretResource = Schemas['WebhookSubscriptionWithSecret'];

/** Serialises a subscription without its secret. */
export function serializeSubscription(row: WebhookSubscriptionRow): WebhookSubscriptionResource {
  return {
    id: row.id,
    type: 'webhookSubscription',
    attributes: {
      url: row.url,
      enabled: row.enabled,
      scopeType: row.scopeType,
      scopeName: row.scopeName,
      subscribedEvents: row.subscribedEvents as Schemas['WebhookEventType'][],
      consecutiveFailures: row.consecutiveFailures,
      disabledReason: row.disabledReason,
      createdAt: toTimestamp(row.createdAt),
      updatedAt: toTimestamp(row.updatedAt),
    },
  };
}

/** Serialises a subscription with its secret in clear (create and rotate only). */
export function serializeSubscriptionWithSecret(row: WebhookSubscriptionRow, secretKey: string): WebhookSubscriptionWithSecretResource {
  const { id, type, attributes } = serializeSubscription(row);
  return { id, type, attributes: { secretKey, ...attributes } };
}
