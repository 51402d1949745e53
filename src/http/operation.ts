/**
 * Types that tie each handler to its operation in the contract (`generated/api.d.ts`).
 *
 * A handler is a function of the validated request (path parameters, query, body) and the
 * request context, returning `{ status, body, headers? }` where `status` is one of the
 * operation's documented statuses and `body` its documented schema. Failures are thrown as
 * business errors (src/errors.ts). The {@link HandlerMap} type makes the compiler insist on exactly one handler
 * per operationId.
 *
 * @module http/operation
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { operations } from '../../generated/api.d.ts';
import type { PrismaExecutor, SqlExecutor } from '../db/database.ts';
import type { AuditEventStatement } from '../domain/audit/auditStore.ts';
import type { Logger } from '../logger.ts';
import type { Runtime } from '../deps.ts';
import type { UploadedFile } from '../csv/csvFile.ts';
import type { Principal } from '../security/principal.ts';
import type { InProcessRequest, InProcessResponse } from './inProcessRequests.ts';

export type { operations };

/**
 * The operationIds of the contract's `webhooks:` section: requests this service sends, not
 * serves. They are named `send<Event>Webhook` (openapi/webhooks/; test/contract.test.ts checks
 * every webhook is): a test of the operation's shape against theirs also caught operations of
 * the paths whose shape happens to fit (a POST without parameters).
 */
type WebhookOperationId = Extract<keyof operations, `send${string}Webhook`>;

/** Every operationId the service serves: those of the contract's paths (not of its webhooks). */
export type OperationId = Exclude<keyof operations, WebhookOperationId>;

type JsonContent<T> = T extends { content: { 'application/json': infer Body } }
  ? Body
  : T extends { content: { 'multipart/form-data': infer Form } }
    ? Form
    : undefined;
/**
 * A response body: JSON; the text of a `text/csv` or `text/html` response; the bytes of a file
 * (`application/vnd.apple.pkpass`, `image/png`, `application/gzip`); for a preview, its SVG text, PNG
 * bytes or JSON:API document, as `Accept` chose. Non-JSON bodies are sent as they are (src/http/routes.ts).
 */
type ResponseContent<T> = T extends { content: { 'image/svg+xml': unknown; 'application/vnd.api+json': infer Json } }
  ? string | Uint8Array | Json
  : T extends { content: { 'text/csv': infer Body } }
    ? Body
    : T extends { content: { 'text/html': unknown } }
      ? string
      : T extends { content: { 'text/plain': unknown } }
        ? string
        : T extends { content: { 'application/vnd.apple.pkpass': unknown } | { 'image/png': unknown } | { 'application/gzip': unknown } }
          ? Uint8Array
          : JsonContent<T>;
type Parameters<K extends OperationId> = operations[K]['parameters'];

/** Path parameters of an operation. */
export type PathParams<K extends OperationId> = Parameters<K> extends { path: infer P } ? NonNullable<P> : Record<string, never>;
/** Query parameters of an operation, after defaults are applied. */
export type QueryParams<K extends OperationId> = Parameters<K> extends { query?: infer Q } ? NonNullable<Q> : Record<string, never>;
/** Request body of an operation (`undefined` when it has none or it is optional and absent). */
export type RequestBody<K extends OperationId> = operations[K] extends { requestBody: infer R }
  ? JsonContent<R>
  : operations[K] extends { requestBody?: infer R }
    ? JsonContent<NonNullable<R>> | undefined
    : undefined;

type Responses<K extends OperationId> = operations[K]['responses'];
/** Error statuses documented with an HTML page (holder pages): handlers return those pages; JSON errors are thrown. */
type HtmlPageStatus<K extends OperationId> = {
  [S in keyof Responses<K>]: Responses<K>[S] extends { content: { 'text/html': unknown } } ? S : never;
}[keyof Responses<K>];
type ResultStatus<K extends OperationId> = Extract<keyof Responses<K>, 200 | 201 | 202 | 204 | 302 | 304 | 308 | 503> | Extract<HtmlPageStatus<K>, number>;

/** What a handler returns: a documented status with its documented body. */
export type OperationResult<K extends OperationId> = {
  [S in ResultStatus<K>]: { status: S; body: ResponseContent<Responses<K>[S]>; headers?: Record<string, string> };
}[ResultStatus<K>];

/**
 * Per-request context, built by the app before handlers run: the runtime's database, job queue
 * (enqueue inside a write's transaction), secrets cipher, configuration and clock, and what is
 * particular to the request.
 */
