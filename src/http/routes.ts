/**
 * Routing from the contract: every operation of the bundled OpenAPI document is mounted with the
 * handler of the same operationId. A document operation without a handler, or a handler without
 * an operation, stops the app from being built.
 *
 * @module http/routes
 */
import type { Request, RequestHandler, Response } from 'express';
import { LRUCache } from 'lru-cache';
import { runSqlWrite, runWrite } from '../db/database.ts';
import { idempotencyKeyOf, REPLAYED_HEADER, runIdempotent } from './idempotency.ts';
import { auditedScopes, auditedScopesIn, auditRecordOf, committedWith, finishAudit } from './auditHook.ts';
import { uploadsOf } from './csvUpload.ts';
import { accountOf, type HandlerMap, type OperationId, type OperationInput, type SqlWriteScope, type WriteScope } from './operation.ts';

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;
type Method = (typeof METHODS)[number];

/** The parts of an OpenAPI document routing needs. */
export interface OpenApiDocument {
  paths: Record<string, Partial<Record<Method, { operationId?: string }>> & Record<string, unknown>>;
  [key: string]: unknown;
}

/** One operation of the document. */
export interface DocumentOperation {
  operationId: string;
  method: Method;
  path: string;
}

/** Lists every operation of the document. */
export function documentOperations(document: OpenApiDocument): DocumentOperation[] {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    METHODS.flatMap((method) => {
      const operationId = item[method]?.operationId;
      return operationId ? [{ operationId, method, path }] : [];
    }),
  );
}

/** `/api/v1/entities/{id}` → `/api/v1/entities/:id`. */
export function expressPath(openApiPath: string): string {
  return openApiPath.replace(/\{([^}]+)\}/g, ':$1');
}

/** What the contract has for one request path. */
export interface PathMatch {
  /** The most specific matching path template, e.g. `/api/v1/scans/log`. */
  path: string;
  /** The upper-case methods of that template (for `Allow`). */
  methods: string[];
  /** The operation that serves `method` (upper-case) on this path and its template, if any. */
  operation(method: string): { path: string; operation: Record<string, unknown> & { operationId?: string } } | undefined;
}

/**
 * Matches request paths (without query) against the document's path templates, the way the
 * validator does (a parameter is one non-empty segment; a trailing slash is tolerated). Where
 * templates overlap (`/scans/log` and `/scans/{id}`), the template with fewer parameters is the
 * more specific one and serves its methods first.
 * @returns A function giving what a path has, or undefined when no template matches.
 */
