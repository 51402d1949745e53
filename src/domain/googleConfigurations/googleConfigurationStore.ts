/**
 * Database access for Google configurations: an account's Google Wallet issuer id and service
 * account key, one row per account. The key file is stored only sealed with the secrets key
 * (src/security/secrets.ts), bound to `googleConfiguration/<row id>/serviceAccountKey`; it is
 * opened only to call Google Wallet and to sign save links (src/domain/googleWallet/googleWalletStore.ts).
 *
 * @module domain/googleConfigurations/googleConfigurationStore
 */
import type { PrismaExecutor } from '../../db/database.ts';
import { NotFoundError } from '../../errors.ts';
import type { GoogleConfiguration } from '../../../generated/prisma/client.ts';
import { googleServiceAccountKeyContext } from '../../security/secretContexts.ts';
import type { SecretCipher } from '../../security/secrets.ts';
import type { GoogleCredentials } from '../../wallet/google/credentials.ts';

export type GoogleConfigurationRow = GoogleConfiguration;

/** The 404 of an account without a Google configuration. */
function googleConfigurationNotFound(): NotFoundError {
  return new NotFoundError('This account has no Google Wallet configuration; set one with npm run admin -- google set.', { parameter: 'accountId' });
}

/**
 * Stores an account's configuration, or replaces it (keeping its id). Runs in the caller's
 * transaction: the row is locked while its key is sealed.
 * @param keyFile The JSON key file as uploaded (sealed here).
 * @returns The row and whether it was created.
 */
export async function upsertGoogleConfiguration(
  tx: PrismaExecutor,
  cipher: SecretCipher,
  accountId: string,
  credentials: GoogleCredentials,
  keyFile: string,
  now: Date,
): Promise<{ row: GoogleConfigurationRow; created: boolean }> {
  const columns = { issuerId: credentials.issuerId, clientEmail: credentials.key.clientEmail, privateKeyId: credentials.key.privateKeyId };
  const [existing] = await tx.$queryRaw<{ id: string }[]>`SELECT id::text AS id FROM google_configurations WHERE account_id = ${accountId}::uuid FOR UPDATE`;
  if (existing) {
    const row = await tx.googleConfiguration.update({
      where: { id: existing.id },
      data: { ...columns, serviceAccountKeyEncrypted: cipher.encrypt(keyFile, googleServiceAccountKeyContext(existing.id)), updatedAt: now },
    });
    return { row, created: false };
  }
  const row = await tx.googleConfiguration.create({
    data: { ...columns, accountId, serviceAccountKeyEncrypted: new Uint8Array(0), createdAt: now, updatedAt: now },
  });
  const sealed = await tx.googleConfiguration.update({
    where: { id: row.id },
    data: { serviceAccountKeyEncrypted: cipher.encrypt(keyFile, googleServiceAccountKeyContext(row.id)) },
  });
  return { row: sealed, created: true };
}

/**
 * An account's configuration.
 * @throws NotFoundError (parameter `accountId`) when it has none.
 */
export async function requireGoogleConfiguration(prisma: PrismaExecutor, accountId: string): Promise<GoogleConfigurationRow> {
  const row = await prisma.googleConfiguration.findUnique({ where: { accountId } });
  if (!row) throw googleConfigurationNotFound();
  return row;
}

/**
 * Deletes an account's configuration, with the record of the classes and objects written with
 * it (a new issuer starts afresh).
 * @throws NotFoundError (parameter `accountId`) when there is none.
 */
export async function removeGoogleConfiguration(tx: PrismaExecutor, accountId: string): Promise<void> {
  const { count } = await tx.googleConfiguration.deleteMany({ where: { accountId } });
  if (count === 0) throw googleConfigurationNotFound();
  await tx.googleWalletClass.deleteMany({ where: { accountId } });
  await tx.googleWalletObject.deleteMany({ where: { accountId } });
}
