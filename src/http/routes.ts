/**
 * Routing from the contract: every operation of the bundled OpenAPI document is mounted with the
 * handler of the same operationId. A document operation without a handler, or a handler without
 * an operation, stops the app from being built.
 *
 * @module http/routes
 */
import type { Request, Response, Router } from 'express';
import type { HandlerMap, OperationId, OperationInput } from './operation.ts';

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
 * router does (a parameter is one non-empty segment; a trailing slash is tolerated). Where
 * templates overlap (`/scans/log` and `/scans/{id}`), the template with fewer parameters is the
 * more specific one and serves its methods first.
 * @returns A function giving what a path has, or undefined when no template matches.
 */
export function pathMatcher(document: OpenApiDocument): (path: string) => PathMatch | undefined {
  const templates = Object.entries(document.paths)
    .map(([path, item]) => ({
      path,
      pattern: new RegExp(`^${expressPath(path).replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/:[^/]+/g, '[^/]+')}/?$`),
      parameters: (path.match(/\{/g) ?? []).length,
      operations: new Map(METHODS.filter((m) => item[m]).map((m) => [m.toUpperCase(), item[m] as Record<string, unknown>])),
    }))
    .sort((a, b) => a.parameters - b.parameters);
  return (requestPath) => {
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

/**
 * Mounts one route per operation on `router`.
 * @throws Error listing every mismatch between the document and the handlers.
 */
export function mountOperations(router: Router, document: OpenApiDocument, handlers: HandlerMap): void {
  const { missingHandlers, unknownHandlers } = handlerCoverage(document, handlers);
  if (missingHandlers.length || unknownHandlers.length) {
    throw new Error(
      `Handlers and contract differ. Without handler: ${missingHandlers.join(', ') || 'none'}. ` +
        `Without operation: ${unknownHandlers.join(', ') || 'none'}.`,
    );
  }
  for (const { operationId, method, path } of documentOperations(document)) {
    const handler = handlers[operationId as OperationId] as (input: OperationInput<OperationId>) => Promise<{
      status: number;
      body: unknown;
      headers?: Record<string, string>;
    }>;
    router[method](expressPath(path), async (req: Request, res: Response) => {
      const result = await handler({
        params: req.params as never,
        query: req.query as never,
        body: req.body as never,
        headers: req.headers,
        url: req.originalUrl,
        ctx: req.ctx,
      });
      if (result.headers) res.set(result.headers);
      if (result.body === undefined) res.status(result.status).end();
      // A string body is a non-JSON representation (text/csv); its handler sets Content-Type.
      else if (typeof result.body === 'string') res.status(result.status).send(result.body);
      else res.status(result.status).json(result.body);
    });
  }
}
