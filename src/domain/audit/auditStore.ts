/**
 * The audit log in the database (`audit_events`, `audit_chain_heads`; prisma/schema.prisma).
 *
 * {@link appendAuditEvent} is one statement, so it runs in the caller's transaction (the change
 * and its event commit together or not at all) or alone: it moves the account's chain head —
 * the row lock serialises the appends of one account, and nothing else — and inserts the event
 * with the head's previous hash and the new one, computed by the database
 * (`sha256(prev || canonical)`, src/domain/audit/auditEvent.ts). In ON CONFLICT's SET list a
 * column names the locked row's current value (PostgreSQL, INSERT … ON CONFLICT DO UPDATE), so
 * the head keeps the previous hash next to the new one, whichever transaction appended last.
 *
 * Events are append-only: the `audit_events_append_only` trigger refuses every UPDATE and every
 * DELETE but the retention job's (src/domain/audit/auditRetention.ts).
 *
 * @module domain/audit/auditStore
 */
import { Prisma } from '../../../generated/prisma/client.ts';
import type { SqlExecutor } from '../../db/database.ts';
import { queryRows } from '../../db/rows.ts';
import { type AuditEventInput, type AuditEventRow, canonicalEvent, GENESIS_HASH } from './auditEvent.ts';

/**
 * Appends `event` to its account's chain.
 * @param executor The caller's transaction, or a client (then the statement is its own transaction).
 * @throws Whatever the database throws.
 */
export async function appendAuditEvent(executor: SqlExecutor, event: AuditEventInput): Promise<void> {
  const content = Buffer.from(canonicalEvent(event), 'utf8');
  await executor.$executeRaw(Prisma.sql`
    WITH head AS (
      INSERT INTO audit_chain_heads AS h (account_id, seq, hash, prev_hash, anchor_hash, anchor_seq)
      VALUES (${event.accountId}::uuid, 1, sha256(${GENESIS_HASH}::bytea || ${content}::bytea), ${GENESIS_HASH}::bytea, ${GENESIS_HASH}::bytea, 0)
      ON CONFLICT (account_id) DO UPDATE SET seq = h.seq + 1, prev_hash = h.hash, hash = sha256(h.hash || ${content}::bytea)
      RETURNING seq, prev_hash, hash
    )
    INSERT INTO audit_events (id, account_id, seq, occurred_at, actor_type, actor_id, actor_name, actor_kind, channel,
      operation_id, resource_type, resource_id, changes, request_id, client_address, user_agent, outcome, status, prev_hash, hash)
    SELECT ${event.id}::uuid, ${event.accountId}::uuid, head.seq, ${event.occurredAt}, ${event.actorType}, ${event.actorId},
      ${event.actorName}, ${event.actorKind}, ${event.channel}, ${event.operationId}, ${event.resourceType}, ${event.resourceId},
      ${JSON.stringify(event.changes)}::jsonb, ${event.requestId}, ${event.clientAddress}, ${event.userAgent}, ${event.outcome},
      ${event.status}::int,
      head.prev_hash, head.hash
    FROM head`);
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
      WHERE occurred_at < ${cutoff} ORDER BY account_id, seq DESC`,
  );
  let deleted = 0;
  for (const anchor of anchors) {
    await tx.$executeRaw`UPDATE audit_chain_heads SET anchor_hash = ${anchor.hash}::bytea, anchor_seq = ${anchor.seq}
      WHERE account_id = ${anchor.accountId}::uuid AND anchor_seq < ${anchor.seq}`;
    deleted += await tx.$executeRaw`DELETE FROM audit_events WHERE account_id = ${anchor.accountId}::uuid AND seq <= ${anchor.seq}`;
  }
  return deleted;
}
