/**
 * Encryption of secrets at rest: the reader configuration's NFC private key and reader API key
 * (PassEntry API reference: the reader configuration resource) are stored only as AES-256-GCM ciphertexts and decrypted only to answer
 * `getReaderConfiguration`.
 *
 * Sealed form (bytes): `0x01` (format version) ‖ 12-byte random IV ‖ 16-byte GCM tag ‖
 * ciphertext. Each value is bound to its place through the GCM additional data (a context string
 * such as `readerConfiguration/<entityId>/nfcPrivateKey`), so a ciphertext copied to another row
 * or column does not decrypt.
 *
 * The key comes from `SECRETS_KEY` (32 bytes, 64 hex digits or base64). Without it, the embedded
 * default generates one into `<DATA_DIR>/secrets-key` (mode 0600) at first start, like the
 * administration token; with PostgreSQL the service refuses to start, because a key generated on
 * one server's disk would leave the shared database unreadable to the others.
 *
 * @module security/secrets
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { ConfigError, parseSecretsKey, SECRETS_KEY_BYTES, type Config } from '../config.ts';
import type { Logger } from '../logger.ts';
import { readOrCreateSecretFile } from './secretFile.ts';

/** File name of the generated key inside the data directory. */
export const SECRETS_KEY_FILE = 'secrets-key';

const FORMAT_VERSION = 1;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const HEADER_BYTES = 1 + IV_BYTES + TAG_BYTES;

/** A stored secret could not be decrypted: another key, another context, or altered bytes. */
export class SecretDecryptionError extends Error {
  override name = 'SecretDecryptionError';
}

/** Encrypts and decrypts secrets with one AES-256-GCM key. */
export class SecretCipher {
  readonly #key: Buffer;

  /** @throws RangeError when the key is not 32 bytes. */
  constructor(key: Buffer) {
    if (key.length !== SECRETS_KEY_BYTES) throw new RangeError(`The secrets key must be ${SECRETS_KEY_BYTES} bytes, got ${key.length}.`);
    this.#key = Buffer.from(key);
  }

  /**
   * Seals a secret.
   * @param plaintext The secret (UTF-8 text).
   * @param context Where it is stored, e.g. `readerConfiguration/<entityId>/nfcPrivateKey`; the
   *   same string is needed to decrypt.
   * @returns The sealed bytes (a fresh random IV each time).
   */
  encrypt(plaintext: string, context: string): Uint8Array<ArrayBuffer> {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    const sealed = new Uint8Array(HEADER_BYTES + ciphertext.length);
    sealed[0] = FORMAT_VERSION;
    sealed.set(iv, 1);
    sealed.set(cipher.getAuthTag(), 1 + IV_BYTES);
    sealed.set(ciphertext, HEADER_BYTES);
    return sealed;
  }

  /**
   * Opens a sealed secret.
   * @throws SecretDecryptionError when the bytes are not of this format, were sealed with another
   *   key or context, or were altered.
   */
  decrypt(sealed: Uint8Array, context: string): string {
    const bytes = Buffer.from(sealed);
    if (bytes.length < HEADER_BYTES || bytes[0] !== FORMAT_VERSION) {
      throw new SecretDecryptionError(`The stored secret ${context} is not in a known format.`);
    }
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.#key, bytes.subarray(1, 1 + IV_BYTES), { authTagLength: TAG_BYTES });
      decipher.setAAD(Buffer.from(context, 'utf8'));
      decipher.setAuthTag(bytes.subarray(1 + IV_BYTES, HEADER_BYTES));
      return Buffer.concat([decipher.update(bytes.subarray(HEADER_BYTES)), decipher.final()]).toString('utf8');
    } catch {
      throw new SecretDecryptionError(
        `The stored secret ${context} cannot be decrypted: SECRETS_KEY is not the key it was encrypted with, or the data was altered.`,
      );
    }
  }
}

/**
 * Decides the secrets key: `SECRETS_KEY` when set; otherwise, on the embedded default, the one in
 * `<DATA_DIR>/secrets-key`, generated (32 random bytes, base64, mode 0600) at first start.
 * @returns The 32-byte key.
 * @throws ConfigError with PostgreSQL (`DATABASE_URL`) and no `SECRETS_KEY`, or when the key file
 *   holds something else than a key.
 */
export async function resolveSecretsKey(config: Config, logger: Logger): Promise<Buffer> {
  if (config.secretsKey) return config.secretsKey;
  if (config.databaseUrl) {
    throw new ConfigError(
      'SECRETS_KEY is required with DATABASE_URL: set it to 32 random bytes as base64 or hex (e.g. "openssl rand -base64 32") ' +
        'and keep it; every server using the database needs the same key to read the secrets stored in it.',
    );
  }
  const path = join(config.dataDir, SECRETS_KEY_FILE);
  const { value, created } = await readOrCreateSecretFile(path, () => randomBytes(SECRETS_KEY_BYTES).toString('base64'));
  const key = parseSecretsKey(value);
  if (!key) throw new ConfigError(`${path} does not hold a secrets key (32 bytes as base64 or hex); restore it or set SECRETS_KEY.`);
  logger.info({ path }, created ? 'generated the secrets key; back this file up with the database' : 'using the secrets key from this file');
  return key;
}
