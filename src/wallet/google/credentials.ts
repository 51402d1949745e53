/**
 * Google Wallet issuer credentials: the issuer id of the Google Pay & Wallet Console and a Google
 * Cloud service account's JSON key (https://developers.google.com/wallet/generic/web/prerequisites;
 * key file format: https://cloud.google.com/iam/docs/keys-create-delete). Checked once when the
 * operator uploads them, so that nothing fails later for a reason that could have been seen.
 *
 * @module wallet/google/credentials
 */
import { createPrivateKey, type KeyObject } from 'node:crypto';

/** Why credentials were refused; `field` is the member of the upload at fault. */
export class GoogleCredentialError extends Error {
  override name = 'GoogleCredentialError';
  constructor(
    readonly code: 'issuer_id_not_numeric' | 'key_not_json' | 'not_service_account' | 'client_email_invalid' | 'private_key_unreadable' | 'private_key_not_rsa',
    readonly field: 'issuerId' | 'serviceAccountKey',
    message: string,
  ) {
    super(message);
  }
}

/** What the service uses of a service account key. */
export interface ServiceAccountKey {
  clientEmail: string;
  /** PKCS#8 PEM of the RSA key. */
  privateKey: string;
  privateKeyId: string | null;
}

/** Validated credentials. */
export interface GoogleCredentials {
  issuerId: string;
  key: ServiceAccountKey;
}

const EMAIL = /^[^\s@]{1,64}@[^\s@]+\.[^\s@]+$/;

/**
 * Reads a service account JSON key (as stored: the text of the file).
 * @throws GoogleCredentialError naming what is wrong.
 */
export function parseServiceAccountKey(text: string): ServiceAccountKey {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new GoogleCredentialError(
      'key_not_json',
      'serviceAccountKey',
      'The service account key is not JSON: give the contents of the JSON key file Google Cloud downloads.',
    );
  }
  const file = (json && typeof json === 'object' ? json : {}) as Record<string, unknown>;
  if (file.type !== 'service_account') {
    throw new GoogleCredentialError(
      'not_service_account',
      'serviceAccountKey',
      `The key file's type must be "service_account", got ${JSON.stringify(file.type ?? null)}.`,
    );
  }
  const clientEmail = typeof file.client_email === 'string' ? file.client_email : '';
  if (!EMAIL.test(clientEmail) || clientEmail.length > 320) {
    throw new GoogleCredentialError('client_email_invalid', 'serviceAccountKey', "The key file's client_email is not an email address.");
  }
  let key: KeyObject;
  try {
    key = createPrivateKey({ key: typeof file.private_key === 'string' ? file.private_key : '', format: 'pem' });
  } catch {
    throw new GoogleCredentialError('private_key_unreadable', 'serviceAccountKey', "The key file's private_key is not a readable PEM private key.");
  }
  if (key.asymmetricKeyType !== 'rsa') {
    throw new GoogleCredentialError(
      'private_key_not_rsa',
      'serviceAccountKey',
      `The key file's private_key must be an RSA key (Google signs RS256), got ${key.asymmetricKeyType ?? 'another kind'}.`,
    );
  }
  return {
    clientEmail,
    privateKey: key.export({ format: 'pem', type: 'pkcs8' }).toString(),
    privateKeyId: typeof file.private_key_id === 'string' && file.private_key_id.length <= 100 ? file.private_key_id : null,
  };
}

/**
 * Checks uploaded credentials.
 * @throws GoogleCredentialError for a non-numeric issuer id or an unusable key.
 */
export function validateGoogleCredentials(issuerId: string, serviceAccountKey: string): GoogleCredentials {
  if (!/^[0-9]{1,32}$/.test(issuerId)) {
    throw new GoogleCredentialError(
      'issuer_id_not_numeric',
      'issuerId',
      `The issuer id must be the number the Google Pay & Wallet Console shows, got ${JSON.stringify(issuerId.slice(0, 40))}.`,
    );
  }
  return { issuerId, key: parseServiceAccountKey(serviceAccountKey) };
}
