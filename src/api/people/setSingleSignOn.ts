import { serializeSingleSignOn } from '../../domain/people/singleSignOn.ts';
import { upsertSingleSignOn } from '../../domain/people/singleSignOnStore.ts';
import { UnprocessableError } from '../../errors.ts';
import { accountOf, type OperationHandler } from '../../http/operation.ts';
import { discoverIssuer } from '../../security/openIdConnect.ts';
import { singleSignOnClientSecretContext } from '../../security/secretContexts.ts';

/**
 * `PUT /api/v1/single-sign-on`: trusts an issuer, once its discovery document could be read; the
 * client secret is sealed.
 * @throws UnprocessableError (422 `issuer_unreachable`, pointer `/singleSignOn/issuer`) when it cannot be discovered.
 */
export const setSingleSignOn: OperationHandler<'setSingleSignOn'> = async ({ body, ctx, write }) => {
  const accountId = accountOf(ctx);
  const input = body.singleSignOn;
  try {
    await discoverIssuer(ctx.config, input);
  } catch (error) {
    throw new UnprocessableError('issuer_unreachable', `The issuer's discovery document could not be read: ${(error as Error).message}`, {
      pointer: '/singleSignOn/issuer',
    });
  }
  const row = await write((tx) =>
    upsertSingleSignOn(
      tx,
      accountId,
      {
        issuer: input.issuer,
        clientId: input.clientId,
        clientSecret: ctx.secrets.encrypt(input.clientSecret, singleSignOnClientSecretContext(accountId)),
        roleClaim: input.roleClaim,
        roleMapping: input.roleMapping,
        defaultRole: input.defaultRole ?? null,
      },
      ctx.clock.now(),
    ),
  );
  return { status: 200, body: { data: serializeSingleSignOn(row, ctx.baseUrl) } };
};
