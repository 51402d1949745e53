/**
 * Builds the Express application from injected dependencies. It reads no environment and opens
 * nothing: `src/server.ts` does that, and tests build the app directly.
 *
 * Middleware order: security headers → request id and request log → docs and document →
 * JSON body of the operations that take one (size-limited) → contract validation (authentication
 * runs inside it, before input validation, through the contract's security schemes) → rate
 * limit → one handler per operationId → the error handler.
 *
 * @module app
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import express, { type Express, type Request } from 'express';
import helmet from 'helmet';
import { pinoHttp } from 'pino-http';
import * as OpenApiValidator from 'express-openapi-validator';
import type { Config } from './config.ts';
import type { Database } from './db/database.ts';
import type { Logger } from './logger.ts';
import type { JobQueue } from './jobs/queue.ts';
import type { Clock } from './http/operation.ts';
import { requestIdOf } from './http/requestId.ts';
import { AUTH_ERROR, errorHandler } from './http/errorHandler.ts';
import { mountOperations, pathMatcher, type OpenApiDocument } from './http/routes.ts';
import { rateLimit } from './http/rateLimit.ts';
import { authenticateApiToken, bearerCredential } from './security/apiTokens.ts';
import { verifyAdminToken } from './security/adminToken.ts';
import { SecretCipher } from './security/secrets.ts';
import { handlers } from './operations.ts';

const generatedDir = resolve(fileURLToPath(import.meta.url), '../../generated');

/** The bundled contract (`generated/openapi.json`), parsed. */
export function loadApiDocument(): OpenApiDocument {
  return JSON.parse(readFileSync(resolve(generatedDir, 'openapi.json'), 'utf8')) as OpenApiDocument;
}

/** What the app is built from. */
export interface AppDependencies {
  db: Database;
  config: Config;
  logger: Logger;
  /** Defaults to the system clock. */
  clock?: Clock;
  /** The administration token; undefined disables `/admin/v1`. */
  adminToken: string | undefined;
  /** The 32-byte key of secrets at rest (see `resolveSecretsKey`). */
  secretsKey: Buffer;
  /** The started job queue requests enqueue into (src/jobs/queue.ts). */
  jobs: JobQueue;
  /** Defaults to `generated/openapi.json`. */
  apiDocument?: OpenApiDocument;
}

const systemClock: Clock = { now: () => new Date() };

/**
 * CSP for the Redoc page, whose inline bundle needs inline scripts, styles and blob workers.
 * Images only from this server or data: URLs, so the page contacts no third party (Redoc 3
 * otherwise loads its badge logo from cdn.redoc.ly on every visit).
 */
const DOCS_CSP =
  "default-src 'self'; script-src 'self' 'unsafe-inline' blob:; style-src 'self' 'unsafe-inline'; " +
  "img-src 'self' data:; font-src 'self' data:; worker-src 'self' blob:; connect-src 'self'";

function baseUrlOf(req: Request, config: Config): string {
  return config.publicBaseUrl ?? `${req.protocol}://${req.get('host') ?? `${config.host}:${config.port}`}`;
}

/**
 * Wraps an authentication check as a validator security handler. The validator replaces a
 * handler's error with its own generic 401, so the original (with its code, detail and
 * `WWW-Authenticate`, or a database failure that must become a 500) is kept on the request for
 * the error handler.
 */
function keepingAuthError(check: (req: Request) => Promise<void>): (req: Request) => Promise<boolean> {
  return async (req) => {
    try {
      await check(req);
      return true;
    } catch (error) {
      (req as Request & { [AUTH_ERROR]?: unknown })[AUTH_ERROR] = error;
      throw error;
    }
  };
}

/**
 * Builds the app.
 * @throws Error when the contract and the handlers differ (an operation without handler or the reverse).
 */
export function createApp(deps: AppDependencies): Express {
  const { db, config, logger } = deps;
  const clock = deps.clock ?? systemClock;
  const secrets = new SecretCipher(deps.secretsKey);
  const document = deps.apiDocument ?? loadApiDocument();
  const app = express();
  app.disable('x-powered-by');
  app.set('query parser', 'simple');

  app.use(helmet());
  app.use(
    pinoHttp({
      logger,
      genReqId: requestIdOf,
      customLogLevel: (_req, res, err) => (err || res.statusCode >= 500 ? 'error' : 'info'),
      autoLogging: { ignore: (req) => req.url === '/healthz' || req.url === '/readyz' },
      serializers: {
        req: (req: { id: unknown; method: string; url: string; remoteAddress?: string }) => ({
          id: req.id,
          method: req.method,
          url: req.url,
          remoteAddress: req.remoteAddress,
        }),
        res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
      },
    }),
  );
  app.use((req, _res, next) => {
    req.ctx = {
      db,
      config,
      clock,
      log: req.log,
      baseUrl: baseUrlOf(req, config),
      accountId: null,
      requestId: String(req.id),
      secrets,
      jobs: deps.jobs,
    };
    next();
  });

  app.get('/openapi.json', (_req, res) => res.sendFile(resolve(generatedDir, 'openapi.json')));
  app.get('/openapi.yaml', (_req, res) => res.type('application/yaml').sendFile(resolve(generatedDir, 'openapi.yaml')));
  app.get('/docs', (_req, res) => {
    res.setHeader('Content-Security-Policy', DOCS_CSP);
    res.sendFile(resolve(generatedDir, 'docs.html'));
  });
  app.get('/', (_req, res) => res.redirect(302, '/docs'));

  // Bodies are read only for operations that take one, so a body sent to any other operation is
  // ignored rather than answered with a 413 or 400 the contract does not document for it.
  const contractPath = pathMatcher(document);
  const parseJson = express.json({ limit: config.bodyLimitBytes, type: ['application/json', 'application/*+json'] });
  app.use((req, res, next) => {
    const hasBody = req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
    if (hasBody && contractPath(req.path)?.operation(req.method)?.operation.requestBody) parseJson(req, res, next);
    else next();
  });
  app.use(
    OpenApiValidator.middleware({
      apiSpec: structuredClone(document) as never,
      validateRequests: { allowUnknownQueryParameters: false },
      validateResponses: config.validateResponses,
      validateFormats: true,
      validateSecurity: {
        handlers: {
          bearerAuth: keepingAuthError(async (req) => {
            req.ctx.accountId = await authenticateApiToken(db.prisma, bearerCredential(req.headers.authorization), clock.now());
          }),
          adminAuth: keepingAuthError(async (req) => verifyAdminToken(deps.adminToken, req.headers.authorization)),
        },
      },
    }),
  );
  app.use(rateLimit(config.rateLimitPerSecond));

  const router = express.Router();
  mountOperations(router, document, handlers);
  app.use(router);
  app.use(errorHandler((path) => contractPath(path)?.methods));
  return app;
}
