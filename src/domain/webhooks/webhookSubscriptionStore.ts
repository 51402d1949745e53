/**
 * Database access for webhook subscriptions (PassEntry API reference, webhook subscriptions).
 * Every read and write is scoped to an account; another account's subscription is not found.
 *
 * @module domain/webhooks/webhookSubscriptionStore
 */
import type { PrismaExecutor, SqlExecutor } from '../../db/database.ts';
import { Prisma, type WebhookSubscription } from '../../../generated/prisma/client.ts';
import { queryRow } from '../../db/rows.ts';
import { isUniqueViolation } from '../../db/prismaErrors.ts';
import { ConflictError, NotFoundError } from '../../errors.ts';

export type WebhookSubscriptionRow = WebhookSubscription;

/** The most subscriptions one scope (the account, or one entity) may have (PassEntry API reference, webhook subscriptions). */
export const SUBSCRIPTIONS_PER_SCOPE = 10;

/** The 404 of a subscription the account does not have. */
export function subscriptionNotFound(id: string): NotFoundError {
  return new NotFoundError(`No webhook subscription with id ${id} exists.`, { parameter: 'id' });
}

/** The 409 of a URL the scope already has. */
function duplicateUrl(url: string): ConflictError {
  return new ConflictError(`${url} is already subscribed in this scope.`, { pointer: '/webhookSubscription/url' });
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A subscription of an account by id, or null (also for another account's, or an id that is no UUID). */
export function selectAccountSubscription(prisma: PrismaExecutor, accountId: string, id: string): Promise<WebhookSubscriptionRow | null> {
  if (!UUID.test(id)) return Promise.resolve(null);
  return prisma.webhookSubscription.findFirst({ where: { id, accountId } });
}

/**
 * A subscription of an account by id.
 * @throws NotFoundError (parameter `id`) when the account has none with that id.
 */
export async function requireAccountSubscription(prisma: PrismaExecutor, accountId: string, id: string): Promise<WebhookSubscriptionRow> {
  const row = await selectAccountSubscription(prisma, accountId, id);
  if (!row) throw subscriptionNotFound(id);
  return row;
}

/** What a new subscription is made of; the secret is already sealed. */
export interface NewWebhookSubscription {
  id: string;
  accountId: string;
  scopeType: 'organisation' | 'entity';
  entityId: string | null;
  scopeName: string;
  url: string;
  secretEncrypted: Uint8Array<ArrayBuffer>;
  enabled: boolean;
  subscribedEvents: string[];
}

/**
 * Creates a subscription, inside the caller's transaction: the account's row is locked first, so
 * that concurrent creations agree on the count of the scope.
 * @throws ConflictError `webhook_subscription_limit` when the scope has {@link SUBSCRIPTIONS_PER_SCOPE}
 *   already; ConflictError pointing at `/webhookSubscription/url` when the scope has the URL.
 */
export async function insertSubscription(tx: PrismaExecutor, subscription: NewWebhookSubscription): Promise<WebhookSubscriptionRow> {
  const { accountId, scopeType, scopeName } = subscription;
  await tx.$queryRaw`SELECT id FROM accounts WHERE id = ${accountId}::uuid FOR UPDATE`;
  const existing = await tx.webhookSubscription.findMany({ where: { accountId, scopeType, scopeName }, select: { url: true } });
  if (existing.some((s) => s.url === subscription.url)) throw duplicateUrl(subscription.url);
  if (existing.length >= SUBSCRIPTIONS_PER_SCOPE) {
    throw new ConflictError(
      `This scope already has ${SUBSCRIPTIONS_PER_SCOPE} webhook subscriptions, the most it may have; delete one first.`,
      { pointer: '/webhookSubscription/scopeType' },
      'webhook_subscription_limit',
    );
  }
  return tx.webhookSubscription.create({ data: subscription });
}

/** Changes to a subscription; absent members keep their values. */
export interface WebhookSubscriptionChanges {
  url?: string;
  enabled?: boolean;
  subscribedEvents?: string[];
  secretEncrypted?: Uint8Array<ArrayBuffer>;
  disabledReason?: null;
  disabledAt?: null;
  consecutiveFailures?: number;
}

/**
 * Updates a subscription of an account, in one statement.
 * @throws NotFoundError when the account has no such subscription; ConflictError pointing at
 *   `/webhookSubscription/url` when the new URL is already subscribed in the scope.
 */
export async function updateSubscription(
  prisma: PrismaExecutor,
  accountId: string,
  id: string,
  changes: WebhookSubscriptionChanges,
): Promise<WebhookSubscriptionRow> {
  if (!UUID.test(id)) throw subscriptionNotFound(id);
  try {
    const [row] = await prisma.webhookSubscription.updateManyAndReturn({ where: { id, accountId }, data: changes });
    if (!row) throw subscriptionNotFound(id);
    return row;
  } catch (error) {
    throw isUniqueViolation(error) ? duplicateUrl(changes.url ?? '') : error;
  }
}

/**
 * Deletes a subscription of an account with its deliveries and attempts.
 * @throws NotFoundError when the account has no such subscription.
 */
export async function deleteSubscription(prisma: PrismaExecutor, accountId: string, id: string): Promise<void> {
  if (!UUID.test(id)) throw subscriptionNotFound(id);
  const { count } = await prisma.webhookSubscription.deleteMany({ where: { id, accountId } });
  if (!count) throw subscriptionNotFound(id);
}

/**
 * The ids (a `text[]`, ordered) of the subscriptions that get an event: the account's enabled
 * subscriptions listening to `type` (a `webhookType`), of the organisation or of the event's
 * entity. An expression, for a statement that selects them with its own work (a pass change's
 * outbox row, src/domain/passes/passChangeOutboxStore.ts).
 */
export function subscriptionIdsSql(accountId: string, type: string, entityId: string | null): Prisma.Sql {
  return Prisma.sql`ARRAY(
    SELECT s.id::text FROM webhook_subscriptions s
     WHERE s.account_id = ${accountId}::uuid AND s.enabled AND ${type} = ANY(s.subscribed_events)
       AND (s.scope_type = 'organisation' OR s.entity_id = ${entityId}::uuid)
     ORDER BY s.id)`;
}

/**
 * The subscriptions that get an event ({@link subscriptionIdsSql}), in one statement.
 * @returns Subscription ids, ordered; empty when nobody listens.
 */
export async function selectSubscriptionIds(tx: SqlExecutor, accountId: string, type: string, entityId: string | null): Promise<string[]> {
  const row = await queryRow<{ ids: string[] }>(tx, Prisma.sql`SELECT ${subscriptionIdsSql(accountId, type, entityId)} AS ids`);
  return row?.ids ?? [];
}
