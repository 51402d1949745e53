/**
 * The audit hook: every state-changing request leaves exactly one audit event
 * (src/domain/audit), whichever channel it came through (src/http/requestChannel.ts).
 *
 * An operation is state-changing when its method is POST, PUT, PATCH or DELETE, it is secured by
 * an API key or the administration token, and its contract does not say `x-audited: false` (the
 * previews, which change nothing). For such a request, {@link auditHook} opens a record after
 * authentication; then
 * - the first write transaction of the handler that commits, and whose work returned something
 *   other than null (null: nothing found to change), appends the event inside it
 *   ({@link auditedWork}: the change and its event commit together), with the target the path
 *   names or, for a creation, the `id` of what the transaction returned, and the target's stored
 *   members read in that transaction before and after the work: the changes as before → after
 *   (src/domain/audit/auditSnapshotStore.ts; a creation, or a target without a stored row, records
 *   the members its body set);
 * - a handler that answered without writing gets its event before the response
 *   ({@link finishAudit});
 * - a refused request (403, 400, 404, 409 …) gets a `failure` event with its status
 *   ({@link auditFailures}); nothing changed.
 * Requests by nobody (a 401) are not recorded: they have no actor and no account; nor is the
 * replay of an `Idempotency-Key` (answered from the stored response, nothing run): the request
 * that ran left its event.
 *
 * Events are written unsealed and sealed into their account's hash chain after the commit
 * (src/domain/audit/auditSeal.ts), so an audited request holds no lock on its account's chain. A
 * hot write that is one statement (`writeSql` with `eventInStatement`: the loyalty update) gets the
 * event as a statement to embed ({@link AuditEventStatement}), its changes computed by that
 * statement, and stays one autocommit statement.
 *
 * @module http/auditHook
 */
import type { ErrorRequestHandler, Request, RequestHandler } from 'express';
import { v7 as uuidv7 } from 'uuid';
import { type PrismaExecutor, runSqlWrite, runWrite, type SqlExecutor } from '../db/database.ts';
import type { SqlWriteScope, WriteScope } from './operation.ts';
import { ADMINISTRATION_CHAIN, type AuditChange, type AuditEventInput, changesBetween, changesOfBody } from '../domain/audit/auditEvent.ts';
import { hasSnapshot, readAuditSnapshot, type SnapshotTarget } from '../domain/audit/auditSnapshotStore.ts';
import { appendAuditEvent, auditEventInsertSql, type AuditEventStatement, eventsWritten } from '../domain/audit/auditStore.ts';
import { errorStatus } from './errorHandler.ts';
import { channelOf } from './requestChannel.ts';

/** The parts of the contract and of its path matcher (src/http/routes.ts, which imports this module) the hook reads. */
interface Contract {
  paths: Record<string, Record<string, unknown>>;
}
type Match = (
  path: string,
) => { operation(method: string): { path: string; operation: Record<string, unknown> & { operationId?: string } } | undefined } | undefined;

const CHANGING_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** What the contract says of an audited operation. */
interface AuditedOperation {
  operationId: string;
  /** The path template's segments. */
  segments: string[];
  /** Path template of each GET of the document, to tell a sub-collection from an action. */
  collection: (segments: string[]) => boolean;
}

/** The audit record of one request. */
export interface AuditRecord {
  operation: AuditedOperation;
  req: Request;
  /** The event committed (with the change, or alone). */
  committed: boolean;
  /** An event was appended inside the idempotency transaction (committed when it commits). */
  appendedInTransaction: boolean;
  /** The transaction the event was last appended in (a retried transaction is another one). */
  appendedIn: object | undefined;
}

const records = new WeakMap<Request, AuditRecord>();

/** The audit record of `req`, when its operation is audited and its caller known. */
export function auditRecordOf(req: Request): AuditRecord | undefined {
  return records.get(req);
}

/**
 * The target of a request: the resource type is the last collection its path names (`passes`,
 * `readers`, `webhook-subscriptions` …; an action segment such as `nullify` is not one), its id
 * the path parameter that follows it, else the id of what the write returned (a creation): its
 * `publicId` where it has one (the id the API shows), else its `id`, else, for a write that
 * returned the handler's answer, its document's `data.id`.
 */
