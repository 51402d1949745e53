/**
 * The Model Context Protocol server of the API (https://modelcontextprotocol.io/specification/2025-11-25),
 * served statelessly over Streamable HTTP at `/mcp` (src/api/aiAgents/sendMcpMessage.ts) with the
 * official SDK's `createMcpHandler` (`@modelcontextprotocol/server`): protocol revision
 * 2026-07-28 (per-request `_meta` envelope) and, through the SDK's stateless legacy leg, the
 * 2025 revisions with `initialize`. A request the SDK answers gets a fresh low-level `Server`
 * bound to that request's caller (its `ctx`, `Authorization`, scopes, tag filter and mode): the
 * SDK's stateless legacy leg connects one server to one transport per request, so neither can be
 * kept. The two messages an agent repeats, a plain 2025-era `tools/list` and `tools/call`, are
 * answered without it, with the same response ({@link McpEndpoint.answerDirectly}); tool lists
 * are built and serialised once per scope set, tags and mode (src/mcp/tools.ts). Bench:
 * `npm run bench -- mcp`.
 *
 * What it offers:
 * - tools: one per `/api/v1` operation (or the three meta-tools), called through the app
 *   in-process (src/mcp/callTool.ts);
 * - the resource `openapi://wallet-pass-service/openapi.json`: the contract as served;
 * - the prompt `issueLoyaltyPass`: issue a loyalty pass and send it, step by step.
 *
 * @module mcp/mcpServer
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import {
  type CallToolResult,
  createMcpHandler,
  type GetPromptResult,
  type McpHttpHandler,
  type McpRequestContext,
  ProtocolError,
  ProtocolErrorCode,
  SUPPORTED_PROTOCOL_VERSIONS,
  Server,
} from '@modelcontextprotocol/server';
import type { RequestContext } from '../http/operation.ts';
import type { OpenApiDocument } from '../http/routes.ts';
import { loadServedContract, type ServedContract } from '../http/servedContract.ts';
import { packageRoot } from '../packageRoot.ts';
import { callOperationTool } from './callTool.ts';
import type { CallerScopes } from './scopes.ts';
import { META_TOOLS, ToolCatalogue, type ToolMode } from './tools.ts';

/** The contract as an MCP resource. */
export const CONTRACT_RESOURCE_URI = 'openapi://wallet-pass-service/openapi.json';

/** The prompt that walks an agent through issuing a loyalty pass and sending it. */
export const ISSUE_LOYALTY_PASS_PROMPT = 'issueLoyaltyPass';

/** The caller of one MCP request: what the server instance answering it acts for. */
export interface McpCaller {
  ctx: RequestContext;
  /** The request's `Authorization` header, sent with every operation a tool calls. */
  authorization: string | undefined;
  scopes: CallerScopes;
  /** The `tags` filter (lower-case tag names), or undefined for all. */
  tags: readonly string[] | undefined;
  mode: ToolMode;
}

const SERVER_INFO = { name: 'wallet-pass-service', title: 'Wallet Pass Service', version: '1.0.0' };

const INSTRUCTIONS =
  'Tools of the Wallet Pass Service API: design pass templates, issue Apple Wallet and Google Wallet passes, change loyalty balances, read scans and stats, send wallet messages. Each tool is one REST operation (its name is the operationId) called with your API key; an error is a tool error carrying the JSON:API error document (branch on errors[].code). Send idempotencyKey on writes you may retry. The contract is the resource openapi://wallet-pass-service/openapi.json.';

/** The steps of {@link ISSUE_LOYALTY_PASS_PROMPT}. */
function issueLoyaltyPassText(args: Record<string, string | undefined>): string {
  const holder = args.holderName ? `for ${args.holderName}` : 'for the member';
  const points = args.points ? ` with ${args.points} points` : '';
  const recipient = args.recipient ? ` to ${args.recipient}` : ' to the member';
  return [
    `Issue a loyalty pass ${holder}${points} and send it${recipient}, with the tools of this server:`,
    `1. Find the template: ${args.passTemplate ? `use pass template ${args.passTemplate} (getPassTemplate to check that its processingStatus is "processed")` : 'listPassTemplates, and pick a processed loyalty template (its fields say which field ids a pass takes; ask me if several fit)'}.`,
    '2. Issue the pass: createPass with the template id and `body.pass` holding the field values by field id (the member name; the loyalty field `points` sets the starting balance). Send an idempotencyKey, so that a retry issues one pass.',
    `3. ${points ? `Check the balance: getLoyalty shows meta.loyalty.balance; if it is not right, updateLoyalty with \`body.overrideBalance\`.` : 'Optionally add points with updateLoyalty (`body.balance` adds, `body.overrideBalance` sets), with an idempotencyKey.'}`,
    `4. Send it: the pass's holder page link (the pass's download link in the createPass answer, which opens Apple Wallet or Google Wallet on the holder's phone) is what you send${recipient}, by the channel I tell you (e-mail, SMS, chat); this service does not send e-mail or SMS itself. Once the pass is in a wallet, createWalletMessagingBatch can send it wallet messages.`,
    '5. Report the pass id, its extId if any, the balance and the link you sent. If a tool answers an error, quote its errors[].code and detail and stop.',
  ].join('\n');
}

