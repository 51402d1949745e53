import { serializeInvitation } from '../../domain/people/invitations.ts';
import { listInvitations as listStoredInvitations } from '../../domain/people/invitationStore.ts';
import { accountOf, type OperationHandler } from '../../http/operation.ts';

/** `GET /api/v1/invitations`: the account's invitations, newest first, without their links. */
export const listInvitations: OperationHandler<'listInvitations'> = async ({ ctx }) => {
  const rows = await listStoredInvitations(ctx.db.prisma, accountOf(ctx));
  const now = ctx.clock.now();
  return { status: 200, body: { data: rows.map((row) => serializeInvitation(row, now)) } };
};
