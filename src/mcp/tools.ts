/**
 * The MCP tools of the API, generated from the contract: one tool per `/api/v1` operation
 * (https://modelcontextprotocol.io/specification/2025-11-25/server/tools), nothing written by
 * hand. `/admin/v1`, the Apple web service, Google callbacks, holder pages, pass files and the
 * probes are never tools: only `/api/v1` operations a bearer key may call are.
 *
 * - name = `operationId`; title = `summary`; description = `description` and the HTTP request;
 * - `inputSchema`: an object of the path and query parameters (by their names),
 *   `idempotencyKey` for an operation that takes the `Idempotency-Key` header, and `body`: the
 *   JSON request body, or a `multipart/form-data` body's fields with each file as text;
 * - `outputSchema`: the JSON (or JSON:API) schema of the 2xx responses (several: `anyOf`);
 * - annotations: `readOnlyHint` for GET; `destructiveHint` for nullify, delete, revoke, cancel and deactivate
 *   (and explicitly false for other writes, whose default is true); `idempotentHint` for PUT,
 *   PATCH and DELETE and for operations that take an `Idempotency-Key`.
 *
 * Schemas are resolved by src/mcp/toolSchemas.ts. The catalogue is built once per document;
 * the list a caller gets is a pure function of the catalogue, the caller's scopes
 * (src/mcp/scopes.ts), the tags asked for and the mode, kept once built for each such
 * combination (so `tools/list` costs a lookup).
 *
 * @module mcp/tools
 */
import { createHash } from 'node:crypto';
import type { Tool } from '@modelcontextprotocol/server';
import { LRUCache } from 'lru-cache';
import type { OpenApiDocument } from '../http/routes.ts';
import { requiredScopes } from '../http/authorize.ts';
import { allowed, type CallerScopes, scopesKey } from './scopes.ts';
import { type JsonSchema, MAX_OUTPUT_REF_DEPTH, resolveSchema } from './toolSchemas.ts';

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

/** Operation ids whose effect cannot be undone (MCP `destructiveHint`). */
const DESTRUCTIVE = /nullify|delete|revoke|cancel|deactivate/i;

/** A tool and how to call its operation. */
export interface OperationTool {
  tool: Tool;
  /** Upper-case HTTP method. */
  method: string;
  /** The path template, e.g. `/api/v1/passes/{id}`. */
  path: string;
  /** The operation's tags, as the `tags` filter names them (`pass-templates`). */
  tags: string[];
  /** The scopes a key needs to call the operation (src/http/authorize.ts `requiredScopes`). */
  scopes: string[];
  pathParameters: string[];
  queryParameters: string[];
  /** Whether the operation takes `Idempotency-Key` (argument `idempotencyKey`). */
  idempotencyKey: boolean;
  /** The request body's form; files of a multipart body by field, with the media type to send them as. */
  body?: { form: 'json' } | { form: 'multipart'; files: Record<string, string> };
}

/** How tools are offered: one per operation, or the three meta-tools. */
export type ToolMode = 'operations' | 'meta';

/** A tag as the `tags` filter names it: lower case, `-` for spaces. */
export function tagSlug(tag: string): string {
  return tag.toLowerCase().replace(/\s+/g, '-');
}

type Parameter = { name: string; in: string; required?: boolean; description?: string; schema?: unknown; $ref?: string };

function parameterOf(document: OpenApiDocument, parameter: Parameter): Parameter {
  if (!parameter.$ref) return parameter;
  const name = parameter.$ref.split('/').pop()!;
  return (document.components as { parameters: Record<string, Parameter> }).parameters[name]!;
}

function bodyOf(
  document: OpenApiDocument,
  requestBody: unknown,
): { required: boolean; content: Record<string, { schema?: unknown; encoding?: Record<string, { contentType?: string }> }> } | undefined {
  if (!requestBody) return undefined;
  const ref = (requestBody as { $ref?: string }).$ref;
  return (ref ? (document.components as Record<string, Record<string, unknown>>).requestBodies?.[ref.split('/').pop()!] : requestBody) as never;
}

/** The schema of the operation's JSON success responses, as an object schema (MCP requires one). */
function outputSchemaOf(document: OpenApiDocument, responses: Record<string, { content?: Record<string, { schema?: unknown }> }>): JsonSchema | undefined {
  const schemas = Object.entries(responses)
    .filter(([status]) => /^2\d\d$/.test(status))
    .flatMap(([, response]) => {
      const content = response.content ?? {};
      const json = content['application/vnd.api+json'] ?? content['application/json'];
      return json?.schema ? [resolveSchema(document, json.schema, MAX_OUTPUT_REF_DEPTH)] : [];
    });
  if (!schemas.length) return undefined;
  if (schemas.length === 1) return { ...schemas[0], type: 'object' };
  return { type: 'object', anyOf: schemas };
}

