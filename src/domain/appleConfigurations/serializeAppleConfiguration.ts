/**
 * Turns Apple configuration rows into `appleConfiguration` resource objects: what was read from
 * the certificates, never the key.
 *
 * @module domain/appleConfigurations/serializeAppleConfiguration
 */
import { X509Certificate } from 'node:crypto';
import type { components } from '../../../generated/api.d.ts';
import { toNullableTimestamp, toTimestamp } from '../serialize.ts';
import { describeCertificate } from '../../wallet/apple/certificates.ts';
import type { AppleConfigurationRow } from './appleConfigurationStore.ts';

export type AppleConfigurationResource = components['schemas']['AppleConfiguration'];

/**
 * Serialises a configuration.
 * @param isDefault Whether it is the account's oldest (the default of templates naming none).
 * @param now For `expiresSoon`.
 */
export function serializeAppleConfiguration(row: AppleConfigurationRow, isDefault: boolean, now: Date): AppleConfigurationResource {
  const certificate = describeCertificate(row.certificatePem, now);
  return {
    id: row.passTypeIdentifier,
    type: 'appleConfiguration',
    attributes: {
      passTypeIdentifier: row.passTypeIdentifier,
      teamIdentifier: row.teamIdentifier,
      organizationName: row.organizationName,
      isDefault,
      certificate: {
        subject: certificate.subject,
        sha256Fingerprint: certificate.certificateSha256,
        notAfter: toTimestamp(certificate.notAfter),
        expiresSoon: certificate.expiresSoon,
      },
      wwdrCertificate: {
        sha256Fingerprint: new X509Certificate(row.wwdrCertificatePem).fingerprint256.replace(/:/g, '').toLowerCase(),
        isAppleWwdrG4: row.wwdrIsAppleG4,
      },
      push: { status: row.pushError ? 'certificateRejected' : 'ok', detail: row.pushError, at: toNullableTimestamp(row.pushErrorAt) },
      createdAt: toTimestamp(row.createdAt),
      updatedAt: toTimestamp(row.updatedAt),
    },
  };
}
