import { serializeSingleSignOn } from '../../domain/people/singleSignOn.ts';
import { getSingleSignOn as getStored } from '../../domain/people/singleSignOnStore.ts';
import { accountOf, type OperationHandler } from '../../http/operation.ts';

/** `GET /api/v1/single-sign-on`: the issuer the account trusts. @throws NotFoundError when none. */
export const getSingleSignOn: OperationHandler<'getSingleSignOn'> = async ({ ctx }) => {
  const row = await getStored(ctx.db.prisma, accountOf(ctx));
  return { status: 200, body: { data: serializeSingleSignOn(row, ctx.baseUrl) } };
};
