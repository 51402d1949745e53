/**
 * The statements of the audit log's sealer (src/domain/audit/auditSeal.ts): the accounts with
 * unsealed events, and one batch of an account's events sealed into its chain.
 *
 * @module domain/audit/auditSealStore
 */
import { Prisma } from '../../../generated/prisma/client.ts';
import type { Database, SqlExecutor } from '../../db/database.ts';
import { queryRows } from '../../db/rows.ts';
import { type AuditEventRow, eventHash, GENESIS_HASH } from './auditEvent.ts';

const COLUMNS = Prisma.sql`id, account_id, occurred_at, actor_type, actor_id, actor_name, actor_kind, channel, operation_id,
  resource_type, resource_id, changes, request_id, client_address, user_agent, outcome, status`;

/**
 * Seals up to `limit` committed unsealed events of one account, oldest first, in the caller's
 * transaction: locks the account's chain head (`INSERT … ON CONFLICT DO UPDATE`, creating it at position 0
 * when the account has none), gives each event the next position, the head's hash as `prev_hash`
 * and `sha256(prev_hash || canonical event)` as `hash` (src/domain/audit/auditEvent.ts), and moves
 * the head to the last.
 * @returns How many events were sealed (fewer than `limit`: none are left).
 * @throws Whatever the database throws.
 */
export async function sealBatch(tx: SqlExecutor, accountId: string, limit: number): Promise<number> {
  // Creates the head at position 0, or takes the row lock of the existing one (ON CONFLICT DO UPDATE locks it).
  const [head] = await queryRows<{ seq: number; hash: Buffer }>(
    tx,
    Prisma.sql`INSERT INTO audit_chain_heads AS h (account_id, seq, hash, prev_hash, anchor_hash, anchor_seq)
      VALUES (${accountId}::uuid, 0, ${GENESIS_HASH}::bytea, ${GENESIS_HASH}::bytea, ${GENESIS_HASH}::bytea, 0)
      ON CONFLICT (account_id) DO UPDATE SET seq = h.seq RETURNING seq::int AS seq, hash`,
  );
  const events = await queryRows<AuditEventRow>(
    tx,
    Prisma.sql`SELECT ${COLUMNS} FROM audit_events WHERE account_id = ${accountId}::uuid AND hash IS NULL ORDER BY occurred_at, id LIMIT ${limit}`,
  );
  if (!events.length) return 0;
  let seq = head!.seq;
  let previous: Buffer = Buffer.from(head!.hash);
  const ids: string[] = [];
  const seqs: number[] = [];
  const prevHashes: string[] = [];
  const hashes: string[] = [];
  for (const event of events) {
    const hash = eventHash(previous, event);
    ids.push(event.id);
    seqs.push(++seq);
    prevHashes.push(previous.toString('hex'));
    hashes.push(hash.toString('hex'));
    previous = hash;
  }
  await tx.$executeRaw`UPDATE audit_events e SET seq = u.seq, prev_hash = decode(u.prev_hash, 'hex'), hash = decode(u.hash, 'hex')
    FROM unnest(${ids}::uuid[], ${seqs}::bigint[], ${prevHashes}::text[], ${hashes}::text[]) AS u(id, seq, prev_hash, hash)
    WHERE e.id = u.id AND e.hash IS NULL`;
  await tx.$executeRaw`UPDATE audit_chain_heads SET seq = ${seq}, prev_hash = decode(${prevHashes[prevHashes.length - 1]!}, 'hex'),
    hash = decode(${hashes[hashes.length - 1]!}, 'hex') WHERE account_id = ${accountId}::uuid`;
  return events.length;
}

/**
 * The accounts with unsealed events: `accountId` alone when it has any, or every one when
 * `accountId` is undefined (the partial index `audit_events_unsealed_idx`), read outside any transaction.
 */
export function accountsWithUnsealedEvents(db: Pick<Database, 'sql'>, accountId: string | undefined): Promise<{ accountId: string }[]> {
  return queryRows<{ accountId: string }>(
    db.sql,
    accountId === undefined
      ? Prisma.sql`SELECT DISTINCT account_id FROM audit_events WHERE hash IS NULL`
      : Prisma.sql`SELECT account_id FROM audit_events WHERE account_id = ${accountId}::uuid AND hash IS NULL LIMIT 1`,
  );
}