/**
 * The MCP endpoint of one contract: its tool catalogue and the SDK's HTTP handler.
 */
export class McpEndpoint {
  readonly catalogue: ToolCatalogue;
  readonly handler: McpHttpHandler;
  readonly #served: ServedContract;

  constructor(document: OpenApiDocument, served: ServedContract) {
    this.catalogue = new ToolCatalogue(document);
    this.#served = served;
    this.handler = createMcpHandler((request) => this.#serverFor(request), { legacy: 'stateless' });
  }

  /**
   * The answer to a 2025-era `tools/list` or `tools/call`, without the SDK — the two messages an
   * agent sends over and over. The SDK's stateless legacy transport would make a `Server`, a
   * transport and web streams for the request, validate the message and the result with its
   * schemas, and (for `tools/list`) serialise every schema again (≈ 250 KB for a secret key):
   * ≈ 1 ms of CPU per message (`npm run bench -- mcp`). The answer is the same JSON-RPC response,
   * framed as that transport frames it: one server-sent event `message`
   * (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#sending-messages-to-the-server),
   * sent with {@link EVENT_STREAM_HEADERS}. `tools/list` answers the tool list serialised once per
   * caller's scopes, tags and mode (src/mcp/tools.ts); `tools/call` runs the tool as the SDK's
   * handler does ({@link McpEndpoint.toolCall}), a thrown error becoming the JSON-RPC error the
   * SDK would send.
   * @returns The event stream's text, or undefined when the message is anything else or is not
   *   plainly a 2025-era request the transport would take as it is (then the SDK answers it: its
   *   refusals, an unknown tool, the 2026-07-28 revision, a cursor, other `params` or headers).
   */
  async answerDirectly(
    message: unknown,
    headers: Record<string, string | string[] | undefined>,
    caller: McpCaller,
  ): Promise<{ body: Buffer; headers: Record<string, string> } | undefined> {
    const request = plainLegacyRequest(message, headers);
    if (!request) return undefined;
    const { method, id, params } = request;
    if (method === 'tools/list') {
      if (Object.keys(params).some((key) => key !== '_meta')) return undefined;
      const { bytes, digest } = this.catalogue.listBytes(caller.scopes, { tags: caller.tags, mode: caller.mode });
      const head = 'event: message\ndata: {"result":{"tools":';
      const tail = `},"jsonrpc":"2.0","id":${JSON.stringify(id)}}\n\n`;
      const body = Buffer.concat([Buffer.from(head, 'utf8'), bytes, Buffer.from(tail, 'utf8')]);
      // The list is kept as bytes with their digest: a weak ETag of them and of the framing,
      // in the form Express gives one (W/"<length>-<SHA-1>"), instead of Express hashing ≈ 250 KB again.
      const etag = `W/"${body.length.toString(16)}-${createHash('sha1').update(`${digest}${head}${tail}`).digest('base64').slice(0, 27)}"`;
      return { body, headers: { ...EVENT_STREAM_HEADERS, ETag: etag } };
    }
    if (method !== 'tools/call') return undefined;
    const { name, arguments: args } = params;
    if (Object.keys(params).some((key) => key !== 'name' && key !== 'arguments' && key !== '_meta') || typeof name !== 'string') return undefined;
    if (args !== undefined && !isPlainObject(args)) return undefined;
    const call = this.toolCall(caller, name, (args ?? {}) as Record<string, unknown>);
    if (!call) return undefined;
    let response: Record<string, unknown>;
    try {
      response = { result: await call(), jsonrpc: '2.0', id };
    } catch (error) {
      // As the SDK's Protocol answers a handler's error (`_onrequest`).
      const { code, message: text, data } = error as { code?: unknown; message?: string; data?: unknown };
      response = {
        jsonrpc: '2.0',
        id,
        error: {
          code: Number.isSafeInteger(code) ? code : ProtocolErrorCode.InternalError,
          message: text ?? 'Internal error',
          ...(data !== undefined ? { data } : {}),
        },
      };
    }
    // Bytes, not a string: a response holding any non-Latin-1 character would be encoded twice.
    return { body: Buffer.from(`event: message\ndata: ${JSON.stringify(response)}\n\n`, 'utf8'), headers: EVENT_STREAM_HEADERS };
  }

  /**
   * The call of tool `name` with `args` for `caller`, or undefined when the caller has no such
   * tool (an operation its scopes or tags leave out, or, in `meta` mode, anything but the three
   * meta-tools): MCP answers an unknown tool with a protocol error (src/mcp/mcpServer.ts
   * `unknownTool`).
   */
  toolCall(caller: McpCaller, name: string, args: Record<string, unknown>): (() => Promise<CallToolResult>) | undefined {
    if (caller.mode === 'meta') return META_TOOL_NAMES.has(name) ? () => this.#callMeta(caller, name, args) : undefined;
    const operation = this.catalogue.find(name, caller.scopes);
    if (!operation || !this.catalogue.operations(caller.scopes, caller.tags).includes(operation)) return undefined;
    return () => callOperationTool(caller.ctx, operation, args, caller.authorization);
  }

  /** A server instance for one request: its caller comes as the request's `authInfo.extra.caller`. */
  #serverFor(request: McpRequestContext): Server {
    const caller = request.authInfo?.extra?.caller as McpCaller | undefined;
    if (!caller) throw new Error('An MCP request reached the server without its caller');
    // The SDK's low-level server: its high-level McpServer would convert every tool's schemas on every request.
    const server = new Server(SERVER_INFO, {
      capabilities: { tools: { listChanged: false }, resources: {}, prompts: {} },
      instructions: INSTRUCTIONS,
    });
    const { catalogue } = this;
    server.setRequestHandler('tools/list', async () => ({ tools: catalogue.list(caller.scopes, { tags: caller.tags, mode: caller.mode }) }));
    server.setRequestHandler('tools/call', async (call) => {
      const { name } = call.params;
      const run = this.toolCall(caller, name, (call.params.arguments ?? {}) as Record<string, unknown>);
      if (!run) throw unknownTool(name);
      return run();
    });
    server.setRequestHandler('resources/list', async () => ({
      resources: [
        {
          uri: CONTRACT_RESOURCE_URI,
          name: 'openapi.json',
          title: 'The API contract (OpenAPI 3.1)',
          description: 'The OpenAPI document every tool is generated from, as this server serves it at /openapi.json.',
          mimeType: 'application/json',
        },
      ],
    }));
    server.setRequestHandler('resources/read', async (read) => {
      if (read.params.uri !== CONTRACT_RESOURCE_URI) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `No resource ${read.params.uri}`);
      return { contents: [{ uri: CONTRACT_RESOURCE_URI, mimeType: 'application/json', text: this.#served.json(caller.ctx.baseUrl) }] };
    });
    server.setRequestHandler('prompts/list', async () => ({
      prompts: [
        {
          name: ISSUE_LOYALTY_PASS_PROMPT,
          title: 'Issue a loyalty pass and send it',
          description: 'Walks through the operations that issue a loyalty pass from a template, set its points, and send its link to the holder.',
          arguments: [
            { name: 'holderName', description: "The member's name, as the pass shows it.", required: false },
            { name: 'points', description: 'The starting balance.', required: false },
            { name: 'passTemplate', description: 'The id of the pass template to issue from (else the agent picks one).', required: false },
            { name: 'recipient', description: 'Whom to send the pass to: an e-mail address or phone number.', required: false },
          ],
        },
      ],
    }));
    server.setRequestHandler('prompts/get', async (get): Promise<GetPromptResult> => {
      if (get.params.name !== ISSUE_LOYALTY_PASS_PROMPT) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `No prompt ${get.params.name}`);
      return {
        description: 'Issue a loyalty pass and send it',
        messages: [{ role: 'user', content: { type: 'text', text: issueLoyaltyPassText((get.params.arguments ?? {}) as Record<string, string | undefined>) } }],
      };
    });
    return server;
  }

  async #callMeta(caller: McpCaller, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
    const operations = this.catalogue.operations(caller.scopes, caller.tags);
    const json = (value: Record<string, unknown>): CallToolResult => ({ content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value });
    if (name === 'listOperations') {
      const tag = typeof args.tag === 'string' ? args.tag : undefined;
      return json({
        operations: operations
          .filter((o) => !tag || o.tags.includes(tag))
          .map((o) => ({ name: o.tool.name, title: o.tool.title, method: o.method, path: o.path, tags: o.tags })),
      });
    }
    const operation = typeof args.name === 'string' ? operations.find((o) => o.tool.name === args.name) : undefined;
    if (name === 'describeOperation' || name === 'callOperation') {
      if (!operation) {
        const document = {
          errors: [
            {
              status: '404',
              code: 'not_found',
              title: 'Not found',
              detail: `No operation ${String(args.name)} for this key (see listOperations).`,
              source: { parameter: 'name' },
            },
          ],
        };
        return { isError: true, content: [{ type: 'text', text: JSON.stringify(document) }], structuredContent: document };
      }
      if (name === 'describeOperation') return json({ ...operation.tool, method: operation.method, path: operation.path });
      const callArgs = args.arguments && typeof args.arguments === 'object' ? (args.arguments as Record<string, unknown>) : {};
      return callOperationTool(caller.ctx, operation, callArgs, caller.authorization);
    }
    throw unknownTool(name);
  }
}

