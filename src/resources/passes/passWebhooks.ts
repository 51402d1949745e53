/**
 * The webhook events of passes (PassEntry API reference, webhooks: `passCreated`,
 * `passInstalled`, `passRemoved`, `passScanned`; and this service's `passUpdated`), recorded in
 * the transaction of the write that causes them (src/delivery/webhookEvents.ts), with the pass
 * as `getPass` returns it in `included`.
 *
 * @module resources/passes/passWebhooks
 */
import type { SqlExecutor } from '../../db/database.ts';
import { recordWebhookEvent, type WebhookEventScope } from '../../delivery/webhookEvents.ts';
import { requirePass, type PassRow } from './passStore.ts';
import { serializePass } from './serializePass.ts';

/** The pass events. */
export type PassEventType = 'passCreated' | 'passInstalled' | 'passRemoved' | 'passScanned' | 'passUpdated';

/**
 * Records a pass event for the subscriptions that listen to it, in the caller's transaction.
 * @param scope The job queue and the base of links (`baseUrl`: the request's, or the service's in a job).
 * @param event.pass The pass as it is after the change, or its id (then read in the transaction, only when someone listens).
 * @param event.entityId The entity the event happened at (a scan's reader), or null.
 * @param event.subscriptionIds The subscriptions that get it, when the caller's statement selected them (`subscriptionIdsSql`).
 * @returns How many subscriptions get it.
 */
export async function recordPassEvent(
  tx: SqlExecutor,
  scope: WebhookEventScope & { baseUrl: string },
  event: { type: PassEventType; accountId: string; pass: PassRow | string; entityId?: string | null; at: Date; subscriptionIds?: string[] },
): Promise<number> {
  const passId = typeof event.pass === 'string' ? event.pass : event.pass.id;
  return recordWebhookEvent(tx, scope, {
    accountId: event.accountId,
    entityId: event.entityId ?? null,
    type: event.type,
    subject: { relationship: 'pass', type: 'pass', id: passId },
    at: event.at,
    ...(event.subscriptionIds ? { subscriptionIds: event.subscriptionIds } : {}),
    resource: async () => serializePass(typeof event.pass === 'string' ? await requirePass(tx, event.accountId, passId) : event.pass, scope.baseUrl),
  });
}
