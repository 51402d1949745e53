/**
 * Turns passkey rows into `passkey` resource objects (openapi/components/schemas/Passkey.yaml):
 * name and dates only, never the credential or its public key.
 *
 * @module domain/people/serializePasskey
 */
import type { components } from '../../../generated/api.d.ts';
import { toNullableTimestamp, toTimestamp } from '../serialize.ts';
import type { PasskeyRow } from './passkeyStore.ts';

/** A passkey as the API shows it. */
export function serializePasskey(row: PasskeyRow): components['schemas']['Passkey'] {
  return {
    id: row.id,
    type: 'passkey',
    attributes: { name: row.name, createdAt: toTimestamp(row.createdAt), lastUsedAt: toNullableTimestamp(row.lastUsedAt) },
  };
}
