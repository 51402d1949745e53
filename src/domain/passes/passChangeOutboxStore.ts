/**
 * Database access for the pass-change outbox (`pass_change_outbox`): the rows
 * src/domain/passes/passChanges.ts writes and src/delivery/passChangeRelay.ts takes. Taking a row
 * deletes it, so a row is relayed once, by whoever deletes it.
 *
 * @module domain/passes/passChangeOutboxStore
 */
import { Prisma } from '../../../generated/prisma/client.ts';
import type { SqlExecutor } from '../../db/database.ts';
import type { PassEventType } from './passChanges.ts';

/** An outbox row, as taken. */
export interface PassChangeEntry {
  accountId: string;
  passId: string;
  /** Queue the pass's `pass-changed` job (it is in a wallet, or its account has Google credentials). */
  push: boolean;
  /** The change's webhook event, or null. */
  eventType: PassEventType | null;
  /** The entity it happened at, or null. */
  entityId: string | null;
  /** The subscriptions that get the event (empty: none). */
  subscriptionIds: string[];
  /** When the change happened: the event's `timeStamp`. */
  occurredAt: Date;
}

const ENTRY_COLUMNS = Prisma.raw(`account_id::text AS "accountId", pass_id::text AS "passId", push, event_type AS "eventType",
  entity_id::text AS "entityId", COALESCE(subscription_ids::text[], '{}') AS "subscriptionIds", occurred_at AS "occurredAt"`);

/** Deletes the given rows and returns those that were still there. */
export function deletePassChanges(tx: SqlExecutor, ids: readonly string[]): Promise<PassChangeEntry[]> {
  return tx.$queryRaw<PassChangeEntry[]>`DELETE FROM pass_change_outbox WHERE id = ANY(${ids}::uuid[]) RETURNING ${ENTRY_COLUMNS}`;
}

/**
 * Deletes and returns up to `limit` rows older than `ageSeconds` (by the database clock), oldest
 * first, skipping rows another transaction holds (`FOR UPDATE SKIP LOCKED`).
 */
export function takePendingPassChanges(tx: SqlExecutor, ageSeconds: number, limit: number): Promise<PassChangeEntry[]> {
  return tx.$queryRaw<PassChangeEntry[]>`
    DELETE FROM pass_change_outbox WHERE id IN (
      SELECT id FROM pass_change_outbox
       WHERE created_at < now() - make_interval(secs => ${ageSeconds})
       ORDER BY created_at LIMIT ${limit} FOR UPDATE SKIP LOCKED)
    RETURNING ${ENTRY_COLUMNS}`;
}
