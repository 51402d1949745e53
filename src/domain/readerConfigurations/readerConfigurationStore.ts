/**
 * Database access for reader configurations (PassEntry API reference: the reader configuration resource): one per entity, keyed by the entity id.
 *
 * Secrets — the NFC private key and the reader API key — are stored only sealed with
 * {@link SecretCipher} (AES-256-GCM), each bound to `readerConfiguration/<entityId>/<attribute>`;
 * the API key is also stored as a SHA-256 hash so that a later reader authentication can find
 * its configuration without decrypting every row. The NFC public key is stored in clear: it is
 * not secret and passes carry it.
 *
 * A configuration is created with its entity (in the entity's transaction, `createEntity`);
 * entities made before readers existed get theirs on first use ({@link ensureReaderConfiguration}).
 *
 * @module domain/readerConfigurations/readerConfigurationStore
 */
import { generateKeyPairSync, randomBytes, randomInt } from 'node:crypto';
import type { PrismaExecutor } from '../../db/database.ts';
import type { ReaderConfiguration } from '../../../generated/prisma/client.ts';
import type { components } from '../../../generated/api.d.ts';
import { sha256Hex } from '../../security/apiTokens.ts';
import type { SecretCipher } from '../../security/secrets.ts';
import { readerConfigurationSecretContext } from '../../security/secretContexts.ts';
import { isUniqueViolation } from '../../db/prismaErrors.ts';

export type ReaderConfigurationRow = ReaderConfiguration;
export type ValidationConfiguration = components['schemas']['ValidationConfiguration'];

/** The entity a configuration belongs to. */
export interface EntityRef {
  id: string;
  accountId: string;
}

/** The secrets of a configuration, decrypted. */
export interface ReaderConfigurationSecrets {
  /** SEC 1 PEM of the EC P-256 private key. */
  nfcPrivateKey: string;
  /** `wpr_` + 43 base64url characters. */
  readerConfigurationApiKey: string;
}

/** The GCM context string of a sealed attribute. */
function secretContext(entityId: string, attribute: keyof ReaderConfigurationSecrets): string {
  return readerConfigurationSecretContext(entityId, attribute);
}

/** A fresh EC P-256 (prime256v1) key pair, sealed private key and clear public key (PEM). */
function newNfcKey(cipher: SecretCipher, entityId: string) {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const pem = privateKey.export({ type: 'sec1', format: 'pem' }) as string;
  return {
    nfcPrivateKeyEncrypted: cipher.encrypt(pem, secretContext(entityId, 'nfcPrivateKey')),
    nfcPublicKey: publicKey.export({ type: 'spki', format: 'pem' }) as string,
  };
}

/** A fresh reader API key (32 random bytes), sealed and hashed. */
function newApiKey(cipher: SecretCipher, entityId: string) {
  const key = `wpr_${randomBytes(32).toString('base64url')}`;
  return { apiKeyEncrypted: cipher.encrypt(key, secretContext(entityId, 'readerConfigurationApiKey')), apiKeyHash: sha256Hex(key) };
}

/** A random 8-digit placeholder collector id (no leading zero), until the operator sets Google's. */
function placeholderCollectorId(): string {
  return String(randomInt(10_000_000, 100_000_000));
}

/**
 * Creates the configuration of a new entity: fresh NFC key (version 1), fresh API key, placeholder
 * collector id, internal validation. Runs inside the caller's transaction when given one.
 * @throws Prisma's unique violation (P2002) when the entity already has a configuration.
 */
export function insertReaderConfiguration(prisma: PrismaExecutor, cipher: SecretCipher, entity: EntityRef): Promise<ReaderConfigurationRow> {
  return prisma.readerConfiguration.create({
    data: {
      entityId: entity.id,
      accountId: entity.accountId,
      ...newNfcKey(cipher, entity.id),
      ...newApiKey(cipher, entity.id),
      googleCollectorId: placeholderCollectorId(),
    },
  });
}

/**
 * The configuration of an entity, created now when the entity has none yet (entities made
 * before this feature). Two concurrent first calls agree on one configuration.
 */
export async function ensureReaderConfiguration(prisma: PrismaExecutor, cipher: SecretCipher, entity: EntityRef): Promise<ReaderConfigurationRow> {
  const existing = await prisma.readerConfiguration.findUnique({ where: { entityId: entity.id } });
  if (existing) return existing;
  try {
    return await insertReaderConfiguration(prisma, cipher, entity);
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    return prisma.readerConfiguration.findUniqueOrThrow({ where: { entityId: entity.id } });
  }
}

/** Decrypts the secrets of a configuration (only `getReaderConfiguration` needs them). */
export function openReaderConfigurationSecrets(row: ReaderConfigurationRow, cipher: SecretCipher): ReaderConfigurationSecrets {
  return {
    nfcPrivateKey: cipher.decrypt(row.nfcPrivateKeyEncrypted, secretContext(row.entityId, 'nfcPrivateKey')),
    readerConfigurationApiKey: cipher.decrypt(row.apiKeyEncrypted, secretContext(row.entityId, 'readerConfigurationApiKey')),
  };
}

/** Replaces the NFC key pair and increases `googleKeyVersion` by one, atomically. */
export async function rotateNfcKey(prisma: PrismaExecutor, cipher: SecretCipher, entity: EntityRef): Promise<ReaderConfigurationRow> {
  await ensureReaderConfiguration(prisma, cipher, entity);
  return prisma.readerConfiguration.update({
    where: { entityId: entity.id },
    data: { ...newNfcKey(cipher, entity.id), googleKeyVersion: { increment: 1 } },
  });
}

/** Replaces the reader API key (the old one stops matching at once). */
export async function rotateApiKey(prisma: PrismaExecutor, cipher: SecretCipher, entity: EntityRef): Promise<ReaderConfigurationRow> {
  await ensureReaderConfiguration(prisma, cipher, entity);
  return prisma.readerConfiguration.update({ where: { entityId: entity.id }, data: newApiKey(cipher, entity.id) });
}

/**
 * Sets the collector id and/or the validation configuration; absent members keep their values.
 * Internal validation clears the external URL.
 */
export async function updateReaderConfigurationSettings(
  prisma: PrismaExecutor,
  cipher: SecretCipher,
  entity: EntityRef,
  changes: { googleCollectorId?: string; validationConfiguration?: ValidationConfiguration },
): Promise<ReaderConfigurationRow> {
  await ensureReaderConfiguration(prisma, cipher, entity);
  const validation = changes.validationConfiguration;
  return prisma.readerConfiguration.update({
    where: { entityId: entity.id },
    data: {
      googleCollectorId: changes.googleCollectorId,
      ...(validation
        ? { validationType: validation.validationType, externalValidationUrl: validation.validationType === 'external' ? validation.url : null }
        : {}),
    },
  });
}

/**
 * The NFC public key (PEM) of the account's first reader configuration (by creation, then
 * entity), or null when it has none: what its Apple passes carry as `encryptionPublicKey`.
 */
export async function selectFirstNfcPublicKey(prisma: PrismaExecutor, accountId: string): Promise<string | null> {
  const row = await prisma.readerConfiguration.findFirst({
    where: { accountId },
    orderBy: [{ createdAt: 'asc' }, { entityId: 'asc' }],
    select: { nfcPublicKey: true },
  });
  return row?.nfcPublicKey ?? null;
}
