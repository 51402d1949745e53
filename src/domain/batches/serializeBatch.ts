/**
 * Turns batch rows into batch resource objects (PassEntry API reference: the batch resource; the contract's `Batch`).
 *
 * @module domain/batches/serializeBatch
 */
import type { components } from '../../../generated/api.d.ts';
import { toNullableTimestamp, toTimestamp } from '../serialize.ts';
import type { BatchRow } from './batchStore.ts';

export type BatchResource = components['schemas']['Batch'];

/** The URL of a batch (`getBatch`). */
export function batchUrl(baseUrl: string, id: string): string {
  return `${baseUrl}/api/v1/batches/${id}`;
}

/**
 * Serialises a batch. `errorsCsvUrl` is set once the batch has an error. Pass batches
 * (`passCreation`, `passUpdate`) add `progress` and `resultsCsvUrl`, and relate to their template
 * (creation) instead of an entity. `walletCount` (getBatch, listBatches; see selectWalletCounts)
 * is added when given.
 */
export function serializeBatch(row: BatchRow, baseUrl: string, walletCount?: number | null): BatchResource {
  const passBatch = row.type !== 'walletMessaging';
  const total = row.rowCount ?? 0;
  return {
    id: row.id,
    type: row.type,
    attributes: {
      name: row.name,
      status: row.status,
      statusDetail: row.statusDetail,
      tag: row.tag,
      content: row.content,
      scheduledAt: toTimestamp(row.scheduledAt),
      recipientCount: row.recipientCount,
      ...(walletCount !== undefined ? { walletCount } : {}),
      completedAt: toNullableTimestamp(row.completedAt),
      ...(passBatch
        ? {
            progress: { total, processed: row.processedCount, pending: Math.max(0, total - row.processedCount) },
            resultsCsvUrl: `${batchUrl(baseUrl, row.id)}/results.csv`,
          }
        : {}),
      errorsCsvUrl: row.errorCount > 0 ? `${batchUrl(baseUrl, row.id)}/errors.csv` : null,
      createdAt: toTimestamp(row.createdAt),
    },
    relationships: {
      ...(row.entityId ? { entity: { data: { id: row.entityId, type: 'entity' as const } } } : {}),
      ...(row.templateId ? { passTemplate: { data: { id: row.templateId, type: 'passTemplate' as const } } } : {}),
    },
  };
}
