import { listMembers as listStoredMembers } from '../../domain/people/peopleStore.ts';
import { serializeMember } from '../../domain/people/serializeMember.ts';
import { accountOf, type OperationHandler } from '../../http/operation.ts';

/** `GET /api/v1/members`: every member of the account, by name. */
export const listMembers: OperationHandler<'listMembers'> = async ({ ctx }) => {
  const rows = await listStoredMembers(ctx.db.prisma, accountOf(ctx));
  return { status: 200, body: { data: rows.map(serializeMember) } };
};
