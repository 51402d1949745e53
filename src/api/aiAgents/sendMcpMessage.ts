import type { OperationHandler } from '../../http/operation.ts';
import { mcpEndpoint } from '../../mcp/mcpServer.ts';
import { callerScopes } from '../../mcp/scopes.ts';

/** Request headers the MCP transport reads, besides every `Mcp-…` header (`Mcp-Protocol-Version`, 2026-07-28's `Mcp-Method`, `Mcp-Name`, `Mcp-Param-…`). */
const FORWARDED = new Set(['accept', 'content-type', 'last-event-id']);

/** Response headers of the SDK's answer left to Node.js (https://www.rfc-editor.org/rfc/rfc9110#section-7.6.1). */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'upgrade']);

/**
 * `POST /mcp`: one Model Context Protocol message, answered by the SDK's stateless Streamable
 * HTTP handler (src/mcp/mcpServer.ts) for the key that authenticated the request; the body, which
 * the app has parsed and validated, is handed over parsed. The SDK's answer — a JSON-RPC
 * response as JSON or one server-sent event, `202` for a notification, or its JSON-RPC error
 * statuses — is sent as it is (JSON checked against the contract with `VALIDATE_RESPONSES`). A
 * 2025-era `tools/list` or `tools/call` is answered without the SDK (`McpEndpoint.answerDirectly`).
 */
export const sendMcpMessage: OperationHandler<'sendMcpMessage'> = async ({ body, query, headers, ctx }) => {
  const endpoint = mcpEndpoint();
  const caller = {
    ctx,
    authorization: headers.authorization,
    scopes: callerScopes(ctx),
    tags: query.tags ? query.tags.split(',') : undefined,
    mode: query.tools ?? 'operations',
  };
  const direct = await endpoint.answerDirectly(body, headers, caller);
  if (direct !== undefined) return { status: 200, body: direct.body, headers: direct.headers } as never;
  const webHeaders = new Headers();
  for (const name in headers) {
    const value = headers[name];
    if (typeof value === 'string' && (name.startsWith('mcp-') || FORWARDED.has(name))) webHeaders.set(name, value);
  }
  const request = new Request(`${ctx.baseUrl}/mcp`, { method: 'POST', headers: webHeaders });
  const response = await endpoint.handler.fetch(request, {
    parsedBody: body,
    authInfo: { token: '', clientId: ctx.accountId ?? '', scopes: [], extra: { caller } },
  });
  const responseHeaders: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    // Hop-by-hop headers are the server's own (RFC 9110 §7.6.1): the SDK's `Connection: keep-alive`
    // would override the `Connection: close` a shutting-down server answers with (src/server.ts).
    if (!HOP_BY_HOP.has(name)) responseHeaders[name] = value;
  });
  const text = await response.text();
  // With VALIDATE_RESPONSES a JSON answer is handed over as a value, which the validator checks
  // against the contract like any other (src/app.ts); otherwise it is sent as the SDK wrote it.
  const json = ctx.config.validateResponses && text && /^application\/json\b/.test(responseHeaders['content-type'] ?? '');
  return { status: response.status, body: json ? JSON.parse(text) : text || undefined, headers: responseHeaders } as never;
};
