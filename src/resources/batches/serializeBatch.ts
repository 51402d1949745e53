/**
 * Turns batch rows into batch resource objects (PassEntry API reference: the batch resource; the contract's `Batch`).
 *
 * @module resources/batches/serializeBatch
 */
import type { components } from '../../../generated/api.d.ts';
import { toNullableTimestamp, toTimestamp } from '../../http/serialize.ts';
import type { BatchRow } from './batchStore.ts';

export type BatchResource = components['schemas']['Batch'];

/** The URL of a batch (`getBatch`). */
export function batchUrl(baseUrl: string, id: string): string {
  return `${baseUrl}/api/v1/batches/${id}`;
}

/** Serialises a batch. `errorsCsvUrl` is set once the batch has an error. */
export function serializeBatch(row: BatchRow, baseUrl: string): BatchResource {
  return {
    id: row.id,
    type: 'walletMessaging',
    attributes: {
      name: row.name,
      status: row.status,
      statusDetail: row.statusDetail,
      tag: row.tag,
      content: row.content,
      scheduledAt: toTimestamp(row.scheduledAt),
      recipientCount: row.recipientCount,
      completedAt: toNullableTimestamp(row.completedAt),
      errorsCsvUrl: row.errorCount > 0 ? `${batchUrl(baseUrl, row.id)}/errors.csv` : null,
      createdAt: toTimestamp(row.createdAt),
    },
    relationships: { entity: { data: { id: row.entityId, type: 'entity' } } },
  };
}
