/**
 * Apple credentials for tests: development chains made once per test file (RSA key generation
 * takes a moment), and a helper that sets an account's Apple configuration through the
 * administration API, as an operator would.
 */
import { createDevelopmentCertificates, type DevelopmentCertificates } from '../../src/wallet/apple/developmentCertificates.ts';
import type { TestService } from './testService.ts';

/** The pass type and team of the test credentials. */
export const PASS_TYPE_ID = 'pass.com.example.loyalty';
export const TEAM_ID = 'ABCDE12345';

let chain: DevelopmentCertificates | undefined;

/** The test chain for {@link PASS_TYPE_ID} / {@link TEAM_ID} (made on first use). */
export function testCertificates(): DevelopmentCertificates {
  chain ??= createDevelopmentCertificates({ passTypeIdentifier: PASS_TYPE_ID, teamIdentifier: TEAM_ID, organizationName: 'Coffee Club Ltd' });
  return chain;
}

/**
 * Sets the account's Apple configuration for a pass type with the test chain (PEM) and expects
 * 200 or 201.
 * @returns The response body.
 */
export async function setAppleConfiguration(service: TestService, accountId: string, options: { passTypeIdentifier?: string; organizationName?: string } = {}) {
  const certificates = testCertificates();
  const res = await service.api
    .put(`/admin/v1/accounts/${accountId}/apple-configurations/${options.passTypeIdentifier ?? PASS_TYPE_ID}`)
    .set(service.adminAuth())
    .send({
      appleConfiguration: {
        teamIdentifier: TEAM_ID,
        organizationName: options.organizationName ?? 'Coffee Club',
        certificate: certificates.certificatePem,
        privateKey: certificates.privateKeyPem,
        wwdrCertificate: certificates.wwdrCertificatePem,
      },
    });
  if (res.status !== 200 && res.status !== 201) throw new Error(`Setting the Apple configuration answered ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body;
}
