/**
 * Turns reader configuration rows into `readerConfiguration` resource objects (PassEntry API reference: the reader configuration resource): the
 * API view with the decrypted secrets, and the administration view without them.
 *
 * @module domain/readerConfigurations/serializeReaderConfiguration
 */
import type { components } from '../../../generated/api.d.ts';
import { toTimestamp } from '../serialize.ts';
import type { ReaderConfigurationRow, ReaderConfigurationSecrets, ValidationConfiguration } from './readerConfigurationStore.ts';

export type ReaderConfigurationResource = components['schemas']['ReaderConfiguration'];
export type ReaderConfigurationSettingsResource = components['schemas']['ReaderConfigurationSettings'];

function validationConfigurationOf(row: ReaderConfigurationRow): ValidationConfiguration {
  return row.validationType === 'external' && row.externalValidationUrl
    ? { validationType: 'external', url: row.externalValidationUrl }
    : { validationType: 'internal' };
}

/**
 * Serialises a configuration with its secrets (`getReaderConfiguration`, PassEntry API reference: Show a reader configuration).
 * @param applePassTypeId From the service configuration (`APPLE_PASS_TYPE_ID`).
 */
export function serializeReaderConfiguration(
  row: ReaderConfigurationRow,
  secrets: ReaderConfigurationSecrets,
  applePassTypeId: string,
): ReaderConfigurationResource {
  return {
    id: row.entityId,
    type: 'readerConfiguration',
    attributes: {
      nfcPrivateKey: secrets.nfcPrivateKey,
      googleCollectorId: row.googleCollectorId,
      applePassTypeId,
      googleKeyVersion: row.googleKeyVersion,
      readerConfigurationApiKey: secrets.readerConfigurationApiKey,
      validationConfiguration: validationConfigurationOf(row),
    },
  };
}

/** Serialises the administration view: settings and NFC public key, no secrets. */
export function serializeReaderConfigurationSettings(row: ReaderConfigurationRow, applePassTypeId: string): ReaderConfigurationSettingsResource {
  return {
    id: row.entityId,
    type: 'readerConfiguration',
    attributes: {
      googleCollectorId: row.googleCollectorId,
      applePassTypeId,
      googleKeyVersion: row.googleKeyVersion,
      nfcPublicKey: row.nfcPublicKey,
      validationConfiguration: validationConfigurationOf(row),
      updatedAt: toTimestamp(row.updatedAt),
    },
  };
}
