import { managesOwners } from '../../domain/people/invitations.ts';
import { deleteMembership, lockMember } from '../../domain/people/peopleStore.ts';
import { ConflictError } from '../../errors.ts';
import { InsufficientScopeError } from '../../http/authorize.ts';
import { accountOf, type OperationHandler } from '../../http/operation.ts';

/**
 * `DELETE /api/v1/members/{id}`: the person leaves the account; their sessions working in it
 * end at once (their rows go), so every process refuses them at the next request.
 * @throws NotFoundError (404); InsufficientScopeError (403) for an admin removing an owner;
 *   ConflictError (409) for the last owner.
 */
export const deleteMember: OperationHandler<'deleteMember'> = async ({ params, ctx, write }) => {
  const accountId = accountOf(ctx);
  await write(async (tx) => {
    const { member, owners } = await lockMember(tx, accountId, params.id);
    if (member.role === 'owner' && !managesOwners(ctx.principal!)) throw new InsufficientScopeError('Only an owner removes an owner.', ['members:write']);
    if (member.role === 'owner' && owners === 1) throw new ConflictError('The account needs an owner: make someone else owner first.');
    await deleteMembership(tx, member, accountId);
    return member;
  });
  return { status: 204, body: undefined };
};
