/**
 * A tool call as the request of its operation, run through the app in-process
 * (src/http/inProcessRequests.ts) with the caller's own `Authorization`: validation, rate
 * limits, idempotency and tracing are those of the HTTP request, so a tool can do nothing the
 * REST API would refuse. The answer becomes the tool's result
 * (https://modelcontextprotocol.io/specification/2025-11-25/server/tools#tool-result): a JSON
 * document as `structuredContent` and as its JSON text (the bytes the app wrote, not serialised
 * again), CSV and SVG as text, PNG as an image; an error status is a tool error
 * (`isError: true`) carrying the JSON:API error document, never a protocol error.
 *
 * @module mcp/callTool
 */
import type { CallToolResult } from '@modelcontextprotocol/server';
import type { InProcessRequest, InProcessResponse } from '../http/inProcessRequests.ts';
import type { RequestContext } from '../http/operation.ts';
import type { OperationTool } from './tools.ts';

/** What a tool asks the app for: JSON:API first, then JSON, CSV, an image. */
const ACCEPT = 'application/vnd.api+json, application/json;q=0.9, text/csv;q=0.8, image/png;q=0.5';

/** A JSON:API error document for arguments that cannot make a request (https://jsonapi.org/format/#errors). */
function argumentError(detail: string, parameter: string): CallToolResult {
  const document = { errors: [{ status: '400', code: 'validation_failed', title: 'Invalid request', detail, source: { parameter } }] };
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(document) }], structuredContent: document };
}

function queryValue(value: unknown): string {
  return typeof value === 'string' ? value : typeof value === 'object' ? JSON.stringify(value) : String(value);
}

/** A `multipart/form-data` body (RFC 7578) of `fields`, the `files` among them sent as files. */
function multipartBody(fields: Record<string, unknown>, files: Record<string, string>): { bytes: Buffer; contentType: string } {
  const boundary = `----wallet-pass-service-${Math.random().toString(36).slice(2)}${Date.now().toString(36)}`;
  const parts: Buffer[] = [];
  for (const [name, value] of Object.entries(fields)) {
    if (value === undefined || value === null) continue;
    const text = typeof value === 'string' ? value : JSON.stringify(value);
    const safeName = name.replace(/["\r\n]/g, '_');
    const head = files[name]
      ? `Content-Disposition: form-data; name="${safeName}"; filename="${safeName}.csv"\r\nContent-Type: ${files[name]}\r\n`
      : `Content-Disposition: form-data; name="${safeName}"\r\n`;
    parts.push(Buffer.from(`--${boundary}\r\n${head}\r\n`), Buffer.from(text, 'utf8'), Buffer.from('\r\n'));
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return { bytes: Buffer.concat(parts), contentType: `multipart/form-data; boundary=${boundary}` };
}

/**
 * The in-process request of a call of `operation` with `args`.
 * @returns The request, or a tool error result when a path parameter is missing.
 */
export function requestOf(operation: OperationTool, args: Record<string, unknown>, authorization: string | undefined): InProcessRequest | CallToolResult {
  let url = operation.path;
  for (const name of operation.pathParameters) {
    const value = args[name];
    if (typeof value !== 'string' && typeof value !== 'number') return argumentError(`The path parameter ${name} is required.`, name);
    url = url.replace(`{${name}}`, encodeURIComponent(String(value)));
  }
  const query = new URLSearchParams();
  for (const name of operation.queryParameters) {
    const value = args[name];
    if (value !== undefined && value !== null) query.append(name, queryValue(value));
  }
  const search = query.toString();
  const headers: Record<string, string> = { accept: ACCEPT };
  if (authorization) headers.authorization = authorization;
  if (operation.idempotencyKey && typeof args.idempotencyKey === 'string') headers['idempotency-key'] = args.idempotencyKey;
  const request: InProcessRequest = { method: operation.method, url: search ? `${url}?${search}` : url, headers };
  const body = args.body;
  if (operation.body && body !== undefined) {
    if (operation.body.form === 'json') request.json = body;
    else if (body && typeof body === 'object') {
      const { bytes, contentType } = multipartBody(body as Record<string, unknown>, operation.body.files);
      request.bytes = bytes;
      headers['content-type'] = contentType;
    }
  }
  return request;
}

/** The tool result of the operation's response. */
export function resultOf(response: InProcessResponse): CallToolResult {
  const isError = response.status >= 400;
  const contentType = String(response.headers['content-type'] ?? '');
  if (response.json !== undefined && response.json !== null && typeof response.json === 'object') {
    return {
      ...(isError ? { isError } : {}),
      content: [{ type: 'text', text: response.body.toString('utf8') }],
      structuredContent: (Array.isArray(response.json) ? { data: response.json } : response.json) as Record<string, unknown>,
    };
  }
  if (contentType.startsWith('image/png')) {
    return { content: [{ type: 'image', data: response.body.toString('base64'), mimeType: 'image/png' }], ...(isError ? { isError } : {}) };
  }
  const text = response.body.length ? response.body.toString('utf8') : `${response.status} ${response.status === 204 ? 'No Content' : ''}`.trim();
  return { content: [{ type: 'text', text }], ...(isError ? { isError } : {}) };
}

/**
 * Calls `operation` with `args` on behalf of the MCP request of `ctx`, authenticated with its
 * `authorization` header.
 * @returns The tool result; a tool error for a refused or failed call.
 */
export async function callOperationTool(
  ctx: RequestContext,
  operation: OperationTool,
  args: Record<string, unknown>,
  authorization: string | undefined,
): Promise<CallToolResult> {
  const request = requestOf(operation, args, authorization);
  if ('content' in request) return request;
  return resultOf(await ctx.dispatch(request));
}