export function pathMatcher(document: OpenApiDocument): (path: string) => PathMatch | undefined {
  const templates: PathTemplate[] = Object.entries(document.paths)
    .map(([path, item]) => ({
      path,
      pattern: new RegExp(
        `^${expressPath(path)
          .replace(/[.*+?^$()|[\]\\]/g, '\\$&')
          .replace(/:[^/]+/g, '[^/]+')}/?$`,
      ),
      parameters: (path.match(/\{/g) ?? []).length,
      operations: new Map(METHODS.filter((m) => item[m]).map((m) => [m.toUpperCase(), item[m] as Record<string, unknown>])),
    }))
    .sort((a, b) => a.parameters - b.parameters);
  // Several middlewares ask about the same request path; a bounded cache answers all but the first.
  const recent = new LRUCache<string, { match: PathMatch | undefined }>({ max: 1_000 });
  return (requestPath) => {
    const known = recent.get(requestPath);
    if (known) return known.match;
    const match = matchTemplates(templates, requestPath);
    recent.set(requestPath, { match });
    return match;
  };
}

/** A path template of the document, compiled by {@link pathMatcher}. */
interface PathTemplate {
  path: string;
  pattern: RegExp;
  parameters: number;
  operations: Map<string, Record<string, unknown>>;
}

/** {@link pathMatcher}'s work for one path, uncached. */
function matchTemplates(templates: PathTemplate[], requestPath: string): PathMatch | undefined {
  const matching = templates.filter((t) => t.pattern.test(requestPath));
  const [specific] = matching;
  if (!specific) return undefined;
  return {
    path: specific.path,
    methods: [...specific.operations.keys()],
    operation: (method) => {
      const serving = matching.find((t) => t.operations.has(method));
      return serving && { path: serving.path, operation: serving.operations.get(method)! };
    },
  };
}

/**
 * Compares the document's operations with the handler map.
 * @returns Operations without handlers and handlers without operations (both empty when in step).
 */
export function handlerCoverage(document: OpenApiDocument, handlers: Partial<HandlerMap>) {
  const documented = new Set(documentOperations(document).map((o) => o.operationId));
  const implemented = new Set(Object.keys(handlers));
  return {
    missingHandlers: [...documented].filter((id) => !implemented.has(id)),
    unknownHandlers: [...implemented].filter((id) => !documented.has(id)),
  };
}

/** The header name of the contract's `IdempotencyKey` parameter. */
const IDEMPOTENCY_HEADER = 'idempotency-key';

/** A parameter object, or a local `$ref` to one in `components.parameters`, resolved. */
function resolveParameter(document: OpenApiDocument, parameter: unknown): { name?: string; in?: string } {
  const ref = (parameter as { $ref?: string }).$ref;
  if (!ref) return parameter as { name?: string; in?: string };
  const name = ref.replace('#/components/parameters/', '');
  const components = document.components as { parameters?: Record<string, unknown> } | undefined;
  return resolveParameter(document, components?.parameters?.[name] ?? {});
}

/**
 * Whether an operation declares the `Idempotency-Key` request header (on the operation or its
 * path): requests with the header then run once per key (src/http/idempotency.ts).
 */
export function takesIdempotencyKey(document: OpenApiDocument, path: string, method: Method): boolean {
  const item = document.paths[path] as { parameters?: unknown[] } & Partial<Record<Method, { parameters?: unknown[] }>>;
  const parameters = [...(item.parameters ?? []), ...(item[method]?.parameters ?? [])];
  return parameters.some((p) => {
    const resolved = resolveParameter(document, p);
    return resolved.in === 'header' && resolved.name?.toLowerCase() === IDEMPOTENCY_HEADER;
  });
}

/** A header object, or a local `$ref` to one in `components.headers`, resolved. */
function resolveHeader(document: OpenApiDocument, header: unknown): { schema?: { const?: unknown } } {
  const ref = (header as { $ref?: string }).$ref;
  if (!ref) return header as { schema?: { const?: unknown } };
  const components = document.components as { headers?: Record<string, unknown> } | undefined;
  return resolveHeader(document, components?.headers?.[ref.replace('#/components/headers/', '')] ?? {});
}

/**
 * The statuses of an operation whose responses declare `Cache-Control: no-store` (a header whose
 * schema is `const: no-store`, such as `CacheControlNoStore`): the contract's way of saying that
 * the response carries a secret (a new API key, reader configuration secrets), which the router
 * sends with `Cache-Control: no-store` (RFC 9111 §5.2.2.5). A response that declares another
 * `Cache-Control` (immutable images, the favicon) keeps the one its handler sets.
 */
export function noStoreStatuses(document: OpenApiDocument, path: string, method: Method): Set<number> {
  const operation = document.paths[path]?.[method] as { responses?: Record<string, { headers?: Record<string, unknown> }> } | undefined;
  return new Set(
    Object.entries(operation?.responses ?? {})
      .filter(([, response]) =>
        Object.entries(response.headers ?? {}).some(
          ([name, header]) => name.toLowerCase() === 'cache-control' && resolveHeader(document, header).schema?.const === 'no-store',
        ),
      )
      .map(([status]) => Number(status)),
  );
}

/**
 * Drops a request's conditions (`If-None-Match`, `If-Modified-Since`) for an operation that
 * documents no 304: only such an operation answers conditionally (its handler decides), and
 * Express's own check (`req.fresh` in `res.send`, which takes `If-None-Match: *` as matching any
 * answer, RFC 9110 section 13.1.2) must not turn a 200 into an undocumented 304.
 */
function unconditional(req: Request): void {
  delete req.headers['if-none-match'];
  delete req.headers['if-modified-since'];
}

/**
 * The middleware that runs the handler of each operation, chosen by the operationId the
 * validator matched (`req.openapi`), with the path parameters it parsed: one lookup instead of
 * a router walking a route per operation (the request hot path). Handlers of operations that
 * declare the `Idempotency-Key` header get, for a request that sends one, the key's transaction
 * as their `write` (the whole handler runs inside it); every other request gets `db.write`.
 * Responses whose contract declares `Cache-Control` are sent with `Cache-Control: no-store`
 * ({@link noStoreStatuses}); only operations that document `304` answer conditional requests
 * with it. A request the validator matched to no operation goes on to the next middleware.
 * @throws Error listing every mismatch between the document and the handlers.
 */
export function operationHandlers(document: OpenApiDocument, handlers: HandlerMap): RequestHandler {
  const { missingHandlers, unknownHandlers } = handlerCoverage(document, handlers);
  if (missingHandlers.length || unknownHandlers.length) {
    throw new Error(
      `Handlers and contract differ. Without handler: ${missingHandlers.join(', ') || 'none'}. ` +
        `Without operation: ${unknownHandlers.join(', ') || 'none'}.`,
    );
  }
  const byOperation = new Map<string, (req: Request, res: Response) => Promise<void>>();
  for (const { operationId, method, path } of documentOperations(document)) {
    const handler = handlers[operationId as OperationId] as (input: OperationInput<OperationId>) => Promise<{
      status: number;
      body: unknown;
      headers?: Record<string, string>;
    }>;
    const idempotent = takesIdempotencyKey(document, path, method);
    const noStore = noStoreStatuses(document, path, method);
    const conditional = '304' in ((document.paths[path]?.[method] as { responses?: object } | undefined)?.responses ?? {});
    byOperation.set(operationId, async (req: Request, res: Response) => {
      const { ctx } = req;
      if (!conditional) unconditional(req);
      // One object literal, not a spread of a common part plus `write` and `writeSql`: V8 (Node
      // 20) puts the copy a spread makes on a map outside the transition tree, so the properties
      // added after it made new maps on every request. Bench: `npm run bench -- passesAndLoyalty`
      // (GET and PATCH µs of CPU per request; the figures with src/http/listener.ts `serveApp`).
      const input = (write: WriteScope, writeSql: SqlWriteScope) => ({
        params: (req as ValidatedRequest).openapi.pathParams as never,
        query: req.query as never,
        body: req.body as never,
        headers: req.headers,
        uploads: uploadsOf(req),
        url: req.originalUrl,
        acceptsLanguages: (languages: string[]) => req.acceptsLanguages(languages),
        ctx,
        write,
        writeSql,
      });
      // A multipart upload is not replayed by its key: the key's fingerprint would miss the file.
      const key = idempotent && !req.is('multipart/form-data') ? idempotencyKeyOf(req.headers) : undefined;
      // An atomic write is one autocommit statement: retried on contention as transactions are.
      // An audited request's event is appended in its first write transaction (src/http/auditHook.ts).
      const audit = auditRecordOf(req);
      const result =
        key === undefined
          ? await handler(
              audit
                ? input(...auditedScopes(audit))
                : input(
                    (work, options) => runWrite(ctx.db, work, options),
                    (work, options) => runSqlWrite(ctx.db, work, options),
                  ),
            )
          : await runIdempotent(
              ctx.db,
              { key, accountId: accountOf(ctx), operationId: operationId as OperationId, url: req.originalUrl, body: req.body },
              ctx.clock.now(),
              (tx) =>
                handler(
                  audit
                    ? input(...auditedScopesIn(audit, tx))
                    : input(
                        (work) => work(tx),
                        (work) => work(tx),
                      ),
                ),
            ).then(committedWith(audit));
      // A replay of an Idempotency-Key ran nothing: the request that ran left the event.
      if (audit && result.headers?.[REPLAYED_HEADER] !== 'true') await finishAudit(audit, result.body);
      if (result.headers) res.set(result.headers);
      if (noStore.has(result.status)) res.set('Cache-Control', 'no-store');
      if (result.body === undefined) res.status(result.status).end();
      // A string or bytes body is a non-JSON representation (CSV, HTML, a pass file); its
      // handler sets Content-Type.
      else if (typeof result.body === 'string') res.status(result.status).send(result.body);
      else if (result.body instanceof Uint8Array)
        res.status(result.status).send(Buffer.from(result.body.buffer, result.body.byteOffset, result.body.byteLength));
      else res.status(result.status).json(result.body);
    });
  }
  return (req, res, next) => {
    const run = byOperation.get((req as Partial<ValidatedRequest>).openapi?.schema.operationId ?? '');
    if (run) return run(req, res);
    next();
  };
}

/** What express-openapi-validator adds to a request it matched to an operation. */
interface ValidatedRequest extends Request {
  openapi: { schema: { operationId?: string }; pathParams: Record<string, string> };
}