function targetOf(operation: AuditedOperation, path: string, written: unknown): { resourceType: string; resourceId: string | null } {
  const values = path.split('/');
  let resourceType = operation.segments[3] ?? operation.segments[1] ?? 'unknown';
  let resourceId: string | null = null;
  for (let i = 3; i < operation.segments.length; i++) {
    const segment = operation.segments[i]!;
    if (segment.startsWith('{')) resourceId = decodeURIComponent(values[i] ?? '');
    else if (i > 3 && operation.collection(operation.segments.slice(0, i + 1))) {
      resourceType = segment;
      resourceId = null;
    } else if (i > 3 && resourceId === null) resourceType = `${resourceType}/${segment}`;
  }
  if (resourceId === null && written && typeof written === 'object') {
    // The id the API shows: a row's `publicId` where it has one (readers), else its `id`; or,
    // when the transaction returned the handler's whole answer, the id of the document's `data`.
    const answered = (written as { body?: { data?: { id?: unknown } } }).body?.data?.id;
    const { publicId, id } = written as { publicId?: unknown; id?: unknown };
    resourceId = typeof publicId === 'string' ? publicId : typeof id === 'string' ? id : typeof answered === 'string' ? answered : null;
  }
  return { resourceType, resourceId };
}

/** The account an event of `req` belongs to: the key's, else the one an administration path names, else the administration chain. */
function accountOfRequest(req: Request): string {
  const principal = req.ctx.principal!;
  const pathAccount = /^\/admin\/v1\/accounts\/([0-9a-f-]{36})(?:\/|$)/i.exec(req.path)?.[1];
  if (principal.type === 'api_key') return principal.accountId;
  if (principal.type === 'person') return principal.accountId ?? ADMINISTRATION_CHAIN;
  return pathAccount ?? ADMINISTRATION_CHAIN;
}

/**
 * The event of a record.
 * @param changes The target's members before → after (src/domain/audit/auditSnapshotStore.ts);
 *   when absent or empty, the members the body set.
 */
function eventOf(
  record: AuditRecord,
  written: unknown,
  outcome: 'success' | 'failure',
  status: number | null,
  changes?: Record<string, AuditChange>,
): AuditEventInput {
  const { req } = record;
  const principal = req.ctx.principal!;
  const accountId = accountOfRequest(req);
  const { resourceType, resourceId } = targetOf(record.operation, req.path, written);
  return {
    id: uuidv7(),
    accountId,
    occurredAt: req.ctx.clock.now(),
    actorType: principal.type,
    actorId: principal.type === 'administrator' ? 'administrator' : principal.id,
    actorName: principal.type === 'api_key' ? principal.name : principal.type === 'person' ? `${principal.name} <${principal.email}>`.slice(0, 200) : null,
    actorKind: principal.type === 'api_key' ? principal.kind : null,
    channel: channelOf(req),
    operationId: record.operation.operationId,
    resourceType,
    resourceId,
    changes: outcome === 'failure' ? {} : changes && Object.keys(changes).length ? changes : changesOfBody(req.body),
    requestId: req.ctx.requestId,
    clientAddress: req.ip ?? req.socket.remoteAddress ?? null,
    userAgent: req.get('user-agent')?.slice(0, 500) ?? null,
    outcome,
    status,
  };
}

/**
 * Where the target of a record's request is stored, when its path names one of a resource type
 * with a snapshot (src/domain/audit/auditSnapshotStore.ts): then its event records the members
 * before → after. A creation (no id in the path) records the members the body set.
 */
function snapshotTargetOf(record: AuditRecord): SnapshotTarget | undefined {
  const { resourceType, resourceId } = targetOf(record.operation, record.req.path, undefined);
  if (!hasSnapshot(resourceType) || (resourceId === null && resourceType !== SINGLETON_RESOURCE)) return undefined;
  const accountId = accountOfRequest(record.req);
  return { resourceType, resourceId, accountId: accountId === ADMINISTRATION_CHAIN ? null : accountId };
}

/** The one resource of its kind per account, which its path names by the account only. */
const SINGLETON_RESOURCE = 'google-configuration';

/**
 * Wraps a handler's transaction work so that the first transaction to commit carries the event,
 * with its target's members read before and after the work in the same transaction.
 * A transaction retried on contention runs the work again and appends again (the first attempt
 * rolled back); the caller marks the record committed once the transaction committed.
 */
export function auditedWork<E extends SqlExecutor, T>(record: AuditRecord, work: (tx: E) => Promise<T>): (tx: E) => Promise<T> {
  return async (tx) => {
    const appending = !record.committed && record.appendedIn !== tx;
    const target = appending ? snapshotTargetOf(record) : undefined;
    const before = target && (await readAuditSnapshot(tx, target));
    const written = await work(tx);
    // null: the work found nothing to change (the handler then answers 404); its failure event follows.
    if (written !== null && appending) {
      const after = before && (await readAuditSnapshot(tx, target!, before.rowId));
      const changes = before && after ? changesBetween(before.members, after.members) : undefined;
      await appendAuditEvent(tx, eventOf(record, written, 'success', null, changes));
      record.appendedInTransaction = true;
      record.appendedIn = tx;
    }
    return written;
  };
}