/**
 * The tools of every `/api/v1` operation of `document` that a bearer key may call.
 * @returns In the document's order.
 */
export function operationTools(document: OpenApiDocument): OperationTool[] {
  const tools: OperationTool[] = [];
  for (const [path, item] of Object.entries(document.paths)) {
    if (!path.startsWith('/api/v1/')) continue;
    for (const method of METHODS) {
      const operation = item[method] as Record<string, unknown> | undefined;
      if (!operation?.operationId) continue;
      const scopes = requiredScopes(document, operation);
      if (!scopes) continue;
      const name = operation.operationId as string;
      const parameters = [...((item.parameters as Parameter[]) ?? []), ...((operation.parameters as Parameter[]) ?? [])].map((p) => parameterOf(document, p));
      const properties: Record<string, JsonSchema> = {};
      const required: string[] = [];
      const pathParameters: string[] = [];
      const queryParameters: string[] = [];
      let idempotencyKey = false;
      for (const parameter of parameters) {
        const schema = { ...resolveSchema(document, parameter.schema ?? {}), ...(parameter.description ? { description: parameter.description.trim() } : {}) };
        if (parameter.in === 'path') {
          pathParameters.push(parameter.name);
          properties[parameter.name] = schema;
          required.push(parameter.name);
        } else if (parameter.in === 'query') {
          queryParameters.push(parameter.name);
          properties[parameter.name] = schema;
          if (parameter.required) required.push(parameter.name);
        } else if (parameter.in === 'header' && parameter.name.toLowerCase() === 'idempotency-key') {
          idempotencyKey = true;
          properties.idempotencyKey = schema;
        }
      }
      const requestBody = bodyOf(document, operation.requestBody);
      let body: OperationTool['body'];
      if (requestBody) {
        const json = requestBody.content['application/json'];
        const multipart = requestBody.content['multipart/form-data'];
        if (json?.schema) {
          body = { form: 'json' };
          properties.body = resolveSchema(document, json.schema);
        } else if (multipart?.schema) {
          const files = Object.fromEntries(
            Object.entries(multipart.encoding ?? {}).map(([field, encoding]) => [
              field,
              encoding.contentType?.split(',')[0]?.trim() ?? 'application/octet-stream',
            ]),
          );
          body = { form: 'multipart', files };
          const schema = resolveSchema(document, multipart.schema);
          const fields = { ...((schema.properties as Record<string, JsonSchema>) ?? {}) };
          for (const field of Object.keys(files)) {
            fields[field] = {
              type: 'string',
              description: `${(fields[field]?.description as string | undefined)?.trim() ?? ''} The file's content, as text.`.trim(),
            };
          }
          properties.body = { ...schema, properties: fields };
        }
        if (body && requestBody.required) required.push('body');
      }
      const upper = method.toUpperCase();
      const readOnly = method === 'get';
      const tool: Tool = {
        name,
        title: String(operation.summary ?? name),
        description: `${String(operation.description ?? operation.summary ?? '').trim()}\n\nHTTP: ${upper} ${path}`,
        inputSchema: { type: 'object', properties, ...(required.length ? { required } : {}), additionalProperties: false } as Tool['inputSchema'],
        annotations: {
          title: String(operation.summary ?? name),
          readOnlyHint: readOnly,
          ...(readOnly ? {} : { destructiveHint: DESTRUCTIVE.test(name) }),
          idempotentHint: readOnly || ['put', 'patch', 'delete'].includes(method) || idempotencyKey,
          openWorldHint: false,
        },
      };
      const output = outputSchemaOf(document, operation.responses as never);
      if (output) tool.outputSchema = output as Tool['outputSchema'];
      tools.push({
        tool,
        method: upper,
        path,
        tags: ((operation.tags as string[]) ?? []).map(tagSlug),
        scopes,
        pathParameters,
        queryParameters,
        idempotencyKey,
        ...(body ? { body } : {}),
      });
    }
  }
  return tools;
}

/** A kept tool list: its tools, their operations, and once asked for, its JSON bytes. */
interface ListEntry {
  tools: Tool[];
  operations: OperationTool[];
  bytes?: { bytes: Buffer; digest: string };
}

