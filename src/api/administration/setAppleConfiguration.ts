import type { OperationHandler } from '../../http/operation.ts';
import { UnprocessableError, ValidationError } from '../../errors.ts';
import { AppleCredentialError, validateAppleCredentials, type ValidatedAppleCredentials } from '../../wallet/apple/certificates.ts';
import { requireAccount } from '../../domain/accounts/accountStore.ts';
import { selectSigningConfiguration, upsertAppleConfiguration } from '../../domain/appleConfigurations/appleConfigurationStore.ts';
import { serializeAppleConfiguration } from '../../domain/appleConfigurations/serializeAppleConfiguration.ts';

/**
 * `PUT /admin/v1/accounts/{accountId}/apple-configurations/{passTypeIdentifier}`: validates the
 * credentials (src/wallet/apple/certificates.ts) and stores them, sealing the key; 201 when the
 * pass type is new to the account, 200 when its credentials were replaced.
 * @throws NotFoundError for an unknown account; ValidationError when neither or both of the PEM
 *   pair and `p12` are given; UnprocessableError naming the failed check and the member.
 */
export const setAppleConfiguration: OperationHandler<'setAppleConfiguration'> = async ({ params, body, write, ctx }) => {
  const { accountId, passTypeIdentifier } = params;
  await requireAccount(ctx.db.prisma, accountId);
  const input = body.appleConfiguration;
  const pem = input.certificate !== undefined || input.privateKey !== undefined;
  if (pem === (input.p12 !== undefined) || (pem && (input.certificate === undefined || input.privateKey === undefined))) {
    const member = input.p12 !== undefined ? 'p12' : input.certificate === undefined ? 'certificate' : 'privateKey';
    throw new ValidationError({ detail: 'Give either certificate and privateKey, or p12.', source: { pointer: `/appleConfiguration/${member}` } });
  }
  const now = ctx.clock.now();
  let credentials: ValidatedAppleCredentials;
  try {
    credentials = validateAppleCredentials({
      passTypeIdentifier,
      teamIdentifier: input.teamIdentifier,
      ...(input.certificate !== undefined ? { certificate: input.certificate } : {}),
      ...(input.privateKey !== undefined ? { privateKey: input.privateKey } : {}),
      ...(input.privateKeyPassphrase !== undefined ? { privateKeyPassphrase: input.privateKeyPassphrase } : {}),
      ...(input.p12 !== undefined ? { p12: Buffer.from(input.p12, 'base64'), p12Passphrase: input.p12Passphrase ?? '' } : {}),
      wwdrCertificate: input.wwdrCertificate,
      now,
      requireAppleWwdr: !ctx.config.appleAllowDevelopmentCertificates,
    });
  } catch (error) {
    if (error instanceof AppleCredentialError) throw new UnprocessableError(error.code, error.message, { pointer: `/appleConfiguration/${error.field}` });
    throw error;
  }
  const { row, created } = await write((tx) =>
    upsertAppleConfiguration(
      tx,
      ctx.secrets,
      accountId,
      {
        passTypeIdentifier,
        teamIdentifier: input.teamIdentifier,
        organizationName: input.organizationName,
        certificatePem: credentials.certificatePem,
        privateKeyPem: credentials.privateKeyPem,
        wwdrCertificatePem: credentials.wwdrCertificatePem,
        certificateFingerprint: credentials.certificateSha256,
        certificateNotAfter: credentials.notAfter,
        wwdrIsAppleG4: credentials.wwdrIsAppleG4,
      },
      now,
    ),
  );
  const log = { accountId, passTypeIdentifier, notAfter: credentials.notAfter.toISOString(), wwdrIsAppleG4: credentials.wwdrIsAppleG4 };
  ctx.log.info(log, created ? 'Apple configuration created' : 'Apple configuration replaced');
  if (credentials.expiresSoon) ctx.log.warn(log, 'the Pass Type ID certificate expires within 30 days; renew it');
  const first = await selectSigningConfiguration(ctx.db.prisma, accountId, null);
  return { status: created ? 201 : 200, body: { data: serializeAppleConfiguration(row, first?.id === row.id, now) } };
};
