import { managesOwners } from '../../domain/people/invitations.ts';
import { lockMember, setMemberRole } from '../../domain/people/peopleStore.ts';
import { serializeMember } from '../../domain/people/serializeMember.ts';
import { ConflictError } from '../../errors.ts';
import { InsufficientScopeError } from '../../http/authorize.ts';
import { accountOf, type OperationHandler } from '../../http/operation.ts';

/**
 * `PATCH /api/v1/members/{id}`: a member's new role. Only an owner makes or changes an owner
 * (src/domain/people/invitations.ts); the last owner stays one.
 * @throws NotFoundError (404); InsufficientScopeError (403) for an admin touching an owner;
 *   ConflictError (409) for the last owner.
 */
export const updateMember: OperationHandler<'updateMember'> = async ({ params, body, ctx, write }) => {
  const accountId = accountOf(ctx);
  const { role } = body.member;
  const member = await write(async (tx) => {
    const { member, owners } = await lockMember(tx, accountId, params.id);
    if ((member.role === 'owner' || role === 'owner') && !managesOwners(ctx.principal!))
      throw new InsufficientScopeError('Only an owner makes, changes or removes an owner.', ['members:write']);
    if (member.role === 'owner' && role !== 'owner' && owners === 1)
      throw new ConflictError('The account needs an owner: make someone else owner first.', { pointer: '/member/role' });
    await setMemberRole(tx, member.id, role);
    return { ...member, role };
  });
  return { status: 200, body: { data: serializeMember(member) } };
};
