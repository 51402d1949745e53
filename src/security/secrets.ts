/**
 * Encryption of secrets at rest: the reader configuration's NFC private key and reader API key
 * (PassEntry API reference: the reader configuration resource) are stored only as AES-256-GCM ciphertexts and decrypted only to answer
 * `getReaderConfiguration`.
 *
 * Sealed form (bytes), format 2: `0x02` ‖ 8-byte key id ‖ 12-byte random IV ‖ 16-byte GCM tag ‖
 * ciphertext. The key id ({@link secretsKeyId}) names the key that sealed the value, so that a
 * rotation of `SECRETS_KEY` (src/domain/secretRotation/) can tell done values from pending ones and
 * resume after an interruption. Format 1, written before key rotation existed, is the same without
 * the key id (`0x01` ‖ IV ‖ tag ‖ ciphertext); it is still read (trying each known key) and a
 * rotation rewrites it in format 2. Each value is bound to its place through the GCM additional data (a context string
 * such as `readerConfiguration/<entityId>/nfcPrivateKey`), so a ciphertext copied to another row
 * or column does not decrypt.
 *
 * The key comes from `SECRETS_KEY` (32 bytes, 64 hex digits or base64); during a rotation the key
 * it replaces is given as `SECRETS_KEY_PREVIOUS` and still read, never written. Without it, the embedded
 * default generates one into `<DATA_DIR>/secrets-key` (mode 0600) at first start, like the
 * administration token; with PostgreSQL the service refuses to start, because a key generated on
 * one server's disk would leave the shared database unreadable to the others.
 *
 * @module security/secrets
 */
import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { ConfigError, parseSecretsKey, SECRETS_KEY_BYTES, type Config } from '../config.ts';
import type { Logger } from '../logger.ts';
import { readOrCreateSecretFile } from './secretFile.ts';

/** File name of the generated key inside the data directory. */
export const SECRETS_KEY_FILE = 'secrets-key';

/** Format 1: no key id (values sealed before key rotation existed). */
const FORMAT_LEGACY = 1;
/** Format 2: with the id of the sealing key. */
const FORMAT_KEYED = 2;
/** Length of a key id, in bytes. */
export const KEY_ID_BYTES = 8;
const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * The id of a secrets key, written into every value it seals: the first 8 bytes of
 * HMAC-SHA-256(key, "wallet-pass-service secrets key id"). It names the key without revealing
 * it (an HMAC under the key itself, https://www.rfc-editor.org/rfc/rfc2104).
 */
export function secretsKeyId(key: Buffer): Buffer {
  return createHmac('sha256', key).update('wallet-pass-service secrets key id').digest().subarray(0, KEY_ID_BYTES);
}

/** A stored secret could not be decrypted: another key, another context, or altered bytes. */
export class SecretDecryptionError extends Error {
  override name = 'SecretDecryptionError';
}

/**
 * Encrypts secrets with the current key and decrypts them with the current key or one of the
 * previous keys (during a rotation of `SECRETS_KEY`).
 */
export class SecretCipher {
  readonly #key: Buffer;
  readonly #keyId: Buffer;
  /** Every key that may open a value, the current one first. */
  readonly #readKeys: { id: Buffer; key: Buffer }[];

  /**
   * @param key The current key: seals every new value.
   * @param previousKeys Keys still accepted for reading (`SECRETS_KEY_PREVIOUS`), never for sealing.
   * @throws RangeError when a key is not 32 bytes.
   */
  constructor(key: Buffer, previousKeys: readonly Buffer[] = []) {
    for (const k of [key, ...previousKeys]) {
      if (k.length !== SECRETS_KEY_BYTES) throw new RangeError(`The secrets key must be ${SECRETS_KEY_BYTES} bytes, got ${k.length}.`);
    }
    this.#key = Buffer.from(key);
    this.#keyId = secretsKeyId(this.#key);
    this.#readKeys = [this.#key, ...previousKeys.map((k) => Buffer.from(k))].map((k) => ({ id: secretsKeyId(k), key: k }));
  }

  /** The first bytes of every value this cipher seals (format byte and key id): what a rotation looks for. */
  get sealedPrefix(): Buffer {
    return Buffer.concat([Buffer.of(FORMAT_KEYED), this.#keyId]);
  }

  /** True when `sealed` was sealed with the current key (format 2 with its key id). */
  isCurrent(sealed: Uint8Array): boolean {
    return Buffer.from(sealed.subarray(0, 1 + KEY_ID_BYTES)).equals(this.sealedPrefix);
  }

  /**
   * Seals a secret with the current key, in format 2.
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
    const parts = [this.sealedPrefix, iv, cipher.getAuthTag(), ciphertext];
    const sealed = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
    let offset = 0;
    for (const part of parts) {
      sealed.set(part, offset);
      offset += part.length;
    }
    return sealed;
  }

  /**
   * Opens a sealed secret: format 2 with the key its id names, format 1 with each known key in turn.
   * @throws SecretDecryptionError when the bytes are not of a known format, were sealed with a key
   *   this cipher does not hold or with another context, or were altered.
   */
  decrypt(sealed: Uint8Array, context: string): string {
    const bytes = Buffer.from(sealed);
    const keyed = bytes[0] === FORMAT_KEYED;
    const header = (keyed ? 1 + KEY_ID_BYTES : 1) + IV_BYTES + TAG_BYTES;
    if (bytes.length < header || (!keyed && bytes[0] !== FORMAT_LEGACY)) {
      throw new SecretDecryptionError(`The stored secret ${context} is not in a known format.`);
    }
    const body = bytes.subarray(keyed ? 1 + KEY_ID_BYTES : 1);
    const candidates = keyed ? this.#readKeys.filter((k) => k.id.equals(bytes.subarray(1, 1 + KEY_ID_BYTES))) : this.#readKeys;
    for (const { key } of candidates) {
      const plaintext = open(key, body, context);
      if (plaintext !== undefined) return plaintext;
    }
    throw new SecretDecryptionError(
      keyed && candidates.length === 0
        ? `The stored secret ${context} was sealed with key id ${bytes.subarray(1, 1 + KEY_ID_BYTES).toString('hex')}, which is neither SECRETS_KEY nor SECRETS_KEY_PREVIOUS.`
        : `The stored secret ${context} cannot be decrypted: SECRETS_KEY is not the key it was encrypted with, or the data was altered.`,
    );
  }
}

/** AES-256-GCM open of `IV ‖ tag ‖ ciphertext`; undefined when the key, context or bytes do not match. */
function open(key: Buffer, body: Buffer, context: string): string | undefined {
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, body.subarray(0, IV_BYTES), { authTagLength: TAG_BYTES });
    decipher.setAAD(Buffer.from(context, 'utf8'));
    decipher.setAuthTag(body.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    return Buffer.concat([decipher.update(body.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
  } catch {
    return undefined;
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
