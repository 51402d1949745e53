import type { OperationHandler } from '../../http/operation.ts';
import { auditEventAnswer } from '../../domain/audit/auditQuery.ts';

/**
 * `GET /admin/v1/audit-events`: the audit log of every account (or of `account`), newest first,
 * filtered, by cursor; JSON, NDJSON or CSV (src/domain/audit/auditQuery.ts).
 * @throws ValidationError naming the parameter at fault.
 */
export const listAllAuditEvents: OperationHandler<'listAllAuditEvents'> = async ({ query, headers, ctx, url }) => {
  const answer = await auditEventAnswer(ctx.db, undefined, query, headers.accept, ctx.baseUrl, url);
  // The JSON document goes out as JSON (validated against the contract with VALIDATE_RESPONSES);
  // the handler's body type is the exports' text.
  return { status: 200, body: answer.body as string, headers: answer.headers };
};
