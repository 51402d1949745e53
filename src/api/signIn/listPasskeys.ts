import { listPasskeys as listStoredPasskeys } from '../../domain/people/passkeyStore.ts';
import { serializePasskey } from '../../domain/people/serializePasskey.ts';
import type { OperationHandler } from '../../http/operation.ts';
import { personOf } from '../../http/personRequests.ts';

/** `GET /api/v1/me/passkeys`: the signed-in person's passkeys. */
export const listPasskeys: OperationHandler<'listPasskeys'> = async ({ ctx }) => {
  const rows = await listStoredPasskeys(ctx.db.prisma, personOf(ctx).id);
  return { status: 200, body: { data: rows.map(serializePasskey) } };
};