/** What a caller asks of the tool list. */
export interface ToolListOptions {
  /** Only tools of these tags ({@link tagSlug} form); all when undefined. */
  tags?: readonly string[];
  mode: ToolMode;
}

/**
 * The tools of one document, and the lists callers get, each built once and kept (at most 256
 * combinations of scopes, tags and mode; the least recently used are dropped).
 */
export class ToolCatalogue {
  readonly document: OpenApiDocument;
  readonly #operations: OperationTool[];
  readonly #byName: Map<string, OperationTool>;
  readonly #lists = new LRUCache<string, ListEntry>({ max: 256 });

  constructor(document: OpenApiDocument) {
    this.document = document;
    this.#operations = operationTools(document);
    this.#byName = new Map(this.#operations.map((o) => [o.tool.name, o]));
  }

  /** Every operation tool of the document, whoever asks. */
  get all(): readonly OperationTool[] {
    return this.#operations;
  }

  /**
   * The operations `scopes` allow among those of `tags` (all tags when undefined).
   * @returns The same array for the same arguments (kept); do not change it.
   */
  operations(scopes: CallerScopes, tags: readonly string[] | undefined): OperationTool[] {
    return this.#entry(scopes, { tags, mode: 'operations' }).operations;
  }

  /**
   * The `tools` of a `tools/list` result.
   * @returns The same array for the same arguments (kept); do not change it.
   */
  list(scopes: CallerScopes, options: ToolListOptions): Tool[] {
    return this.#entry(scopes, options).tools;
  }

  /**
   * {@link list} as the UTF-8 bytes of its JSON text, with their SHA-1 digest (base64), made
   * once per combination and kept, for answers that embed the list without serialising and
   * encoding its schemas again (≈ 250 KB for a secret key; src/mcp/mcpServer.ts).
   */
  listBytes(scopes: CallerScopes, options: ToolListOptions): { bytes: Buffer; digest: string } {
    const entry = this.#entry(scopes, options);
    if (!entry.bytes) {
      const bytes = Buffer.from(JSON.stringify(entry.tools), 'utf8');
      entry.bytes = { bytes, digest: createHash('sha1').update(bytes).digest('base64') };
    }
    return entry.bytes;
  }

  /** The operation tool named `name` if `scopes` allow it (whatever tags were asked for), else undefined. */
  find(name: string, scopes: CallerScopes): OperationTool | undefined {
    const tool = this.#byName.get(name);
    return tool && allowed(tool.scopes, scopes) ? tool : undefined;
  }

  #entry(scopes: CallerScopes, options: ToolListOptions): ListEntry {
    const key = `${scopesKey(scopes)}|${options.mode}|${options.tags ? [...options.tags].sort().join(',') : '*'}`;
    let entry = this.#lists.get(key);
    if (!entry) {
      const operations = this.#operations.filter((o) => allowed(o.scopes, scopes) && (!options.tags || o.tags.some((tag) => options.tags!.includes(tag))));
      entry = { operations, tools: options.mode === 'meta' ? META_TOOLS : operations.map((o) => o.tool) };
      this.#lists.set(key, entry);
    }
    return entry;
  }
}

/** The three tools of `tools=meta`: list the operations, describe one, call one. */
export const META_TOOLS: Tool[] = [
  {
    name: 'listOperations',
    title: 'List the API operations',
    description:
      'Lists the operations of the wallet pass API this key may call (name, title, HTTP method and path, tags). Describe one with describeOperation, call it with callOperation.',
    inputSchema: {
      type: 'object',
      properties: { tag: { type: 'string', description: 'Only operations of this tag (lower case, - for spaces), e.g. passes, loyalty, pass-templates.' } },
      additionalProperties: false,
    },
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  },
  {
    name: 'describeOperation',
    title: 'Describe an API operation',
    description: 'The description, input schema, output schema and annotations of one operation, as its tool would have them.',
    inputSchema: {
      type: 'object',
      properties: { name: { type: 'string', description: 'The operation name (operationId), e.g. createPass.' } },
      required: ['name'],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  },
  {
    name: 'callOperation',
    title: 'Call an API operation',
    description:
      'Calls one operation with arguments that follow its input schema (describeOperation): path and query parameters by name, idempotencyKey, and body. Answers its response document; an error is a tool error carrying the JSON:API error document.',
    inputSchema: {
      type: 'object',
      properties: {
        name: { type: 'string', description: 'The operation name (operationId).' },
        arguments: { type: 'object', description: "The operation's arguments." },
      },
      required: ['name'],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: false },
  },
];
