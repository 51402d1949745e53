/**
 * The stored state of an audited request's target, read in the request's own transaction before
 * and after its work, so that its audit event records each changed member as before → after
 * (src/http/auditHook.ts, `changesBetween` in src/domain/audit/auditEvent.ts).
 *
 * A snapshot is the target's row as the database holds it (`to_jsonb`), its column names in
 * camelCase (`latest_message` → `latestMessage`, as Prisma's models name them), without the
 * bookkeeping columns (`id`, `account_id`, `created_at`, `updated_at`); the contents of JSON
 * columns are kept as stored. An entity's snapshot carries its reader configuration as the member
 * `readerConfiguration` (its operations are paths under the entity). Secret columns are read like
 * the others and named, never shown, by `changesBetween`.
 *
 * Resource types without a row to read (scans, batches of passes, callbacks…) have no snapshot;
 * their events keep the members the request body set.
 *
 * @module domain/audit/auditSnapshotStore
 */
import { Prisma } from '../../../generated/prisma/client.ts';
import type { SqlExecutor } from '../../db/database.ts';
import { camelName } from '../../db/rows.ts';
import { passLookupSql } from '../passes/passStore.ts';

/** A target's stored members, or null when it has no row (not yet created, or deleted). */
export type AuditSnapshot = Record<string, unknown> | null;

/** Where the target of an event is. */
export interface SnapshotTarget {
  /** The resource type of the event (the path's collection: `passes`, `loyalty`, `readers` …). */
  resourceType: string;
  /** The account whose row it is; null on an administration path that names no account. */
  accountId: string | null;
  /** The id the path names (a UUID, a pass's extId, a reader's id, a pass type identifier); null when it names none. */
  resourceId: string | null;
}

/** The member an entity's snapshot carries its reader configuration's row in. */
const NESTED_ROW = 'readerConfiguration';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** How one resource type's row is found: its table under alias `p`, the `WHERE` of the path's id, and members added to the row. */
interface SnapshotKind {
  table: Prisma.Sql;
  /** The condition that finds the one row (with its order and `LIMIT 1` where several could match); null when the id cannot name one (then no statement is sent). */
  find(accountId: string | null, resourceId: string | null): Prisma.Sql | null;
  /** A `jsonb` object merged into the row (`||`). */
  extra?: Prisma.Sql;
}

const ofAccount = (accountId: string | null) => (accountId ? Prisma.sql`AND p.account_id = ${accountId}::uuid` : Prisma.empty);
const byUuid = (accountId: string | null, id: string | null) => (id && UUID.test(id) ? Prisma.sql`WHERE p.id = ${id}::uuid ${ofAccount(accountId)}` : null);
const passes: SnapshotKind = {
  table: Prisma.sql`passes`,
  find: (accountId, id) => (accountId && id ? passLookupSql(accountId, id) : null),
};

/** The resource types with a snapshot. */
const KINDS: Record<string, SnapshotKind> = {
  passes,
  loyalty: passes,
  'pass-templates': { table: Prisma.sql`pass_templates`, find: byUuid },
  readers: {
    table: Prisma.sql`readers`,
    find: (accountId, id) => (accountId && id ? Prisma.sql`WHERE p.account_id = ${accountId}::uuid AND p.public_id = ${id}` : null),
  },
  entities: {
    table: Prisma.sql`entities`,
    find: byUuid,
    extra: Prisma.sql`jsonb_build_object(${Prisma.raw(`'${NESTED_ROW}'`)}, (SELECT to_jsonb(c) FROM reader_configurations c WHERE c.entity_id = p.id))`,
  },
  batches: { table: Prisma.sql`batches`, find: byUuid },
  tokens: { table: Prisma.sql`api_tokens`, find: byUuid },
  'api-keys': { table: Prisma.sql`api_tokens`, find: byUuid },
  'webhook-subscriptions': { table: Prisma.sql`webhook_subscriptions`, find: byUuid },
  'apple-configurations': {
    table: Prisma.sql`apple_configurations`,
    find: (accountId, id) => (accountId && id ? Prisma.sql`WHERE p.account_id = ${accountId}::uuid AND p.pass_type_identifier = ${id}` : null),
  },
  'google-configuration': {
    table: Prisma.sql`google_configurations`,
    find: (accountId) => (accountId ? Prisma.sql`WHERE p.account_id = ${accountId}::uuid` : null),
  },
};

/** Whether events of `resourceType` record their target's members before → after. */
export function hasSnapshot(resourceType: string): boolean {
  return resourceType in KINDS;
}

/** Columns every row has that say nothing of what a request changed. */
const BOOKKEEPING = new Set(['id', 'account_id', 'created_at', 'updated_at']);

/** A row's members under camelCase names, without bookkeeping; the nested row of {@link NESTED_ROW} alike. */
function membersOf(row: Record<string, unknown>): Record<string, unknown> {
  const members: Record<string, unknown> = {};
  for (const [column, value] of Object.entries(row)) {
    if (BOOKKEEPING.has(column)) continue;
    members[camelName(column)] = column === NESTED_ROW && value && typeof value === 'object' ? membersOf(value as Record<string, unknown>) : value;
  }
  return members;
}

/**
 * Reads a target's snapshot (see the module comment) in `executor`'s transaction.
 * @param rowId After the work: the row's `id` read before it (a pass's extId or a reader's id may
 *   have changed), so the same row is read again.
 * @returns The snapshot with the row's `id` beside it (`undefined` members when the row is
 *   missing), or undefined when `target.resourceType` has none or its id cannot name a row.
 * @throws Whatever the database throws.
 */
export async function readAuditSnapshot(
  executor: SqlExecutor,
  target: SnapshotTarget,
  rowId?: string,
): Promise<{ members: AuditSnapshot; rowId: string | undefined } | undefined> {
  const kind = KINDS[target.resourceType];
  if (!kind) return undefined;
  const where = rowId ? Prisma.sql`WHERE p.id = ${rowId}::uuid` : kind.find(target.accountId, target.resourceId);
  if (!where) return undefined;
  const rows = await executor.$queryRaw<{ row: Record<string, unknown> }[]>(
    Prisma.sql`SELECT to_jsonb(p)${kind.extra ? Prisma.sql` || ${kind.extra}` : Prisma.empty} AS row FROM ${kind.table} p ${where}`,
  );
  const row = rows[0]?.row;
  if (!row) return { members: null, rowId };
  return { members: membersOf(row), rowId: typeof row.id === 'string' ? row.id : rowId };
}
