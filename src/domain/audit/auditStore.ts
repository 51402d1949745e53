/**
 * The audit log in the database (`audit_events`, `audit_chain_heads`; prisma/schema.prisma).
 *
 * An event is written with its change — in the change's transaction, or inside the change's own
 * statement ({@link auditEventInsertSql}) — so the change and its event commit together or not at
 * all. It is written unsealed: its place in the account's hash chain and its hashes are given after
 * the commit by the sealer (src/domain/audit/auditSeal.ts), which every write of an event tells
 * through the `audit-events` after-commit channel, so no request holds a lock on its account's
 * chain.
 *
 * Events are append-only: the `audit_events_append_only` trigger refuses every UPDATE but the
 * sealing of an unsealed event, and every DELETE but the retention job's
 * (src/domain/audit/auditRetention.ts).
 *
 * @module domain/audit/auditStore
 */
import { Prisma } from '../../../generated/prisma/client.ts';
import { afterCommit } from '../../db/afterCommit.ts';
import type { SqlExecutor } from '../../db/database.ts';
import { queryRows } from '../../db/rows.ts';
import type { AuditChange, AuditEventInput, AuditEventRow } from './auditEvent.ts';
import { AUDIT_EVENTS_CHANNEL } from './auditSeal.ts';

const INSERTED_COLUMNS = Prisma.sql`id, account_id, occurred_at, actor_type, actor_id, actor_name, actor_kind, channel,
  operation_id, resource_type, resource_id, changes, request_id, client_address, user_agent, outcome, status`;

/** The values of an event's columns but `changes`, around `changes` (in {@link INSERTED_COLUMNS}' order). */
function eventValues(event: Omit<AuditEventInput, 'changes'>, changes: Prisma.Sql): Prisma.Sql {
  return Prisma.sql`${event.id}::uuid, ${event.accountId}::uuid, ${event.occurredAt}, ${event.actorType}, ${event.actorId},
    ${event.actorName}, ${event.actorKind}, ${event.channel}, ${event.operationId}, ${event.resourceType}, ${event.resourceId},
    ${changes}, ${event.requestId}, ${event.clientAddress}, ${event.userAgent}, ${event.outcome}, ${event.status}::int`;
}

/**
 * Appends `event` (unsealed) in one statement, and tells the sealer once it has committed.
 * @param executor The caller's transaction, or a client (then the statement is its own transaction).
 * @throws Whatever the database throws.
 */
export async function appendAuditEvent(executor: SqlExecutor, event: AuditEventInput): Promise<void> {
  await executor.$executeRaw(
    Prisma.sql`INSERT INTO audit_events (${INSERTED_COLUMNS}) VALUES (${eventValues(event, Prisma.sql`${JSON.stringify(event.changes)}::jsonb`)})`,
  );
  await eventsWritten(executor, event.accountId);
}

/**
 * Tells the sealer that `executor` wrote an event of `accountId`'s chain (at its commit, or at
 * once on an autocommit executor): after a statement that embedded {@link auditEventInsertSql}.
 */
export function eventsWritten(executor: SqlExecutor, accountId: string): Promise<void> {
  return afterCommit(executor, AUDIT_EVENTS_CHANNEL, accountId);
}

/**
 * Writes a request's audit event inside the statement of its change, as a data-modifying common
 * table expression (`name AS (…)`): the function a write gets ({@link auditEventInsertSql} bound
 * to the request's event), given
 * @param changes A `jsonb` expression of the members changed, `{ member: { before, after } }`,
 *   over the rows of `from`; never a secret (name it with `"[secret]"`).
 * @param from The `FROM` list: exactly one row when the change happened, none when it did not.
 */
export type AuditEventStatement = (changes: Prisma.Sql, from: Prisma.Sql) => Prisma.Sql;

/**
 * The `INSERT … SELECT` that writes `event` with its `changes` computed by the statement (see
 * {@link AuditEventStatement}); after the statement, call {@link eventsWritten}.
 * @param otherwise The changes recorded when `changes` is empty (nothing differed): the members the request body set.
 */
export function auditEventInsertSql(
  event: Omit<AuditEventInput, 'changes'>,
  changes: Prisma.Sql,
  from: Prisma.Sql,
  otherwise: Record<string, AuditChange>,
): Prisma.Sql {
  const members = Prisma.sql`COALESCE(NULLIF(${changes}, '{}'::jsonb), ${JSON.stringify(otherwise)}::jsonb)`;
  return Prisma.sql`INSERT INTO audit_events (${INSERTED_COLUMNS}) SELECT ${eventValues(event, members)} FROM ${from}`;
}

