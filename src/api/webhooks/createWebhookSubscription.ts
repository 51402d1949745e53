import type { OperationHandler } from '../../http/operation.ts';
import { accountOf } from '../../http/operation.ts';
import { checkWebhookUrl, newSubscriptionId, resolveScope, sealedWebhookSecret } from '../../domain/webhooks/webhookSubscriptionRules.ts';
import { insertSubscription } from '../../domain/webhooks/webhookSubscriptionStore.ts';
import { serializeSubscriptionWithSecret } from '../../domain/webhooks/serializeWebhookSubscription.ts';

/**
 * `POST /api/v1/webhook-subscriptions` (PassEntry API reference, webhook subscriptions): checks
 * the URL and the scope, seals a new secret and answers 201 with it (the only time besides a
 * rotation that it is shown). Without `scopeType`, as in PassEntry's documented body, the scope is
 * the account (`organisation`).
 * @throws ValidationError for a refused URL or an unknown entity; ConflictError for a URL the
 *   scope has, or a full scope.
 */
export const createWebhookSubscription: OperationHandler<'createWebhookSubscription'> = async ({ body, write, ctx }) => {
  const accountId = accountOf(ctx);
  const input = body.webhookSubscription;
  const scopeType = input.scopeType ?? 'organisation';
  const url = await checkWebhookUrl(input.url, ctx.config, ctx.resolveHost);
  const row = await write(async (tx) => {
    const scope = await resolveScope(tx, accountId, scopeType, input.scopeName);
    const id = newSubscriptionId();
    const { secretKey, secretEncrypted } = sealedWebhookSecret(ctx.secrets, id);
    const created = await insertSubscription(tx, {
      id,
      accountId,
      scopeType,
      ...scope,
      url,
      secretEncrypted,
      enabled: input.enabled ?? true,
      subscribedEvents: input.subscribedEvents,
    });
    return { created, secretKey };
  });
  ctx.log.info({ subscriptionId: row.created.id, scopeType: row.created.scopeType }, 'webhook subscription created');
  return {
    status: 201,
    headers: { Location: `${ctx.baseUrl}/api/v1/webhook-subscriptions/${row.created.id}`, 'Cache-Control': 'no-store' },
    body: { data: serializeSubscriptionWithSecret(row.created, row.secretKey) },
  };
};
