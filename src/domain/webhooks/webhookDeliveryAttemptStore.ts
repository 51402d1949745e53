/**
 * Reads of webhook delivery attempts (one row per HTTP request made to deliver an event): those
 * of a subscription, and those that delivered the events about one pass to any of the account's
 * subscriptions (a pass event's deliveries carry the pass id as their ordering key,
 * src/domain/webhooks/webhookEvents.ts). Newest first; with the event's id and type.
 *
 * @module domain/webhooks/webhookDeliveryAttemptStore
 */
import type { PrismaExecutor } from '../../db/database.ts';
import { pageWindow, type PageRequest } from '../../db/pagination.ts';
import type { Prisma, WebhookDeliveryAttempt } from '../../../generated/prisma/client.ts';

/** An attempt with its delivery's event id and type. */
export type WebhookDeliveryAttemptRow = WebhookDeliveryAttempt & { delivery: { eventId: string; event: { eventType: string } } };

const INCLUDE = { delivery: { select: { eventId: true, event: { select: { eventType: true } } } } } as const;

async function selectPage(
  prisma: PrismaExecutor,
  where: Prisma.WebhookDeliveryAttemptWhereInput,
  page: PageRequest,
): Promise<[WebhookDeliveryAttemptRow[], number]> {
  return Promise.all([
    prisma.webhookDeliveryAttempt.findMany({ where, orderBy: { id: 'desc' }, include: INCLUDE, ...pageWindow(page) }),
    prisma.webhookDeliveryAttempt.count({ where }),
  ]);
}

/** A page of the attempts of one subscription, and their total. */
export function selectSubscriptionAttempts(prisma: PrismaExecutor, subscriptionId: string, page: PageRequest): Promise<[WebhookDeliveryAttemptRow[], number]> {
  return selectPage(prisma, { subscriptionId }, page);
}

/**
 * A page of the attempts to deliver the events about a pass to the account's subscriptions,
 * and their total. Uses the deliveries' (subscription_id, ordering_key, …) index once per
 * subscription of the account.
 */
export function selectPassAttempts(
  prisma: PrismaExecutor,
  accountId: string,
  passId: string,
  page: PageRequest,
): Promise<[WebhookDeliveryAttemptRow[], number]> {
  return selectPage(prisma, { subscription: { accountId }, delivery: { orderingKey: passId } }, page);
}
