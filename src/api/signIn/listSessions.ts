import { listPersonSessions } from '../../domain/people/personSessionStore.ts';
import { toTimestamp } from '../../domain/serialize.ts';
import type { OperationHandler } from '../../http/operation.ts';
import { personOf } from '../../http/personRequests.ts';

/** `GET /api/v1/me/sessions`: the person's sessions that have not ended, newest first. */
export const listSessions: OperationHandler<'listSessions'> = async ({ ctx }) => {
  const person = personOf(ctx);
  const now = ctx.clock.now();
  const idleSince = new Date(now.getTime() - ctx.config.sessionIdleTimeoutMinutes * 60_000);
  const rows = await listPersonSessions(ctx.db.prisma, person.id, idleSince, now);
  return {
    status: 200,
    body: {
      data: rows.map((row) => ({
        id: row.id,
        type: 'signedInSession' as const,
        attributes: {
          method: row.method,
          createdAt: toTimestamp(row.createdAt),
          lastSeenAt: toTimestamp(row.lastSeenAt),
          expiresAt: toTimestamp(row.expiresAt),
          clientAddress: row.clientAddress,
          userAgent: row.userAgent,
          current: row.id === person.sessionId,
        },
      })),
    },
  };
};
