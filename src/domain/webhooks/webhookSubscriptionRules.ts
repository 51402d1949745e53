/**
 * The rules of webhook subscriptions (PassEntry API reference, webhook subscriptions): where a
 * URL may point, what a scope names, and the signing secret's form.
 *
 * @module domain/webhooks/webhookSubscriptionRules
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { Config } from '../../config.ts';
import type { PrismaExecutor } from '../../db/database.ts';
import { webhookDestinationPolicy } from './webhookDeliveryQueue.ts';
import { ValidationError } from '../../errors.ts';
import { checkDestination, OutboundRequestError, type Resolver } from '../../net/outboundRequest.ts';
import type { SecretCipher } from '../../security/secrets.ts';
import { webhookSecretContext } from '../../security/secretContexts.ts';

/** A new signing secret: `whsec_` and 32 random bytes in base64url (contract `WebhookSecretKey`). */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}

/** A new secret and its sealed form for the subscription `id`. */
export function sealedWebhookSecret(secrets: SecretCipher, id: string): { secretKey: string; secretEncrypted: Uint8Array<ArrayBuffer> } {
  const secretKey = newWebhookSecret();
  return { secretKey, secretEncrypted: secrets.encrypt(secretKey, webhookSecretContext(id)) };
}

/**
 * Checks a subscription URL as deliveries will: `https:` (or, with `WEBHOOK_ALLOW_PRIVATE`,
 * `http:` on loopback), no credentials, and a host whose every address is public unless the
 * operator allows private ones (OWASP SSRF prevention; src/net/outboundRequest.ts). The name is
 * resolved with `resolve` within the webhook time budget.
 * @throws ValidationError pointing at `/webhookSubscription/url`, saying why.
 */
export async function checkWebhookUrl(url: string, config: Pick<Config, 'webhookAllowPrivate' | 'webhookTimeoutMs'>, resolve?: Resolver): Promise<string> {
  const pointer = { pointer: '/webhookSubscription/url' };
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ValidationError({ detail: `${url} is not a URL.`, source: pointer });
  }
  if (parsed.protocol !== 'https:' && !(parsed.protocol === 'http:' && config.webhookAllowPrivate)) {
    throw new ValidationError({ detail: 'Webhook URLs must use https:.', source: pointer });
  }
  try {
    await checkDestination(parsed, webhookDestinationPolicy(config), { resolve, timeoutMs: config.webhookTimeoutMs });
  } catch (error) {
    if (error instanceof OutboundRequestError) throw new ValidationError({ detail: error.message, source: pointer });
    throw error;
  }
  return url;
}

/**
 * Resolves the scope of a new subscription: `organisation` is the account (its `scopeName` the
 * account id, the default); `entity` needs the id of one of the account's entities.
 * @throws ValidationError pointing at `/webhookSubscription/scopeName`.
 */
export async function resolveScope(
  prisma: PrismaExecutor,
  accountId: string,
  scopeType: 'organisation' | 'entity',
  scopeName: string | undefined,
): Promise<{ scopeName: string; entityId: string | null }> {
  const pointer = { pointer: '/webhookSubscription/scopeName' };
  if (scopeType === 'organisation') {
    if (scopeName !== undefined && scopeName !== accountId) {
      throw new ValidationError({ detail: `The scopeName of an organisation subscription is the account id, ${accountId}, or left out.`, source: pointer });
    }
    return { scopeName: accountId, entityId: null };
  }
  if (scopeName === undefined)
    throw new ValidationError({ detail: "An entity subscription needs scopeName, the id of one of the account's entities.", source: pointer });
  const entity = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(scopeName)
    ? await prisma.entity.findFirst({ where: { id: scopeName.toLowerCase(), accountId }, select: { id: true } })
    : null;
  if (!entity) throw new ValidationError({ detail: `The account has no entity with id ${scopeName}.`, source: pointer });
  return { scopeName: entity.id, entityId: entity.id };
}

/** A new subscription id (UUID; the secret's sealing context needs it before the row exists). */
export function newSubscriptionId(): string {
  return randomUUID();
}
