/**
 * The bundled contract (generated/openapi.json) read as a list of operations, for tests that walk
 * every operation: which statuses each documents, how it authenticates, and how to build a
 * request that passes validation from the contract's own examples and schemas — so a new
 * operation is walked without anyone writing its requests by hand.
 */
import { randomUUID } from 'node:crypto';
import { loadApiDocument } from '../../src/app.ts';
import { documentOperations, type DocumentOperation } from '../../src/http/routes.ts';

/** The parts of a parameter or schema object the walker reads (after `$ref`s are resolved). */
interface SchemaObject {
  format?: string;
  pattern?: string;
  default?: unknown;
  examples?: unknown[];
}
/** A parameter object of the contract, as the walker reads it. */
export interface ParameterObject {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required?: boolean;
  schema?: SchemaObject;
  example?: unknown;
  examples?: Record<string, { value?: unknown }>;
}
interface MediaTypeObject {
  example?: unknown;
  examples?: Record<string, { value?: unknown }>;
}
interface OperationObject {
  operationId: string;
  parameters?: ParameterObject[];
  requestBody?: { required?: boolean; content: Record<string, MediaTypeObject> };
  responses: Record<string, unknown>;
  security?: Record<string, string[]>[];
  'x-unstorable-path-status'?: number;
  'x-audited'?: boolean;
  'x-eov-allow-unknown-query-parameters'?: boolean;
}

/** One operation of the contract, as the walkers need it. */
export interface ContractOperation extends DocumentOperation {
  /** Documented response statuses, ascending (`default` and `NXX` ranges are left out). */
  statuses: number[];
  /** Methods documented on the operation's path, upper case (the `Allow` header of a 405). */
  pathMethods: string[];
  /**
   * The security scheme the operation requires first (`none` for `security: []`): an operation
   * of `bearerAuth` may also take the session cookie ({@link ContractOperation.sessionCookie});
   * one of `sessionCookie` takes only the cookie (a person's own session, passkeys, password).
   */
  auth: 'bearerAuth' | 'adminAuth' | 'applePass' | 'sessionCookie' | 'none';
  /** Whether a signed-in person's session cookie authenticates it too. */
  sessionCookie: boolean;
  /** Path, query and header parameters, path-level ones included, `$ref`s resolved, `example` set from the first named example. */
  parameters: ParameterObject[];
  /** Whether the operation documents a request body. */
  hasBody: boolean;
  /** The media types its request body may be sent as (`application/json`, `multipart/form-data`). */
  bodyMediaTypes: string[];
  /**
   * For an operation whose body is `multipart/form-data` only: the form field that carries the
   * file (the member `encoding` gives a content type); the example's value for it is the file's text.
   */
  multipartFile?: string;
  /** The first example of the `application/json` request body (undefined without a body). */
  bodyExample: unknown;
  /**
   * The status the operation answers, instead of 400, to a path segment or query value that
   * cannot be stored (its `x-unstorable-path-status`; openapi/README.md), if it has one.
   */
  unstorablePathStatus?: number;
  /** The scopes its `bearerAuth` requirement names (empty for other schemes). */
  scopes: string[];
  /** Whether it changes state: POST, PUT, PATCH or DELETE by an API key, a person or the administrator, not `x-audited: false` (src/http/auditHook.ts). */
  audited: boolean;
  /**
   * Whether its query string is not read (its `x-eov-allow-unknown-query-parameters`, openapi/README.md):
   * an unknown or unstorable query parameter is no 400 there (the health checks, a CORS preflight,
   * whose query is the page's request's).
   */
  ignoresQuery: boolean;
}

type Document = ReturnType<typeof loadApiDocument>;

/** Follows `value`'s local `$ref`s (`#/components/…`) in `document` until it is not a reference. */
export function resolveRef<T>(document: Document, value: unknown): T {
  let current = value as { $ref?: string };
  while (current && typeof current.$ref === 'string') {
    current = current.$ref
      .split('/')
      .slice(1)
      .reduce<unknown>((node, key) => (node as Record<string, unknown>)[key.replace(/~1/g, '/').replace(/~0/g, '~')], document) as { $ref?: string };
  }
  return current as T;
}

