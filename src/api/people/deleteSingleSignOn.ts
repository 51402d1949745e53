import { deleteSingleSignOn as deleteStored } from '../../domain/people/singleSignOnStore.ts';
import { accountOf, type OperationHandler } from '../../http/operation.ts';

/** `DELETE /api/v1/single-sign-on`: people no longer sign in through the issuer. @throws NotFoundError when none. */
export const deleteSingleSignOn: OperationHandler<'deleteSingleSignOn'> = async ({ ctx, write }) => {
  await write((tx) => deleteStored(tx, accountOf(ctx)));
  return { status: 204, body: undefined };
};
