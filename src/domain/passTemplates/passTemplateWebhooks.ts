/**
 * The `passTemplateProcessed` webhook event (an extension of this service): recorded in the
 * transaction that records the outcome of the template's current design, with the template as
 * `getPassTemplate` returns it in `included` (src/domain/webhooks/webhookEvents.ts).
 *
 * @module domain/passTemplates/passTemplateWebhooks
 */
import type { PrismaExecutor } from '../../db/database.ts';
import { recordWebhookEvent, type WebhookEventScope } from '../webhooks/webhookEvents.ts';
import { serializePassTemplate } from './serializePassTemplate.ts';

/**
 * Records `passTemplateProcessed` when `version` is the template's current design (an outcome
 * of a version already replaced by a newer design is no event), in the caller's transaction.
 * @returns How many subscriptions get it.
 */
export async function recordTemplateProcessed(tx: PrismaExecutor, scope: WebhookEventScope, templateId: string, version: number, at: Date): Promise<number> {
  const template = await tx.passTemplate.findUnique({ where: { id: templateId } });
  if (!template || template.designVersion !== version) return 0;
  return recordWebhookEvent(tx, scope, {
    accountId: template.accountId,
    entityId: null,
    type: 'passTemplateProcessed',
    subject: { relationship: 'passTemplate', type: 'passTemplate', id: template.id },
    at,
    resource: () => serializePassTemplate(template),
  });
}
