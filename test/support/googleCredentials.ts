/**
 * A Google Wallet issuer for tests: an issuer id and a service account JSON key made with a
 * fresh RSA key (the file format Google Cloud downloads), and the public key to verify what the
 * service signs with it.
 */
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import type { TestService } from './testService.ts';

export const ISSUER_ID = '3388000000022222222';
export const CLIENT_EMAIL = 'wallet-test@wallet-pass-service.iam.gserviceaccount.com';

let pair: { privateKey: KeyObject; publicKey: KeyObject } | undefined;

/** The test service account's key pair (RSA 2048, made once per test file). */
export function serviceAccountKeyPair(): { privateKey: KeyObject; publicKey: KeyObject } {
  pair ??= generateKeyPairSync('rsa', { modulusLength: 2048 });
  return pair;
}

/** The JSON key file of the test service account, as text; members can be overridden. */
export function serviceAccountKeyFile(overrides: Record<string, unknown> = {}): string {
  return JSON.stringify({
    type: 'service_account',
    project_id: 'wallet-pass-service-test',
    private_key_id: '0123456789abcdef0123456789abcdef01234567',
    private_key: serviceAccountKeyPair().privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
    client_email: CLIENT_EMAIL,
    client_id: '100000000000000000001',
    token_uri: 'https://oauth2.googleapis.com/token',
    ...overrides,
  });
}

/**
 * Gives an account the test issuer and service account key through the administration API
 * (`PUT /admin/v1/accounts/{id}/google-configuration`, 201 expected).
 */
export async function putGoogleConfiguration(service: TestService, accountId: string): Promise<void> {
  await service.api
    .put(`/admin/v1/accounts/${accountId}/google-configuration`)
    .set(service.adminAuth())
    .send({ googleConfiguration: { issuerId: ISSUER_ID, serviceAccountKey: serviceAccountKeyFile() } })
    .expect(201);
}
