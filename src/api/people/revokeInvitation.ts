import { serializeInvitation } from '../../domain/people/invitations.ts';
import { revokeInvitation as revokeStoredInvitation } from '../../domain/people/invitationStore.ts';
import { accountOf, type OperationHandler } from '../../http/operation.ts';

/**
 * `POST /api/v1/invitations/{id}/revoke`: the link stops working.
 * @throws NotFoundError (404); ConflictError (409) for an accepted invitation.
 */
export const revokeInvitation: OperationHandler<'revokeInvitation'> = async ({ params, ctx, write }) => {
  const now = ctx.clock.now();
  const row = await write((tx) => revokeStoredInvitation(tx, accountOf(ctx), params.id, now));
  return { status: 200, body: { data: serializeInvitation(row, now) } };
};
