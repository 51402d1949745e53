import type { OperationHandler } from '../../http/operation.ts';
import { accountOf } from '../../http/operation.ts';
import { sealedWebhookSecret } from '../../domain/webhooks/webhookSubscriptionRules.ts';
import { requireAccountSubscription, updateSubscription } from '../../domain/webhooks/webhookSubscriptionStore.ts';
import { serializeSubscriptionWithSecret } from '../../domain/webhooks/serializeWebhookSubscription.ts';

/**
 * `PATCH /api/v1/webhook-subscriptions/{id}/rotate-secret` (PassEntry API reference, webhook
 * subscriptions): a new secret, sealed, shown once; every request from now on is signed with it.
 * @throws NotFoundError for another account's or an unknown subscription.
 */
export const rotateWebhookSubscriptionSecret: OperationHandler<'rotateWebhookSubscriptionSecret'> = async ({ params, ctx, write }) => {
  const accountId = accountOf(ctx);
  const existing = await requireAccountSubscription(ctx.db.prisma, accountId, params.id);
  const { secretKey, secretEncrypted } = sealedWebhookSecret(ctx.secrets, existing.id);
  const row = await write((tx) => updateSubscription(tx, accountId, existing.id, { secretEncrypted }));
  ctx.log.info({ subscriptionId: row.id }, 'webhook subscription secret rotated');
  return { status: 200, headers: { 'Cache-Control': 'no-store' }, body: { data: serializeSubscriptionWithSecret(row, secretKey) } };
};