export interface RequestContext
  extends Pick<Runtime, 'db' | 'config' | 'clock' | 'secrets' | 'jobs' | 'apiTokens' | 'metrics' | 'googleCallbackKeys' | 'resolveHost'> {
  /** The request's logger (bound to its id). */
  log: Logger;
  /** Absolute base URL for links: `PUBLIC_BASE_URL`, or derived from the request. */
  baseUrl: string;
  /** The account of the API key; set by bearer authentication on `/api/v1` operations. */
  accountId: string | null;
  /** Who is calling (src/security/principal.ts); set by authentication, null on unauthenticated operations. */
  principal: Principal | null;
  requestId: string;
  /** The client's address: Express `req.ip`, which honours `TRUST_PROXY` (https://expressjs.com/en/guide/behind-proxies.html). */
  readonly clientAddress: string;
  /**
   * Runs another request through the same app in-process, on behalf of this one (its client
   * address and headers; src/http/inProcessRequests.ts): every middleware of an HTTP request,
   * no socket.
   */
  dispatch(request: InProcessRequest): Promise<InProcessResponse>;
}

/**
 * Runs a handler's writes in a transaction (see {@link OperationInput.write}).
 * @param options.atomic The writes of `work` are one SQL statement, atomic by itself: outside an
 *   idempotency transaction it runs on the client, without the BEGIN/COMMIT round trips.
 */
export type WriteScope = <T>(work: (tx: PrismaExecutor) => Promise<T>, options?: { atomic?: boolean }) => Promise<T>;

/**
 * {@link WriteScope} for work of SQL statements only (see {@link OperationInput.writeSql}).
 * `work` gets, as its second argument, the request's audit event as a statement to write inside
 * its own ({@link AuditEventStatement}) when the request is audited and `options.eventInStatement`
 * is set; then its one statement writes the change and the event together (no transaction around
 * it), and must write the event whenever `work` resolves (it throws when nothing changed).
 * @param options.atomic As for {@link WriteScope}: the writes of `work` are one statement, run
 *   outside an idempotency transaction on the driver's autocommit executor (`runSqlWrite`, src/db/database.ts).
 * @param options.eventInStatement `work` writes the audit event it is given in its statement.
 */
export type SqlWriteScope = <T>(
  work: (tx: SqlExecutor, auditEvent?: AuditEventStatement) => Promise<T>,
  options?: { atomic?: boolean; eventInStatement?: boolean },
) => Promise<T>;

/** What a handler receives. */
export interface OperationInput<K extends OperationId> {
  params: PathParams<K>;
  query: QueryParams<K>;
  body: RequestBody<K>;
  headers: IncomingHttpHeaders;
  /** Files of a `multipart/form-data` body, stored on disk while the request lasts, by form field (src/http/csvUpload.ts). */
  uploads: Record<string, UploadedFile>;
  /** The request path and query as received, for building pagination links. */
  url: string;
  /**
   * Express's `req.acceptsLanguages` (https://expressjs.com/en/5x/api.html#req.acceptsLanguages):
   * the best of `languages` for the request's `Accept-Language` (the first when it has none),
   * false when it accepts none of them.
   */
  acceptsLanguages: (languages: string[]) => string | false;
  ctx: RequestContext;
  /**
   * Opens the write transaction of the request: `db.write`, or, for a request with an
   * `Idempotency-Key` to an operation whose contract declares that header, the key's
   * transaction, which the router opened around the whole handler (src/http/idempotency.ts). A
   * handler of such an operation does all its database work inside `write`, so that a replayed
   * response is exactly what the first request answered.
   */
  write: WriteScope;
  /**
   * {@link OperationInput.write} for a handler whose writes are SQL statements only: the
   * driver's transaction (`Database.writeSql`, cheaper than Prisma's on a hot path), or the
   * `Idempotency-Key`'s transaction when the request has one.
   */
  writeSql: SqlWriteScope;
}

/** A handler for operation `K`. */
export type OperationHandler<K extends OperationId> = (input: OperationInput<K>) => Promise<OperationResult<K>>;

/** One handler per operationId, no more, no fewer. */
export type HandlerMap = { [K in OperationId]: OperationHandler<K> };

/**
 * The account of an authenticated `/api/v1` request.
 * @throws Error when called on an operation without bearer authentication (a programming error).
 */
export function accountOf(ctx: RequestContext): string {
  if (!ctx.accountId) throw new Error('accountOf() called on an operation without bearer authentication');
  return ctx.accountId;
}
