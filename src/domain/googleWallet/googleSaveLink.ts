/**
 * The "Save to Google Wallet" link of a pass: a signed JWT naming the pass's Google Wallet object
 * (https://developers.google.com/wallet/generic/web#jwt), signed with the account's service
 * account key. Served with a pass (`includePassSource=google`) and by the holder page.
 *
 * @module domain/googleWallet/googleSaveLink
 */
import type { Clock } from '../../clock.ts';
import type { Config } from '../../config.ts';
import type { PrismaExecutor } from '../../db/database.ts';
import type { SecretCipher } from '../../security/secrets.ts';
import { signSaveLink } from '../../wallet/google/saveLink.ts';
import { googleResourceId } from '../../wallet/google/walletClass.ts';
import { objectTypeOf } from '../../wallet/google/walletObject.ts';
import { selectAccountIssuer, selectClassVersion } from './googleWalletStore.ts';

/** What signing a save link needs. */
export interface SaveLinkDependencies {
  db: { prisma: PrismaExecutor };
  secrets: SecretCipher;
  clock: Clock;
  config: Pick<Config, 'googleSaveOrigins'>;
}

/**
 * The "Save to Google Wallet" link of a pass (src/wallet/google/saveLink.ts), naming its object
 * by id: the object is written by the pass's `pass-changed` job, queued when the pass was issued.
 * @returns null when the account has no Google configuration.
 */
export async function googleSaveLink(deps: SaveLinkDependencies, pass: { id: string; accountId: string; templateId: string }): Promise<string | null> {
  const prisma = deps.db.prisma;
  const issuer = await selectAccountIssuer(prisma, deps.secrets, pass.accountId);
  if (!issuer) return null;
  const version = await selectClassVersion(prisma, pass.templateId);
  if (!version) return null;
  return signSaveLink({
    clientEmail: issuer.clientEmail,
    privateKey: issuer.privateKey,
    privateKeyId: issuer.privateKeyId,
    origins: deps.config.googleSaveOrigins,
    objectType: objectTypeOf(version.artefact.classType),
    objectId: googleResourceId(issuer.issuerId, pass.id),
    now: deps.clock.now(),
  });
}