function firstExample(document: Document, holder: { example?: unknown; examples?: Record<string, { value?: unknown }> }): unknown {
  if (holder.example !== undefined) return holder.example;
  const first = Object.values(holder.examples ?? {})[0];
  return first && resolveRef<{ value?: unknown }>(document, first).value;
}

/**
 * Lists every operation of a contract (default: generated/openapi.json) in document order.
 * @throws Error when an operation's security names a scheme other than bearerAuth/adminAuth/applePass/
 *   sessionCookie, or more than one but for bearerAuth with sessionCookie — the walkers would not
 *   know how to authenticate.
 */
export function contractOperations(document: Document = loadApiDocument()): ContractOperation[] {
  const all = documentOperations(document);
  const rootSecurity = (document.security ?? []) as Record<string, string[]>[];
  return all.map((op) => {
    const item = document.paths[op.path]! as Record<string, unknown> & { parameters?: unknown[] };
    const operation = item[op.method] as OperationObject;
    const schemes = (operation.security ?? rootSecurity).flatMap((requirement) => Object.keys(requirement));
    const supported = schemes.length <= 1 || (schemes.length === 2 && schemes[0] === 'bearerAuth' && schemes[1] === 'sessionCookie');
    if (!supported || (schemes[0] !== undefined && !['bearerAuth', 'adminAuth', 'applePass', 'sessionCookie'].includes(schemes[0]))) {
      throw new Error(`${op.operationId}: unsupported security ${JSON.stringify(schemes)}; teach test/support/contractOperations.ts`);
    }
    const parameters = [...(item.parameters ?? []), ...(operation.parameters ?? [])].map((p) => {
      const parameter = resolveRef<ParameterObject>(document, p);
      const example = firstExample(document, parameter);
      return { ...parameter, schema: resolveRef<SchemaObject>(document, parameter.schema), ...(example === undefined ? {} : { example }) };
    });
    const content = operation.requestBody ? resolveRef<OperationObject['requestBody']>(document, operation.requestBody)?.content : undefined;
    const form = content?.['application/json']
      ? undefined
      : (content?.['multipart/form-data'] as (MediaTypeObject & { encoding?: Record<string, unknown> }) | undefined);
    const json = content?.['application/json'] ?? form;
    return {
      ...op,
      statuses: Object.keys(operation.responses)
        .filter((status) => /^\d{3}$/.test(status))
        .map(Number)
        .sort((a, b) => a - b),
      pathMethods: all.filter((other) => other.path === op.path).map((other) => other.method.toUpperCase()),
      auth: (schemes[0] as 'bearerAuth' | 'adminAuth' | 'sessionCookie' | undefined) ?? 'none',
      sessionCookie: schemes.includes('sessionCookie'),
      parameters,
      hasBody: operation.requestBody !== undefined,
      bodyMediaTypes: Object.keys(content ?? {}),
      bodyExample: json ? firstExample(document, json) : undefined,
      ...(form?.encoding ? { multipartFile: Object.keys(form.encoding)[0] } : {}),
      ...(operation['x-unstorable-path-status'] === undefined ? {} : { unstorablePathStatus: operation['x-unstorable-path-status'] }),
      scopes: (operation.security ?? rootSecurity).find((requirement) => 'bearerAuth' in requirement)?.bearerAuth ?? [],
      audited:
        ['post', 'put', 'patch', 'delete'].includes(op.method) &&
        (schemes[0] === 'bearerAuth' || schemes[0] === 'adminAuth' || schemes[0] === 'sessionCookie') &&
        operation['x-audited'] !== false,
      ignoresQuery: operation['x-eov-allow-unknown-query-parameters'] === true,
    };
  });
}

