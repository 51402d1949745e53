/**
 * Builds the Express application from injected dependencies. It reads no environment and opens
 * nothing: `src/server.ts` does that, and tests build the app directly.
 *
 * Middleware order: the request's span when tracing is on (src/http/requestTracing.ts) → security headers → request id and request log (query values of
 * secret-looking parameters redacted) → docs, document and console → authentication of the operations
 * the contract secures (an Apple web-service path parameter holding a `/` kept as one value first), before any body is read (failed attempts throttled per address) → JSON
 * body of the operations that take one (size-limited) → refusal of text the database cannot
 * store → contract validation (multipart files streamed to temporary files, src/http/csvUpload.ts) (its security handlers confirm the authentication) → rate limit →
 * one handler per operationId → the error handler.
 *
 * @module app
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import express, { type Express, type Request, type RequestHandler } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import type { Config } from './config.ts';
import type { Logger } from './logger.ts';
import type { Runtime } from './deps.ts';
import type { RequestContext } from './http/operation.ts';
import { requestLogging } from './http/requestLog.ts';
import { traceRequests } from './http/requestTracing.ts';
import { tracingEnabled } from './telemetry/tracing.ts';
import { errorHandler } from './http/errorHandler.ts';
import { authenticatedWith, authenticateFirst, schemeOf } from './http/authenticate.ts';
import { publishableRequests } from './http/publishableKeys.ts';
import { authorize } from './http/authorize.ts';
import { auditFailures, auditHook } from './http/auditHook.ts';
import { securityHeaders } from './http/securityHeaders.ts';
import { operationHandlers, pathMatcher, type OpenApiDocument } from './http/routes.ts';
import { rateLimit } from './http/rateLimit.ts';
import { refuseDeepJson } from './http/jsonDepth.ts';
import { refuseUnstorableInput } from './http/storableInput.ts';
import { loadServedContract } from './http/servedContract.ts';
import { warmUpValidators, type WarmUpReport } from './http/validatorWarmUp.ts';
import { removeUploads, uploadOptions } from './http/csvUpload.ts';
import { handlers } from './operations.ts';
import { packageRoot } from './packageRoot.ts';
import { consoleRouter } from './http/console.ts';
import { opaquePathParameters } from './http/opaquePathParameters.ts';
import { dispatchInProcess, type InProcessRequest, type InProcessResponse } from './http/inProcessRequests.ts';

const generatedDir = resolve(packageRoot, 'generated');

/** The bundled contract (`generated/openapi.json`), parsed. */
export function loadApiDocument(): OpenApiDocument {
  return JSON.parse(readFileSync(resolve(generatedDir, 'openapi.json'), 'utf8')) as OpenApiDocument;
}

/** What the app is built from. */
export interface AppDependencies {
  /** Configuration, logger, database, job queue (started: requests enqueue), secrets, clock. */
  runtime: Runtime;
  /** The administration token; undefined disables `/admin/v1`. */
  adminToken: string | undefined;
  /** Defaults to `generated/openapi.json`. */
  apiDocument?: OpenApiDocument;
  /**
   * Middlewares left out, for `npm run bench -- passesAndLoyalty` only (never set by the server
   * or the configuration): the scope check (src/http/authorize.ts) and the audit log
   * (src/http/auditHook.ts), so that their cost is measured against the same service without
   * them, back to back.
   */
  without?: { authorization?: boolean; audit?: boolean };
}

/**
 * CSP for the Redoc page, whose inline bundle needs inline scripts, styles and blob workers.
 * Images only from this server or data: URLs, so the page contacts no third party (Redoc 3
 * otherwise loads its badge logo from cdn.redoc.ly on every visit).
 */
const DOCS_CSP =
  "default-src 'self'; script-src 'self' 'unsafe-inline' blob:; style-src 'self' 'unsafe-inline'; " +
  "img-src 'self' data:; font-src 'self' data:; worker-src 'self' blob:; connect-src 'self'";