/** Filters of {@link listAuditEvents}. */
export interface AuditEventFilter {
  /** Every account when undefined (the administration API). */
  accountId?: string;
  resourceType?: string;
  resourceId?: string;
  /** An actor id (an API key's id, or `administrator`). */
  actorId?: string;
  operationId?: string;
  /** Inclusive lower bound of `occurredAt`. */
  since?: Date;
  /** Exclusive upper bound of `occurredAt`. */
  until?: Date;
  /** Events after this position (newest first: older than it): `{ occurredAt ms, id }`. */
  after?: { occurredAt: Date; id: string };
  limit: number;
}

const COLUMNS = Prisma.sql`id, account_id, seq::int AS seq, occurred_at, actor_type, actor_id, actor_name, actor_kind, channel, operation_id,
  resource_type, resource_id, changes, request_id, client_address, user_agent, outcome, status, prev_hash, hash`;

/** Events matching `filter`, newest first (by occurredAt, then id), at most `filter.limit`. */
export function listAuditEvents(executor: SqlExecutor, filter: AuditEventFilter): Promise<AuditEventRow[]> {
  const conditions: Prisma.Sql[] = [Prisma.sql`TRUE`];
  if (filter.accountId !== undefined) conditions.push(Prisma.sql`account_id = ${filter.accountId}::uuid`);
  if (filter.resourceType !== undefined) conditions.push(Prisma.sql`resource_type = ${filter.resourceType}`);
  if (filter.resourceId !== undefined) conditions.push(Prisma.sql`resource_id = ${filter.resourceId}`);
  if (filter.actorId !== undefined) conditions.push(Prisma.sql`actor_id = ${filter.actorId}`);
  if (filter.operationId !== undefined) conditions.push(Prisma.sql`operation_id = ${filter.operationId}`);
  if (filter.since) conditions.push(Prisma.sql`occurred_at >= ${filter.since}`);
  if (filter.until) conditions.push(Prisma.sql`occurred_at < ${filter.until}`);
  if (filter.after) conditions.push(Prisma.sql`(occurred_at, id) < (${filter.after.occurredAt}, ${filter.after.id}::uuid)`);
  return queryRows<AuditEventRow>(
    executor,
    Prisma.sql`SELECT ${COLUMNS} FROM audit_events WHERE ${Prisma.join(conditions, ' AND ')} ORDER BY occurred_at DESC, id DESC LIMIT ${filter.limit}`,
  );
}

/** The chain heads: account, last seq, last hash, and the anchor the oldest kept event follows. */
export interface AuditChainHeadRow {
  accountId: string;
  seq: number;
  hash: Buffer;
  anchorHash: Buffer;
  anchorSeq: number;
}

/** Every chain head. */
export function listAuditChainHeads(executor: SqlExecutor): Promise<AuditChainHeadRow[]> {
  return queryRows<AuditChainHeadRow>(
    executor,
    Prisma.sql`SELECT account_id, seq::int AS seq, hash, anchor_hash, anchor_seq::int AS anchor_seq FROM audit_chain_heads ORDER BY account_id`,
  );
}

/** Up to `limit` events of an account's chain from position `fromSeq` on, in chain order. */
export function chainSlice(executor: SqlExecutor, accountId: string, fromSeq: number, limit: number): Promise<AuditEventRow[]> {
  return queryRows<AuditEventRow>(
    executor,
    Prisma.sql`SELECT ${COLUMNS} FROM audit_events WHERE account_id = ${accountId}::uuid AND seq >= ${fromSeq} ORDER BY seq LIMIT ${limit}`,
  );
}

/**
 * Deletes, per account, the events that occurred before `cutoff`, first moving the chain head's
 * anchor to the newest of them (src/domain/audit/auditRetention.ts). Runs in the caller's
 * transaction, which it marks as the retention job's (`wps.audit_prune`, the only deletion the
 * append-only trigger allows).
 * @returns How many events were deleted.
 */
export async function pruneChainsBefore(tx: SqlExecutor, cutoff: Date): Promise<number> {
  await tx.$executeRaw`SELECT set_config('wps.audit_prune', 'on', true)`;
  const anchors = await queryRows<{ accountId: string; seq: number; hash: Buffer }>(
    tx,
    Prisma.sql`SELECT DISTINCT ON (account_id) account_id, seq::int AS seq, hash FROM audit_events
      WHERE occurred_at < ${cutoff} AND hash IS NOT NULL ORDER BY account_id, seq DESC`,
  );
  let deleted = 0;
  for (const anchor of anchors) {
    await tx.$executeRaw`UPDATE audit_chain_heads SET anchor_hash = ${anchor.hash}::bytea, anchor_seq = ${anchor.seq}
      WHERE account_id = ${anchor.accountId}::uuid AND anchor_seq < ${anchor.seq}`;
    deleted += await tx.$executeRaw`DELETE FROM audit_events WHERE account_id = ${anchor.accountId}::uuid AND seq <= ${anchor.seq}`;
  }
  return deleted;
}