/**
 * A value the parameter's schema accepts: a fresh random UUID when the schema takes one (format
 * `uuid`, or a pattern a UUID matches — ids then name nothing, so lookups answer 404), otherwise
 * the parameter's or its schema's first example, or the schema's default.
 * @throws Error when the contract gives no way to pick a value (add an example to the parameter).
 */
export function sampleParameterValue(operationId: string, parameter: ParameterObject): string {
  const uuid = randomUUID();
  const schema = parameter.schema ?? {};
  if (schema.format === 'uuid' || (schema.pattern !== undefined && new RegExp(schema.pattern, 'u').test(uuid))) return uuid;
  const value = parameter.example ?? schema.examples?.[0] ?? schema.default;
  if (value === undefined) throw new Error(`${operationId}: parameter ${parameter.name} has no example, schema example or default`);
  return String(value);
}

/** A request built from the contract: what supertest needs to send it. */
export interface ContractRequest {
  method: DocumentOperation['method'];
  /** Path with every parameter filled in, then required query parameters (and `extraQuery`). */
  url: string;
  /** Required header parameters. */
  headers: Record<string, string>;
  /** The request body example (undefined when the operation has no body). */
  body: unknown;
}

/**
 * Builds a request to `op` that passes the contract's request validation: path parameters and
 * required query and header parameters from {@link sampleParameterValue}, the first request
 * body example. Credentials are not added.
 * @param extraQuery Query parameters appended as they are (e.g. an undocumented one, to provoke a 400).
 * @throws Error when a body operation has no example (the contract's own rule is one per request).
 */
export function validRequest(op: ContractOperation, extraQuery: Record<string, string> = {}): ContractRequest {
  let path = op.path;
  const query = new URLSearchParams();
  const headers: Record<string, string> = {};
  for (const parameter of op.parameters) {
    if (parameter.in === 'path') path = path.replace(`{${parameter.name}}`, encodeURIComponent(sampleParameterValue(op.operationId, parameter)));
    else if (parameter.required && parameter.in === 'query') query.set(parameter.name, sampleParameterValue(op.operationId, parameter));
    else if (parameter.required && parameter.in === 'header') headers[parameter.name] = sampleParameterValue(op.operationId, parameter);
  }
  for (const [name, value] of Object.entries(extraQuery)) query.set(name, value);
  if (op.hasBody && op.bodyExample === undefined) throw new Error(`${op.operationId}: the request body has no example`);
  const search = query.toString();
  if (op.multipartFile) {
    const { [op.multipartFile]: file, ...fields } = op.bodyExample as Record<string, string>;
    const form = multipartForm(fields, { field: op.multipartFile, content: Buffer.from(file ?? '') });
    return { method: op.method, url: search ? `${path}?${search}` : path, headers: { ...headers, 'Content-Type': form.contentType }, body: form.body };
  }
  return { method: op.method, url: search ? `${path}?${search}` : path, headers, body: op.bodyExample };
}

/**
 * A `multipart/form-data` body (RFC 7578) with text fields and one CSV file part, as bytes, and
 * its `Content-Type` header (with the boundary).
 */
export function multipartForm(fields: Record<string, string>, file: { field: string; content: Buffer }): { contentType: string; body: Buffer } {
  const boundary = `----contract-${randomUUID()}`;
  const parts = Object.entries(fields).map(([name, value]) => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`);
  const head = `--${boundary}\r\nContent-Disposition: form-data; name="${file.field}"; filename="${file.field}.csv"\r\nContent-Type: text/csv\r\n\r\n`;
  return {
    contentType: `multipart/form-data; boundary=${boundary}`,
    body: Buffer.concat([Buffer.from(parts.join('') + head), file.content, Buffer.from(`\r\n--${boundary}--\r\n`)]),
  };
}

/**
 * An `Authorization` header of the `ApplePass` form that no pass has: it passes the form check
 * (so validation errors can be provoked) and is refused with 401 by the operation.
 */
export const UNKNOWN_APPLE_PASS_AUTHORIZATION = { Authorization: `ApplePass ${'t'.repeat(32)}` };
