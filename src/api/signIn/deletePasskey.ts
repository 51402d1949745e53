import { deletePasskey as deleteStoredPasskey } from '../../domain/people/passkeyStore.ts';
import type { OperationHandler } from '../../http/operation.ts';
import { personOf } from '../../http/personRequests.ts';

/**
 * `DELETE /api/v1/me/passkeys/{id}`: the passkey no longer signs in.
 * @throws NotFoundError for another person's or an unknown passkey.
 */
export const deletePasskey: OperationHandler<'deletePasskey'> = async ({ params, ctx, write }) => {
  await write((tx) => deleteStoredPasskey(tx, personOf(ctx).id, params.id));
  return { status: 204, body: undefined };
};
