/**
 * Turns Google configuration rows into `googleConfiguration` resource objects: the issuer id and
 * the service account's identity, never the key.
 *
 * @module domain/googleConfigurations/serializeGoogleConfiguration
 */
import type { components } from '../../../generated/api.d.ts';
import { toTimestamp } from '../serialize.ts';
import type { GoogleConfigurationRow } from './googleConfigurationStore.ts';

export type GoogleConfigurationResource = components['schemas']['GoogleConfiguration'];

/** Serialises a configuration. */
export function serializeGoogleConfiguration(row: GoogleConfigurationRow): GoogleConfigurationResource {
  return {
    id: row.issuerId,
    type: 'googleConfiguration',
    attributes: {
      issuerId: row.issuerId,
      clientEmail: row.clientEmail,
      privateKeyId: row.privateKeyId,
      createdAt: toTimestamp(row.createdAt),
      updatedAt: toTimestamp(row.updatedAt),
    },
  };
}
