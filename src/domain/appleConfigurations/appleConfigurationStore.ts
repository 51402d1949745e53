/**
 * Database access for Apple configurations: an account's Apple Wallet issuer credentials, one
 * row per pass type identifier. The private key is stored only sealed with the secrets key
 * (src/security/secrets.ts), bound to `appleConfiguration/<row id>/privateKey`, so a ciphertext
 * copied to another row does not decrypt; it is opened only to sign passes and to authenticate
 * APNs connections.
 *
 * @module domain/appleConfigurations/appleConfigurationStore
 */
import type { PrismaExecutor } from '../../db/database.ts';
import { NotFoundError } from '../../errors.ts';
import type { AppleConfiguration } from '../../../generated/prisma/client.ts';
import { applePrivateKeyContext } from '../../security/secretContexts.ts';
import type { SecretCipher } from '../../security/secrets.ts';

export type AppleConfigurationRow = AppleConfiguration;

/** What is stored of validated credentials. */
export interface AppleCredentialsToStore {
  passTypeIdentifier: string;
  teamIdentifier: string;
  organizationName: string;
  certificatePem: string;
  /** Unencrypted PKCS#8 PEM; sealed here. */
  privateKeyPem: string;
  wwdrCertificatePem: string;
  certificateFingerprint: string;
  certificateNotAfter: Date;
  wwdrIsAppleG4: boolean;
}

/**
 * Stores an account's configuration for a pass type, or replaces the stored one (keeping its id,
 * so it stays the default if it was; a push error recorded against the old certificate is
 * cleared). Runs in the caller's transaction: the row is locked while its key is sealed.
 * @returns The row and whether it was created (false: replaced).
 */
export async function upsertAppleConfiguration(
  tx: PrismaExecutor,
  cipher: SecretCipher,
  accountId: string,
  credentials: AppleCredentialsToStore,
  now: Date,
): Promise<{ row: AppleConfigurationRow; created: boolean }> {
  const { privateKeyPem, ...columns } = credentials;
  const [existing] = await tx.$queryRaw<{ id: string }[]>`
    SELECT id FROM apple_configurations
     WHERE account_id = ${accountId}::uuid AND pass_type_identifier = ${credentials.passTypeIdentifier} FOR UPDATE`;
  if (existing) {
    const row = await tx.appleConfiguration.update({
      where: { id: existing.id },
      data: {
        ...columns,
        privateKeyEncrypted: cipher.encrypt(privateKeyPem, applePrivateKeyContext(existing.id)),
        pushError: null,
        pushErrorAt: null,
        updatedAt: now,
      },
    });
    return { row, created: false };
  }
  // The key is bound to the row id, which Prisma makes on insert: seal it right after.
  const row = await tx.appleConfiguration.create({
    data: { ...columns, accountId, privateKeyEncrypted: new Uint8Array(0), createdAt: now, updatedAt: now },
  });
  const sealed = await tx.appleConfiguration.update({
    where: { id: row.id },
    data: { privateKeyEncrypted: cipher.encrypt(privateKeyPem, applePrivateKeyContext(row.id)) },
  });
  return { row: sealed, created: true };
}

/** An account's configurations, oldest (the default) first. */
export function selectAppleConfigurations(prisma: PrismaExecutor, accountId: string): Promise<AppleConfigurationRow[]> {
  return prisma.appleConfiguration.findMany({ where: { accountId }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
}

/**
 * The configuration an account signs a pass type with: the named one, or the default (oldest)
 * when `passTypeIdentifier` is null.
 * @returns The row, or null when the account has none (of that pass type).
 */
export function selectSigningConfiguration(
  prisma: PrismaExecutor,
  accountId: string,
  passTypeIdentifier: string | null,
): Promise<AppleConfigurationRow | null> {
  return prisma.appleConfiguration.findFirst({
    where: { accountId, ...(passTypeIdentifier ? { passTypeIdentifier } : {}) },
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
  });
}

/** The 404 of a pass type the account has no configuration for. */
export function appleConfigurationNotFound(passTypeIdentifier: string): NotFoundError {
  return new NotFoundError(`This account has no Apple configuration for ${passTypeIdentifier}.`, { parameter: 'passTypeIdentifier' });
}

/**
 * {@link selectSigningConfiguration} for a named pass type, required.
 * @throws NotFoundError (parameter `passTypeIdentifier`) when the account has none.
 */
export async function requireAppleConfiguration(prisma: PrismaExecutor, accountId: string, passTypeIdentifier: string): Promise<AppleConfigurationRow> {
  const row = await prisma.appleConfiguration.findUnique({ where: { accountId_passTypeIdentifier: { accountId, passTypeIdentifier } } });
  if (!row) throw appleConfigurationNotFound(passTypeIdentifier);
  return row;
}

/**
 * Deletes an account's configuration of a pass type.
 * @throws NotFoundError (parameter `passTypeIdentifier`) when there is none.
 */
export async function removeAppleConfiguration(prisma: PrismaExecutor, accountId: string, passTypeIdentifier: string): Promise<void> {
  const { count } = await prisma.appleConfiguration.deleteMany({ where: { accountId, passTypeIdentifier } });
  if (count === 0) throw appleConfigurationNotFound(passTypeIdentifier);
}

/** Decrypts a configuration's private key (unencrypted PKCS#8 PEM). */
export function openApplePrivateKey(row: Pick<AppleConfigurationRow, 'id' | 'privateKeyEncrypted'>, cipher: SecretCipher): string {
  return cipher.decrypt(row.privateKeyEncrypted, applePrivateKeyContext(row.id));
}
