import { inviteToAccount } from '../../domain/people/inviteToAccount.ts';
import { InsufficientScopeError } from '../../http/authorize.ts';
import { managesOwners } from '../../domain/people/invitations.ts';
import { accountOf, type OperationHandler } from '../../http/operation.ts';

/**
 * `POST /api/v1/invitations`: an invitation link to the account, shown once (and e-mailed with
 * `SMTP_URL`). Only an owner invites an owner.
 * @throws InsufficientScopeError (403) for an admin inviting an owner.
 */
export const createInvitation: OperationHandler<'createInvitation'> = async ({ body, ctx, write }) => {
  if (body.invitation.role === 'owner' && !managesOwners(ctx.principal!))
    throw new InsufficientScopeError('Only an owner invites an owner.', ['members:write']);
  const answer = await inviteToAccount(ctx, accountOf(ctx), body.invitation, write);
  return { status: 201, body: answer, headers: { 'Cache-Control': 'no-store' } };
};
