/**
 * Compiles the request validators of every operation before the first client arrives.
 *
 * express-openapi-validator compiles an operation's parameter and body schemas (Ajv) on the first
 * request that reaches it, per method, path and content type, and keeps them; until then the
 * first request of each operation pays for it (measured: 5–60 ms per operation on this
 * contract). The library has no option to compile eagerly
 * (https://github.com/cdimascio/express-openapi-validator/issues/514), so the server sends one
 * request per operation (and request content type) through the *same* validator middleware,
 * mounted in a separate app that only a loopback port opened for the warm-up reaches: its
 * requests skip authentication (the validator's security handlers accept them), and whatever the
 * validator answers, nothing after it runs — no handler, no database.
 *
 * @module http/validatorWarmUp
 */
import { SECURE_SESSION_COOKIE } from '../security/sessions.ts';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import type { OpenApiDocument } from './routes.ts';

/** What a warm-up did. */
export interface WarmUpReport {
  requests: number;
  /** Requests refused by the validator's security check (their schemas were not compiled). */
  refused: number;
  ms: number;
}

/** Requests of a warm-up (never a client's: the warm-up app is not the served app). */
const warmUpRequests = new WeakSet<object>();

/** Whether `req` is a warm-up request (the validator's security handlers accept it). */
export function isWarmUpRequest(req: object): boolean {
  return warmUpRequests.has(req);
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

/** One request per operation and request content type: method, path with placeholder parameters, content type. */
function warmUpRequestsOf(document: OpenApiDocument): { method: string; path: string; contentType: string | undefined }[] {
  const requests = [];
  for (const [template, item] of Object.entries(document.paths ?? {})) {
    const path = template.replace(/\{[^}]+\}/g, 'x');
    for (const method of METHODS) {
      const operation = (item as Record<string, { requestBody?: { content?: Record<string, unknown> } } | undefined>)[method];
      if (!operation) continue;
      const contentTypes = Object.keys(operation.requestBody?.content ?? {});
      if (!contentTypes.length) requests.push({ method: method.toUpperCase(), path, contentType: undefined });
      for (const contentType of contentTypes) requests.push({ method: method.toUpperCase(), path, contentType });
    }
  }
  return requests;
}

/**
 * Sends every operation's warm-up request through `validators`.
 * @param validators The served app's express-openapi-validator middleware (the same instances).
 * @returns How many requests were sent, how many of them the validator's security check stopped
 *   before their schemas were compiled (0 unless the schemes change), and how long it took, in ms.
 */
export async function warmUpValidators(document: OpenApiDocument, validators: RequestHandler[]): Promise<WarmUpReport> {
  const started = performance.now();
  const app = express();
  app.use((req, _res, next) => {
    warmUpRequests.add(req);
    // The session cookie the validator looks for in req.cookies (the `sessionCookie` scheme).
    req.cookies = { [SECURE_SESSION_COOKIE]: 'warm-up' };
    next();
  });
  app.use(express.json());
  app.use(validators);
  app.use((_req: Request, res: Response) => res.status(204).end());
  // A validation error is expected (placeholder parameters, empty bodies): the schemas were
  // compiled to find it. A security error means they were not.
  app.use((error: { status?: number }, _req: Request, res: Response, _next: NextFunction) =>
    res.status(error.status === 401 || error.status === 403 ? 401 : 204).end(),
  );
  const server = createServer(app);
  // Exclusive: in a cluster's server process a shared port would be handed to any process's
  // warm-up server (https://nodejs.org/docs/latest-v20.x/api/net.html#serverlistenoptions-callback).
  await new Promise<void>((resolve) => server.listen({ port: 0, host: '127.0.0.1', exclusive: true }, resolve));
  const { port } = server.address() as AddressInfo;
  const requests = warmUpRequestsOf(document);
  let refused = 0;
  try {
    for (const { method, path, contentType } of requests) {
      const json = contentType?.includes('json');
      const res = await fetch(`http://127.0.0.1:${port}${path}`, {
        method,
        // The validator wants the schemes' header before it asks the security handlers.
        headers: { Authorization: 'Bearer warm-up', ...(contentType ? { 'Content-Type': contentType } : {}) },
        ...(contentType && method !== 'GET' && method !== 'HEAD' ? { body: json ? '{}' : '' } : {}),
      });
      await res.arrayBuffer();
      if (res.status === 401) refused++;
    }
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
  return { requests: requests.length, refused, ms: Math.round(performance.now() - started) };
}