/**
 * The headers of the SDK's stateless 2025-era answer, one server-sent event (its
 * `WebStandardStreamableHTTPServerTransport`), as src/api/aiAgents/sendMcpMessage.ts sends the
 * SDK's: with the charset Express adds to text (server-sent events are always UTF-8,
 * https://html.spec.whatwg.org/multipage/server-sent-events.html#parsing-an-event-stream), without
 * its hop-by-hop `Connection` (Node.js manages the connection; RFC 9110 §7.6.1).
 */
export const EVENT_STREAM_HEADERS: Readonly<Record<string, string>> = {
  'Content-Type': 'text/event-stream; charset=utf-8',
  'Cache-Control': 'no-cache, no-transform',
  'X-Accel-Buffering': 'no',
};

const META_TOOL_NAMES = new Set(META_TOOLS.map((tool) => tool.name));

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * `message` as a request of the 2025 revisions that the SDK's stateless legacy transport would
 * take as it is, or undefined: a JSON-RPC request (`jsonrpc`, an integer or string `id`,
 * `method`, object `params` if any, nothing else) whose `_meta` holds at most a `progressToken`,
 * sent accepting JSON and server-sent events (as the transport requires,
 * https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#sending-messages-to-the-server),
 * with no `Mcp-…` header but a supported `MCP-Protocol-Version` (a 2026-07-28 request names its
 * revision in `_meta` and sends `Mcp-Method`).
 */
function plainLegacyRequest(
  message: unknown,
  headers: Record<string, string | string[] | undefined>,
): { method: string; id: string | number; params: Record<string, unknown> } | undefined {
  if (!isPlainObject(message)) return undefined;
  const { jsonrpc, method, id, params, ...rest } = message;
  if (jsonrpc !== '2.0' || typeof method !== 'string' || Object.keys(rest).length) return undefined;
  if (typeof id !== 'string' && !Number.isSafeInteger(id)) return undefined;
  if (params !== undefined && !isPlainObject(params)) return undefined;
  const meta = params?._meta;
  if (meta !== undefined && (!isPlainObject(meta) || Object.keys(meta).some((key) => key !== 'progressToken'))) return undefined;
  for (const name in headers) {
    if (!name.startsWith('mcp-')) continue;
    const value = headers[name];
    if (name !== 'mcp-protocol-version' || typeof value !== 'string' || !SUPPORTED_PROTOCOL_VERSIONS.includes(value)) return undefined;
  }
  const accept = headers.accept;
  if (typeof accept !== 'string' || !accept.includes('application/json') || !accept.includes('text/event-stream')) return undefined;
  return { method, id: id as string | number, params: params ?? {} };
}

/** The protocol error for a tool that is not listed for the caller (MCP: unknown tools are protocol errors). */
function unknownTool(name: string): ProtocolError {
  return new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${name}`);
}

let endpoint: McpEndpoint | undefined;

/** The endpoint of the bundled contract (generated/openapi.json), made on first use and kept. */
export function mcpEndpoint(): McpEndpoint {
  if (!endpoint) {
    const generated = resolve(packageRoot, 'generated');
    const served = loadServedContract(generated);
    endpoint = new McpEndpoint(JSON.parse(readFileSync(resolve(generated, 'openapi.json'), 'utf8')) as OpenApiDocument, served);
  }
  return endpoint;
}