/**
 * The request's event as a statement its write embeds (`writeSql` with `eventInStatement`,
 * src/http/operation.ts): the change's members as the statement computes them, or, when it
 * computes none (nothing differed), the members the body set.
 */
function eventStatementOf(record: AuditRecord): AuditEventStatement {
  const event = eventOf(record, undefined, 'success', null);
  const { changes: bodyChanges, ...columns } = event;
  return (changes, from) => auditEventInsertSql(columns, changes, from, bodyChanges);
}

/**
 * The `write` and `writeSql` of an audited request without an `Idempotency-Key`: transactions
 * (never one autocommit statement, since the event is a second statement) whose first to commit
 * carries the event — but for a `writeSql` whose one statement writes the event itself
 * (`eventInStatement`), which runs as it would unaudited (autocommit when `atomic`).
 */
export function auditedScopes(record: AuditRecord): [WriteScope, SqlWriteScope] {
  const { db } = record.req.ctx;
  return [
    async (work) => {
      const written = await runWrite(db, auditedWork(record, work));
      record.committed ||= record.appendedInTransaction;
      return written;
    },
    async (work, options) => {
      if (options?.eventInStatement && !record.committed) {
        const statement = eventStatementOf(record);
        const accountId = accountOfRequest(record.req);
        const written = await runSqlWrite(
          db,
          async (tx) => {
            const result = await work(tx, statement);
            await eventsWritten(tx, accountId);
            return result;
          },
          options,
        );
        record.committed = true;
        return written;
      }
      const written = await runSqlWrite(db, auditedWork(record, work));
      record.committed ||= record.appendedInTransaction;
      return written;
    },
  ];
}

/** The `write` and `writeSql` of an audited request inside its `Idempotency-Key`'s transaction `tx`. */
export function auditedScopesIn(record: AuditRecord, tx: PrismaExecutor): [WriteScope, SqlWriteScope] {
  return [(work) => auditedWork(record, work)(tx), (work) => auditedWork(record, work)(tx)];
}

/** After an idempotent request's transaction committed: its event, if appended in it, is committed. */
export function committedWith(record: AuditRecord | undefined): <T>(answered: T) => T {
  return (answered) => {
    if (record) record.committed ||= record.appendedInTransaction;
    return answered;
  };
}

/**
 * Appends the event of a request whose handler answered without a write transaction (its target,
 * for a creation, from the answer's `data.id`).
 */
export async function finishAudit(record: AuditRecord, answered: unknown): Promise<void> {
  if (record.committed) return;
  const data = answered && typeof answered === 'object' ? (answered as { data?: unknown }).data : undefined;
  await appendAuditEvent(record.req.ctx.db.prisma, eventOf(record, data, 'success', null));
  record.committed = true;
}

/**
 * Express middleware, after authentication: opens the audit record of an audited operation's
 * request (see the module comment).
 */
export function auditHook(document: Contract, match: Match): RequestHandler {
  const gets = new Set(
    Object.entries(document.paths)
      .filter(([, item]) => item.get)
      .map(([path]) => path),
  );
  const collection = (segments: string[]) => gets.has(segments.join('/'));
  const audited = new WeakMap<object, AuditedOperation | null>();
  return (req, _res, next) => {
    if (!req.ctx.principal || !CHANGING_METHODS.has(req.method)) return next();
    const served = match(req.path)?.operation(req.method);
    if (!served) return next();
    let operation = audited.get(served.operation);
    if (operation === undefined) {
      operation =
        served.operation['x-audited'] === false ? null : { operationId: served.operation.operationId ?? '', segments: served.path.split('/'), collection };
      audited.set(served.operation, operation);
    }
    if (operation) records.set(req, { operation, req, committed: false, appendedInTransaction: false, appendedIn: undefined });
    next();
  };
}

/**
 * Express error middleware, before the error handler: a refused audited request gets its
 * `failure` event (when no change committed), then the error goes on to be answered.
 */
export function auditFailures(): ErrorRequestHandler {
  return async (err, req, _res, next) => {
    const record = records.get(req);
    if (record && !record.committed) {
      record.committed = true;
      try {
        await appendAuditEvent(req.ctx.db.prisma, eventOf(record, undefined, 'failure', errorStatus(err, record.operation.operationId)));
      } catch (auditError) {
        req.log?.error({ err: auditError }, 'audit event of a refused request not written');
      }
    }
    next(err);
  };
}
