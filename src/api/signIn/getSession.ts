import { sessionResource } from '../../domain/people/personSessions.ts';
import type { OperationHandler } from '../../http/operation.ts';
import { sessionTokenOf } from '../../security/sessions.ts';

/** `GET /api/v1/session`: the signed-in session, with its CSRF token. */
export const getSession: OperationHandler<'getSession'> = async ({ headers, ctx }) => {
  const data = await sessionResource(ctx.db.prisma, ctx.config, sessionTokenOf(headers.cookie)!);
  return { status: 200, body: { data }, headers: { 'Cache-Control': 'no-store' } };
};
