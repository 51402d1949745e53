import type { OperationHandler } from '../../http/operation.ts';
import { UnprocessableError } from '../../errors.ts';
import { GoogleCredentialError, validateGoogleCredentials, type GoogleCredentials } from '../../wallet/google/credentials.ts';
import { requireAccount } from '../../domain/accounts/accountStore.ts';
import { upsertGoogleConfiguration } from '../../domain/googleConfigurations/googleConfigurationStore.ts';
import { serializeGoogleConfiguration } from '../../domain/googleConfigurations/serializeGoogleConfiguration.ts';

/**
 * `PUT /admin/v1/accounts/{accountId}/google-configuration`: validates the issuer id and the
 * service account key (src/wallet/google/credentials.ts) and stores them, sealing the key; 201
 * when the account had none, 200 when replaced.
 * @throws NotFoundError for an unknown account; UnprocessableError naming the failed check and the member.
 */
export const setGoogleConfiguration: OperationHandler<'setGoogleConfiguration'> = async ({ params, body, write, ctx }) => {
  const { accountId } = params;
  await requireAccount(ctx.db.prisma, accountId);
  const input = body.googleConfiguration;
  let credentials: GoogleCredentials;
  try {
    credentials = validateGoogleCredentials(input.issuerId, input.serviceAccountKey);
  } catch (error) {
    if (error instanceof GoogleCredentialError) throw new UnprocessableError(error.code, error.message, { pointer: `/googleConfiguration/${error.field}` });
    throw error;
  }
  const now = ctx.clock.now();
  const { row, created } = await write((tx) => upsertGoogleConfiguration(tx, ctx.secrets, accountId, credentials, input.serviceAccountKey, now));
  ctx.log.info({ accountId, issuerId: row.issuerId, clientEmail: row.clientEmail }, created ? 'Google configuration created' : 'Google configuration replaced');
  return { status: created ? 201 : 200, body: { data: serializeGoogleConfiguration(row) } };
};