/** A `Host` header value that can stand in a link: a name or address and an optional port. */
const PLAIN_HOST = /^(?:[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

/**
 * The base of absolute links: `PUBLIC_BASE_URL`, which a production set-up must give
 * (src/config.ts `requirePublicBaseUrl`); on the embedded default, for local use, the request's
 * protocol and `Host` when it is a plain host name, else the address the server listens on.
 */
function baseUrlOf(req: Request, config: Config): string {
  if (config.publicBaseUrl) return config.publicBaseUrl;
  const host = req.get('host');
  return `${req.protocol}://${host && PLAIN_HOST.test(host) ? host : `${config.host}:${config.port}`}`;
}

/** The fields {@link Context}'s constructor copies. */
// biome-ignore lint/correctness/noUnusedVariables: merges with the class below, declaring the fields its constructor copies (Object.assign)
interface Context extends Omit<RequestContext, 'log' | 'dispatch' | 'clientAddress'> {}

/**
 * A request's context (src/http/operation.ts). Its `log` is the request's logger, made on first
 * use (src/http/requestLog.ts): most requests log nothing. It is a getter of the class, not of an
 * object literal, whose getter would be a new closure over the request every time: V8 keeps such
 * a getter's accessor pair in old space, and the request with it, through every young-generation
 * GC until the next full one (src/http/requestLog.ts has the measurement). Bench: `npm run bench --
 * passesAndLoyalty` (GET and PATCH µs of CPU per request, promoted bytes per scavenge with
 * `BENCH_SERVICE_NODE_ARGS=--trace-gc-nvp`; the figures with src/http/listener.ts `serveApp`).
 */
// biome-ignore lint/suspicious/noUnsafeDeclarationMerging: see the interface above
class Context {
  readonly #req: Request;
  readonly #app: Express;

  constructor(req: Request, app: Express, fields: Omit<RequestContext, 'log' | 'dispatch' | 'clientAddress'>) {
    Object.assign(this, fields);
    this.#req = req;
    this.#app = app;
  }

  get log(): Logger {
    return this.#req.log;
  }

  get clientAddress(): string {
    return this.#req.ip ?? this.#req.socket.remoteAddress ?? '';
  }

  dispatch(request: InProcessRequest): Promise<InProcessResponse> {
    return dispatchInProcess(this.#app, this.#req, request);
  }
}

/** The contract and validator middleware of each app built here, for {@link warmUpApp}. */
const validatorsOf = new WeakMap<Express, { document: OpenApiDocument; validators: RequestHandler[] }>();

/**
 * Compiles the request validators of every operation of an app built by {@link createApp}
 * (src/http/validatorWarmUp.ts), so that no client's first request pays for it.
 * @returns What the warm-up did (src/http/validatorWarmUp.ts).
 */
export function warmUpApp(app: Express): Promise<WarmUpReport> {
  const { document, validators } = validatorsOf.get(app)!;
  return warmUpValidators(document, validators);
}

/** Middleware: the request's context (src/http/operation.ts) from the runtime, as `req.ctx`. */
function requestContext(runtime: Runtime, app: Express): RequestHandler {
  const { db, config, clock } = runtime;
  return (req, _res, next) => {
    req.ctx = new Context(req, app, {
      db,
      config,
      clock,
      secrets: runtime.secrets,
      jobs: runtime.jobs,
      apiTokens: runtime.apiTokens,
      metrics: runtime.metrics,
      googleCallbackKeys: runtime.googleCallbackKeys,
      resolveHost: runtime.resolveHost,
      baseUrl: baseUrlOf(req, config),
      accountId: null,
      principal: null,
      requestId: String(req.id),
    });
    next();
  };
}

/**
 * Middleware that reads request bodies. Bodies are read only for operations that take one, so a
 * body sent to any other operation is ignored rather than answered with a 413 or 400 the contract
 * does not document for it; an operation's `x-body-limit-bytes` lowers the limit for it (Google
 * Wallet callbacks). Then, before anything walks a body recursively, too deep JSON is refused
 * (src/http/jsonDepth.ts) and so is input that cannot be stored (src/http/storableInput.ts).
 */
function bodyReading(document: OpenApiDocument, contractPath: ReturnType<typeof pathMatcher>, config: Config): RequestHandler[] {
  const jsonParsers = new Map<number, RequestHandler>();
  const parseJson = (limit: number) => {
    if (!jsonParsers.has(limit)) jsonParsers.set(limit, express.json({ limit, type: ['application/json', 'application/*+json'] }));
    return jsonParsers.get(limit)!;
  };
  const readJson: RequestHandler = (req, res, next) => {
    const hasBody = req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
    const operation = hasBody ? contractPath(req.path)?.operation(req.method)?.operation : undefined;
    if (operation?.requestBody) {
      const own = operation['x-body-limit-bytes'];
      parseJson(typeof own === 'number' ? Math.min(own, config.bodyLimitBytes) : config.bodyLimitBytes)(req, res, next);
    } else next();
  };
  return [
    readJson,
    refuseDeepJson(),
    refuseUnstorableInput(
      (req) => contractPath(req.path)?.operation(req.method)?.operation['x-eov-allow-unknown-query-parameters'] === true,
      (req) => {
        // The contract's `x-unstorable-path-status` (openapi/README.md): how a protocol that has
        // no 400 for names answers one that cannot be stored.
        const operation = contractPath(req.path)?.operation(req.method)?.operation;
        const status = operation?.['x-unstorable-path-status'];
        if (typeof status !== 'number') return undefined;
        return { status, scheme: schemeOf(document, operation!) === 'applePass' ? 'ApplePass' : 'Bearer' };
      },
    ),
  ];
}

/**
 * The request (and, with `VALIDATE_RESPONSES`, response) validators of the contract
 * (express-openapi-validator). The library is patched (patches/, applied by patch-package at
 * install, until https://github.com/cdimascio/express-openapi-validator/pull/1217 is released): its
 * route table is compiled once, not every route's matcher on every request. Bench: `npm run bench
 * -- passesAndLoyalty` (GET and PATCH µs of CPU per request): with the request logger made on
 * first use (src/http/requestLog.ts), a pass read went from ≈ 455–480 to ≈ 417–437 µs of CPU.
 */
function contractValidators(document: OpenApiDocument, config: Config): RequestHandler[] {
  return OpenApiValidator.middleware({
    apiSpec: structuredClone(document) as never,
    // multer's disk storage, not its default memory storage: a 10 MB CSV never sits in memory.
    fileUploader: uploadOptions,
    validateRequests: { allowUnknownQueryParameters: false },
    // The path as routed (req.url), which opaquePathParameters may have re-encoded.
    useRequestUrl: true,
    validateResponses: config.validateResponses,
    validateFormats: true,
    // 'full' checks dates for real (no 2026-02-30), not only their shape (ajv-formats modes).
    ajvFormats: { mode: 'full' },
    validateSecurity: {
      // authenticateFirst did the work before the body was read; these confirm it.
      handlers: {
        bearerAuth: async (req) => authenticatedWith(req as unknown as Request, 'bearerAuth'),
        adminAuth: async (req) => authenticatedWith(req as unknown as Request, 'adminAuth'),
        applePass: async (req) => authenticatedWith(req as unknown as Request, 'applePass'),
        sessionCookie: async (req) => authenticatedWith(req as unknown as Request, 'sessionCookie'),
      },
    },
  });
}

/**
 * Builds the app.
 * @throws Error when the contract and the handlers differ (an operation without handler or the reverse).
 */
export function createApp(deps: AppDependencies): Express {
  const { runtime } = deps;
  const { db, config, logger, clock } = runtime;
  const document = deps.apiDocument ?? loadApiDocument();
  const app = express();
  app.disable('x-powered-by');
  app.set('query parser', 'simple');
  // No automatic ETag (and so no automatic 304 to If-None-Match): a conditional answer is only
  // where the contract documents one (the previews, a pass's .pkpass), whose handlers set the
  // ETag themselves; elsewhere a 304 would be a status the contract does not list.
  app.set('etag', false);
  // Whose X-Forwarded-For names the client (rate limits per address); none unless TRUST_PROXY says.
  app.set('trust proxy', config.trustProxy);

  const contractPath = pathMatcher(document);
  // With tracing on, a span per request, active for all it does (src/http/requestTracing.ts).
  if (tracingEnabled()) app.use(traceRequests(contractPath));
  app.use(securityHeaders());
  app.use(
    requestLogging(logger, {
      ignore: (req) => ['/healthz', '/readyz'].includes((req.url ?? '').split('?')[0]!),
      // Timed from the request's first middleware to the last byte, by the operation the
      // validator matched (src/metrics.ts).
      finished: (req, res, seconds) => {
        const operation = (req as { openapi?: { schema?: { operationId?: string } } }).openapi?.schema?.operationId ?? 'unknown';
        runtime.metrics.requestDuration.observe({ operation, status: res.statusCode }, seconds);
      },
    }),
  );
  app.use(requestContext(runtime, app));

  // The contract names the server that serves it (src/http/servedContract.ts).
  const served = loadServedContract(generatedDir);
  app.get('/openapi.json', (req, res) => res.type('application/json').send(served.json(req.ctx.baseUrl)));
  app.get('/openapi.yaml', (req, res) => res.type('application/yaml').send(served.yaml(req.ctx.baseUrl)));
  app.get('/docs', (_req, res) => {
    res.setHeader('Content-Security-Policy', DOCS_CSP);
    res.sendFile(resolve(generatedDir, 'docs.html'));
  });
  app.get('/', (_req, res) => res.redirect(302, '/docs'));
  // The operator console: static files, a client of the API like any other (src/http/console.ts).
  app.use(consoleRouter());

  // A `/` inside an Apple web-service path parameter is part of the value (src/http/opaquePathParameters.ts).
  app.use(opaquePathParameters(document, contractPath));
  app.use(
    authenticateFirst({
      document,
      match: contractPath,
      db,
      clock,
      adminToken: deps.adminToken,
      failuresPerMinute: config.authFailuresPerMinute,
      apiTokens: runtime.apiTokens,
      config,
    }),
  );
  // What the key may do, from the matched operation's security requirement (src/http/authorize.ts).
  // Every state-changing request leaves one audit event (src/http/auditHook.ts).
  if (!deps.without?.audit) app.use(auditHook(document, contractPath));
  // Publishable keys in web pages: CORS for their origins and a rate limit per origin and address
  // (src/http/publishableKeys.ts; their preflight is the operation preflightCreatePass).
  app.use(publishableRequests({ db, perMinute: config.publishableRateLimitPerMinute }));
  if (!deps.without?.authorization) app.use(authorize(document, contractPath));
  app.use(...bodyReading(document, contractPath, config));
  // Uploaded files are streamed to temporary files (src/http/csvUpload.ts), removed when the response ends.
  app.use(removeUploads);
  const validators = contractValidators(document, config);
  app.use(validators);
  validatorsOf.set(app, { document, validators });
  app.use(rateLimit(config.rateLimitPerSecond, db));

  app.use(operationHandlers(document, handlers));
  app.use(auditFailures());
  const handleError = errorHandler((path) => contractPath(path)?.methods);
  app.use(handleError);
  // With VALIDATE_RESPONSES, an error document that breaks the contract is reported by the
  // validator through its own `next(err)`, which resumes the stack after the handler above: the
  // second one answers it with the generic 500 (express-openapi-validator, response validation).
  app.use(handleError);
  return app;
}
