/**
 * Reading the audit log: filters, cursor pagination and the three representations of
 * `listAuditEvents` and `listAllAuditEvents` (JSON:API page, NDJSON, CSV).
 *
 * Pages are by cursor, not page number: newest first by (occurredAt, id), the cursor is the
 * position of the last event given, so a page stays what it was while events are appended. The
 * cursor is that position in base64url (`<ms since the epoch>_<id>`).
 *
 * @module domain/audit/auditQuery
 */
import { stringify } from 'csv-stringify/sync';
import Negotiator from 'negotiator';
import type { components } from '../../../generated/api.d.ts';
import type { Database } from '../../db/database.ts';
import { ValidationError } from '../../errors.ts';
import type { AuditEventRow } from './auditEvent.ts';
import { type AuditEventFilter, listAuditEvents } from './auditStore.ts';
import { sealAuditChains } from './auditSeal.ts';

/** An event as the API shows it. */
export type AuditEventResource = components['schemas']['AuditEvent'];

/** The query of both list operations. */
export interface AuditEventQuery {
  account?: string;
  resource?: string;
  resourceId?: string;
  actor?: string;
  operation?: string;
  since?: string;
  until?: string;
  cursor?: string;
  limit?: number;
  format?: 'json' | 'ndjson' | 'csv';
}

/** Most events of a JSON page. */
export const JSON_PAGE_MAX = 100;

/** The event as a resource object; `withAccount` adds its account (the administration API). */
export function serializeAuditEvent(row: AuditEventRow, withAccount: boolean): AuditEventResource {
  return {
    id: row.id,
    type: 'auditEvent',
    attributes: {
      occurredAt: row.occurredAt.toISOString(),
      sequence: Number(row.seq),
      ...(withAccount ? { accountId: row.accountId } : {}),
      actor: { type: row.actorType, id: row.actorId, name: row.actorName, kind: row.actorKind as 'secret' | null },
      channel: row.channel as 'api',
      operationId: row.operationId,
      resourceType: row.resourceType,
      resourceId: row.resourceId,
      changes: row.changes as AuditEventResource['attributes']['changes'],
      requestId: row.requestId,
      clientAddress: row.clientAddress,
      userAgent: row.userAgent,
      outcome: row.outcome,
      status: row.status,
      prevHash: Buffer.from(row.prevHash).toString('hex'),
      hash: Buffer.from(row.hash).toString('hex'),
    },
  };
}

/** Encodes a position of the newest-first order. */
function cursorOf(row: AuditEventRow): string {
  return Buffer.from(`${row.occurredAt.getTime()}_${row.id}`, 'utf8').toString('base64url');
}

/** @throws ValidationError (`parameter` `cursor`) when it is not one {@link cursorOf} made. */
function positionOf(cursor: string): { occurredAt: Date; id: string } {
  const match = /^(\d{1,15})_([0-9a-f-]{36})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!match) throw new ValidationError({ detail: 'cursor is not one this service gave.', source: { parameter: 'cursor' } });
  return { occurredAt: new Date(Number(match[1])), id: match[2]! };
}

/** The representation asked for: `format`, else the `Accept` header's best of JSON, NDJSON and CSV. */
function formatOf(query: AuditEventQuery, accept: string | undefined): 'json' | 'ndjson' | 'csv' {
  if (query.format) return query.format;
  const best = new Negotiator({ headers: { accept: accept ?? '*/*' } }).mediaType(['application/json', 'application/x-ndjson', 'text/csv']);
  return best === 'application/x-ndjson' ? 'ndjson' : best === 'text/csv' ? 'csv' : 'json';
}

const CSV_COLUMNS = [
  'id',
  'occurredAt',
  'sequence',
  'actorType',
  'actorId',
  'actorName',
  'actorKind',
  'channel',
  'operationId',
  'resourceType',
  'resourceId',
  'changes',
  'requestId',
  'clientAddress',
  'userAgent',
  'outcome',
  'status',
  'prevHash',
  'hash',
] as const;

/** What a list operation answers: its body (text of an export, or the JSON:API document) and headers. */
export interface AuditEventAnswer {
  body: string | { data: AuditEventResource[]; links: { next: string | null } };
  headers: Record<string, string>;
}

/**
 * Reads a page or an export of events for `accountId` (every account when undefined), after
 * sealing the events they may hold that are not sealed yet.
 * @param url The request's path and query, for the next link.
 * @throws ValidationError naming the parameter: a bad cursor, `until` not after `since`, a JSON
 *   page over {@link JSON_PAGE_MAX}.
 */
export async function auditEventAnswer(
  db: Pick<Database, 'prisma' | 'sql' | 'writeSql'>,
  accountId: string | undefined,
  query: AuditEventQuery,
  accept: string | undefined,
  baseUrl: string,
  url: string,
): Promise<AuditEventAnswer> {
  const format = formatOf(query, accept);
  const limit = query.limit ?? 25;
  if (format === 'json' && limit > JSON_PAGE_MAX)
    throw new ValidationError({ detail: `A JSON page holds at most ${JSON_PAGE_MAX} events; export more as NDJSON or CSV.`, source: { parameter: 'limit' } });
  const since = query.since ? new Date(query.since) : undefined;
  const until = query.until ? new Date(query.until) : undefined;
  if (since && until && until <= since) throw new ValidationError({ detail: 'until must be after since.', source: { parameter: 'until' } });
  const filter: AuditEventFilter = {
    accountId: accountId ?? query.account,
    resourceType: query.resource,
    resourceId: query.resourceId,
    actorId: query.actor,
    operationId: query.operation,
    since,
    until,
    after: query.cursor ? positionOf(query.cursor) : undefined,
    limit: limit + 1,
  };
  // Whatever committed is sealed into its chain before it is read (src/domain/audit/auditSeal.ts).
  await sealAuditChains(db, filter.accountId);
  const rows = await listAuditEvents(db.prisma, filter);
  const page = rows.slice(0, limit);
  const next = rows.length > limit ? nextUrl(baseUrl, url, cursorOf(page[page.length - 1]!)) : null;
  const events = page.map((row) => serializeAuditEvent(row, accountId === undefined));
  const headers: Record<string, string> = next ? { Link: `<${next}>; rel="next"` } : {};
  if (format === 'ndjson') {
    return { body: events.map((event) => `${JSON.stringify(event)}\n`).join(''), headers: { ...headers, 'Content-Type': 'application/x-ndjson' } };
  }
  if (format === 'csv') {
    const records = events.map(({ id, attributes: a }) => [
      id,
      a.occurredAt,
      a.sequence,
      a.actor.type,
      a.actor.id ?? '',
      a.actor.name ?? '',
      a.actor.kind ?? '',
      a.channel,
      a.operationId,
      a.resourceType,
      a.resourceId ?? '',
      JSON.stringify(a.changes),
      a.requestId ?? '',
      a.clientAddress ?? '',
      a.userAgent ?? '',
      a.outcome,
      a.status ?? '',
      a.prevHash,
      a.hash,
    ]);
    const csv = stringify(records, { header: true, columns: [...CSV_COLUMNS], record_delimiter: 'windows', escape_formulas: true });
    return { body: csv, headers: { ...headers, 'Content-Type': 'text/csv; charset=utf-8' } };
  }
  return { body: { data: events, links: { next } }, headers };
}

/** `url` (path and query) on `baseUrl` with its `cursor` set to `cursor`. */
function nextUrl(baseUrl: string, url: string, cursor: string): string {
  const next = new URL(url, baseUrl);
  next.searchParams.set('cursor', cursor);
  return next.toString();
}
