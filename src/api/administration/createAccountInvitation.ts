import { requireAccount } from '../../domain/accounts/accountStore.ts';
import { inviteToAccount } from '../../domain/people/inviteToAccount.ts';
import type { OperationHandler } from '../../http/operation.ts';

/** `POST /admin/v1/accounts/{accountId}/invitations`: the operator invites a person (an account's first owner). */
export const createAccountInvitation: OperationHandler<'createAccountInvitation'> = async ({ params, body, ctx, write }) => {
  await requireAccount(ctx.db.prisma, params.accountId);
  const answer = await inviteToAccount(ctx, params.accountId, body.invitation, write);
  return { status: 201, body: answer, headers: { 'Cache-Control': 'no-store' } };
};
