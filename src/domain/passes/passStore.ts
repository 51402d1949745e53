/**
 * Database access for passes (PassEntry API reference: the pass resource). Every read and write is scoped to an account. Loyalty
 * balance changes are not made here but in src/domain/loyalty/loyaltyLedgerStore.ts, which keeps
 * the ledger.
 *
 * @module domain/passes/passStore
 */
import { v7 as uuidv7 } from 'uuid';
import type { Database, PrismaExecutor, SqlExecutor } from '../../db/database.ts';
import { isUniqueViolation } from '../../db/prismaErrors.ts';
import { queryRow, queryRows } from '../../db/rows.ts';
import { ConflictError, NotFoundError } from '../../errors.ts';
import { pageWindow, type PageRequest } from '../../db/pagination.ts';
import { Prisma, type Pass, type PassStatus, type PassTemplateType } from '../../../generated/prisma/client.ts';

/**
 * What every pass read brings of its template: what the pass's attributes show of it. Exported
 * for reads that load passes as a relation (scans include their pass).
 */
export const PASS_INCLUDE = { template: { select: { name: true, templateType: true } } } as const;

/** A pass with its template's name and type. */
export type PassRow = Pass & { template: { name: string; templateType: PassTemplateType } };

/** A UUID in any case (PostgreSQL's `uuid` input accepts both). */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const json = (value: unknown) => value as Prisma.InputJsonValue;

/**
 * The columns of a pass, in the order of Prisma's `Pass` (`p` is the pass, or a row of its
 * columns); src/db/rows.ts gives them their Prisma names.
 */
export const PASS_COLUMNS = Prisma.raw(`p.id, p.account_id, p.template_id, p.ext_id, p.status, p.content, p.barcode, p.nfc, p.locations,
         p.beacons, p.group_tags, p.balance, p.latest_message, p.device_type, p.expires_at, p.added_at, p.removed_at,
         p.deactivated_at, p.nullified_at, p.apple_authentication_token, p.created_at, p.updated_at`);

/** A row of {@link selectPassSql} (src/db/rows.ts): the pass's columns under their Prisma names, and its template's. */
export type PassSqlRow = Pass & { templateName: string; templateType: PassTemplateType };

/**
 * One statement that finds a pass of an account by UUID or extId, with its template's name and
 * type (one round trip: this lookup serves every read of a pass).
 */
function selectPassSql(accountId: string, idOrExtId: string, lock: boolean): Prisma.Sql {
  return Prisma.sql`
    SELECT ${PASS_COLUMNS}, t.name AS template_name, t.template_type
      FROM passes p JOIN pass_templates t ON t.id = p.template_id
     ${passLookupSql(accountId, idOrExtId)}
     ${lock ? Prisma.sql`FOR NO KEY UPDATE OF p` : Prisma.empty}`;
}

/**
 * The `WHERE … ORDER BY … LIMIT 1` that picks the pass {@link findPass} finds (`p` is `passes`),
 * for statements that act on it in the same round trip.
 */
export function passLookupSql(accountId: string, idOrExtId: string): Prisma.Sql {
  const id = UUID.test(idOrExtId) ? idOrExtId.toLowerCase() : null;
  return Prisma.sql`
     WHERE p.account_id = ${accountId}::uuid AND (p.id = ${id}::uuid OR p.ext_id = ${idOrExtId})
     ORDER BY p.id = ${id}::uuid IS TRUE DESC, p.status = 'nullified', p.created_at DESC, p.id DESC
     LIMIT 1`;
}

/**
 * A {@link PassSqlRow} as a {@link PassRow} (null for no row), on the path of every pass read and
 * loyalty change. Bench: `npm run bench -- passesAndLoyalty` (GET and PATCH µs of CPU per
 * request; the figures with src/http/listener.ts `serveApp`).
 */
export function passRowOf(row: PassSqlRow | undefined): PassRow | null {
  if (!row) return null;
  const { templateName, templateType, ...pass } = row;
  // Added to the copy, not spread into another (`{ ...pass, template }`): V8 (Node 20) puts a
  // spread's copy on a map outside the transition tree, so `template` made a new map per call.
  const passRow = pass as PassRow;
  passRow.template = { name: templateName, templateType };
  return passRow;
}

/**
 * Finds a pass of an account by UUID or extId (PassEntry API reference: Show loyalty; Show a pass; the contract's
 * `PassIdOrExtId`): a UUID-shaped value is tried as a pass id first, then as an extId; any
 * other value only as an extId. Among passes with one extId the one that is not nullified wins,
 * else the newest nullified one.
 *
 * This is the lookup every operation that names a pass uses (scans and batches too).
 *
 * @param prisma The client, a transaction, or `Database.sql` (the driver: the pass and loyalty shows, the hot path).
 * @param idOrExtId As received in the path or body.
 * @param options.lock Lock the pass's row until the transaction ends (`FOR NO KEY UPDATE`, as
 *   {@link lockPass}): a transaction that will change the pass takes this lock before any other
 *   (src/db/contention.ts).
 * @returns The pass with its template's name and type, or null (also for another account's pass).
 */
export async function findPass(prisma: SqlExecutor, accountId: string, idOrExtId: string, options: { lock?: boolean } = {}): Promise<PassRow | null> {
  return passRowOf(await queryRow<PassSqlRow>(prisma, selectPassSql(accountId, idOrExtId, options.lock ?? false)));
}

/**
 * A pass by its UUID alone, whatever its account: for the holder links and Apple's web service,
 * where the UUID (the pass's serial number) is the capability.
 * @returns The pass, or null (also for a value that is not a UUID).
 */
export async function findPassByUuid(prisma: SqlExecutor, id: string): Promise<PassRow | null> {
  if (!UUID.test(id)) return null;
  const [pass] = await findPassesByUuid(prisma, [id.toLowerCase()]);
  return pass ?? null;
}

/**
 * Passes by their UUIDs, whatever their account, in one statement (a CSV batch's new passes for
 * their events).
 * @param ids Lower-case UUIDs.
 * @returns The passes that exist, ordered by id (for UUIDv7 ids: the order they were made in).
 */
export async function findPassesByUuid(prisma: SqlExecutor, ids: readonly string[]): Promise<PassRow[]> {
  const rows = await queryRows<PassSqlRow>(
    prisma,
    Prisma.sql`
      SELECT ${PASS_COLUMNS}, t.name AS template_name, t.template_type
        FROM passes p JOIN pass_templates t ON t.id = p.template_id
       WHERE p.id = ANY(${ids}::uuid[])
       ORDER BY p.id`,
  );
  return rows.map((row) => passRowOf(row)!);
}

/** The 404 of a pass that does not exist in the caller's account. */
export function passNotFound(idOrExtId: string, parameter = 'id'): NotFoundError {
  return new NotFoundError(`No pass with id or extId ${idOrExtId} exists.`, { parameter });
}

/**
 * {@link findPass}, required.
 * @param parameter The parameter that named the pass, for the error's `source`.
 * @throws NotFoundError when the account has no such pass.
 */
export async function requirePass(prisma: SqlExecutor, accountId: string, idOrExtId: string, parameter = 'id'): Promise<PassRow> {
  const row = await findPass(prisma, accountId, idOrExtId);
  if (!row) throw passNotFound(idOrExtId, parameter);
  return row;
}

/**
 * {@link requirePass}, locking the pass's row until the transaction ends (`SELECT … FOR NO KEY
 * UPDATE`: it excludes every other change of the pass, but not the key-share locks that inserts
 * of rows referencing it take, so a transaction that inserted a scan or ledger row of the pass
 * never waits on this one for it), so that the caller sees and changes its latest state.
 * @throws NotFoundError when the account has no such pass.
 */
export async function lockPass(tx: PrismaExecutor, accountId: string, idOrExtId: string): Promise<PassRow> {
  const pass = passRowOf(await queryRow<PassSqlRow>(tx, selectPassSql(accountId, idOrExtId, true)));
  if (!pass) throw passNotFound(idOrExtId);
  return pass;
}

/**
 * Locks, in ascending id order, every pass of an account that one of `idOrExtIds` names (as a
 * UUID or an extId; every pass with a named extId, nullified ones too), for a transaction that
 * changes several passes (an update batch's chunk). Taking them in one order before any change
 * is what keeps such a transaction from deadlocking with another that changes some of the same
 * passes (src/db/contention.ts); {@link lockPass} then finds each one already held.
 */
export async function lockPasses(tx: SqlExecutor, accountId: string, idOrExtIds: readonly string[]): Promise<void> {
  if (!idOrExtIds.length) return;
  const ids = idOrExtIds.filter((ref) => UUID.test(ref)).map((ref) => ref.toLowerCase());
  await tx.$queryRaw`
    SELECT p.id FROM passes p
     WHERE p.account_id = ${accountId}::uuid AND (p.id = ANY(${ids}::uuid[]) OR p.ext_id = ANY(${[...idOrExtIds]}::text[]))
     ORDER BY p.id FOR NO KEY UPDATE`;
}

/** The columns of a new pass. */
export interface NewPass {
  accountId: string;
  templateId: string;
  extId: string | null;
  content: Record<string, string>;
  barcode: unknown;
  nfc: unknown;
  locations: unknown[];
  beacons: unknown[];
  groupTags: string[];
  balance: number;
  latestMessage: string | null;
  expiresAt: Date | null;
  createdAt: Date;
}

/**
 * Stores a new pass, `issued`.
 * @throws ConflictError (parameter `extId`) when a pass of the account that is not nullified
 *   has the extId (the partial unique index `passes_account_id_ext_id_live_key`).
 */
export async function insertPass(tx: PrismaExecutor, pass: NewPass): Promise<PassRow> {
  try {
    return await tx.pass.create({
      data: {
        ...pass,
        content: json(pass.content),
        barcode: pass.barcode === null ? Prisma.DbNull : json(pass.barcode),
        nfc: pass.nfc === null ? Prisma.DbNull : json(pass.nfc),
        locations: json(pass.locations),
        beacons: json(pass.beacons),
        updatedAt: pass.createdAt,
      },
      include: PASS_INCLUDE,
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw new ConflictError(`A pass with extId ${pass.extId} already exists in this account.`, { parameter: 'extId' });
    throw error;
  }
}

/**
 * Stores many new passes, `issued`, in one statement (CSV pass batches; the rows of
 * {@link insertPass}): an `INSERT … SELECT FROM unnest(…)` of column arrays, without Prisma's
 * per-row work (a chunk of 1,000 passes took about 1 s through `createManyAndReturn`).
 * @returns The new passes' ids, in the order given.
 * @throws The database's unique violation when a pass of the account that is not nullified has
 *   one of the extIds (the caller then stores them one by one to find which).
 */
export async function insertPasses(tx: PrismaExecutor, passes: NewPass[]): Promise<string[]> {
  if (!passes.length) return [];
  // UUID version 7 (RFC 9562 §5.7), the kind of id Prisma's `uuid(7)` gives passes.
  const ids = passes.map((p) => uuidv7({ msecs: p.createdAt.getTime() }));
  const text = (value: unknown) => (value === null ? null : JSON.stringify(value));
  await tx.$executeRaw`
    INSERT INTO passes (id, account_id, template_id, ext_id, status, content, barcode, nfc, locations, beacons, group_tags, balance,
                        latest_message, expires_at, created_at, updated_at)
    SELECT t.id, t.account_id, t.template_id, t.ext_id, 'issued', t.content::json, t.barcode::jsonb, t.nfc::jsonb, t.locations::json, t.beacons::json,
           ARRAY(SELECT jsonb_array_elements_text(t.group_tags::jsonb))::varchar[], t.balance, t.latest_message, t.expires_at, t.created_at, t.created_at
      FROM unnest(${ids}::uuid[], ${passes.map((p) => p.accountId)}::uuid[], ${passes.map((p) => p.templateId)}::uuid[], ${passes.map((p) => p.extId)}::varchar[],
                  ${passes.map((p) => text(p.content))}::text[], ${passes.map((p) => text(p.barcode))}::text[], ${passes.map((p) => text(p.nfc))}::text[],
                  ${passes.map((p) => text(p.locations))}::text[], ${passes.map((p) => text(p.beacons))}::text[], ${passes.map((p) => text(p.groupTags))}::text[],
                  ${passes.map((p) => p.balance)}::int[], ${passes.map((p) => p.latestMessage)}::varchar[], ${passes.map((p) => p.expiresAt)}::timestamptz[],
                  ${passes.map((p) => p.createdAt)}::timestamptz[])
           AS t(id, account_id, template_id, ext_id, content, barcode, nfc, locations, beacons, group_tags, balance, latest_message, expires_at, created_at)`;
  return ids;
}

/** Changes to a pass's columns; absent members keep their values (`null` stores SQL NULL). */
export interface PassChanges {
  status?: PassStatus;
  content?: Record<string, string>;
  barcode?: unknown;
  nfc?: unknown;
  locations?: unknown[];
  beacons?: unknown[];
  groupTags?: string[];
  latestMessage?: string | null;
  expiresAt?: Date | null;
  deactivatedAt?: Date | null;
  nullifiedAt?: Date | null;
}

const jsonOrNull = (value: unknown) => (value === undefined ? undefined : value === null ? Prisma.DbNull : json(value));

/** Writes changes to a pass (by id; the caller found it in the account) and returns it. */
export function updatePassRow(tx: PrismaExecutor, id: string, changes: PassChanges, now: Date): Promise<PassRow> {
  return tx.pass.update({
    where: { id },
    data: {
      ...changes,
      content: changes.content === undefined ? undefined : json(changes.content),
      barcode: jsonOrNull(changes.barcode),
      nfc: jsonOrNull(changes.nfc),
      locations: changes.locations === undefined ? undefined : json(changes.locations),
      beacons: changes.beacons === undefined ? undefined : json(changes.beacons),
      updatedAt: now,
    },
    include: PASS_INCLUDE,
  });
}

/** Filters of a pass list (all given must match). */
export interface PassFilters {
  templateId?: string;
  status?: PassStatus;
  extId?: string;
  groupTag?: string;
  /** The contract's `search` (PassSearchFilter): an extId prefix or a part of a field value, ignoring case. */
  search?: string;
}

/** `text` as a literal inside a LIKE pattern (https://www.postgresql.org/docs/current/functions-matching.html#FUNCTIONS-LIKE): `\`, `%` and `_` escaped. */
function likeLiteral(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/**
 * The ids of an account's passes found by `search` (PassSearchFilter): `ext_id` starting with it or
 * a field value of `content` (a `json` object of strings) containing it, case ignored (`ILIKE`).
 */
async function selectSearchedPassIds(prisma: PrismaExecutor, accountId: string, search: string): Promise<string[]> {
  const literal = likeLiteral(search);
  const rows = await queryRows<{ id: string }>(
    prisma,
    Prisma.sql`
    SELECT p.id::text AS id FROM passes p
     WHERE p.account_id = ${accountId}::uuid
       AND (p.ext_id ILIKE ${`${literal}%`}
            OR EXISTS (SELECT 1 FROM json_each_text(CASE WHEN json_typeof(p.content) = 'object' THEN p.content ELSE '{}'::json END) AS v(key, value)
                        WHERE v.value ILIKE ${`%${literal}%`}))`,
  );
  return rows.map((r) => r.id);
}

/** A page of an account's passes, newest first, and the total count. */
export async function selectPassPage(prisma: PrismaExecutor, accountId: string, filters: PassFilters, page: PageRequest) {
  const where: Prisma.PassWhereInput = {
    accountId,
    ...(filters.search ? { id: { in: await selectSearchedPassIds(prisma, accountId, filters.search) } } : {}),
    ...(filters.templateId ? { templateId: filters.templateId } : {}),
    ...(filters.status ? { status: filters.status } : {}),
    ...(filters.extId ? { extId: filters.extId } : {}),
    ...(filters.groupTag ? { groupTags: { has: filters.groupTag } } : {}),
  };
  const [rows, total] = await Promise.all([
    prisma.pass.findMany({ where, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], include: PASS_INCLUDE, ...pageWindow(page) }),
    prisma.pass.count({ where }),
  ]);
  return { rows, total };
}

/**
 * {@link requirePass} outside any transaction, on the driver (`Database.sql`): the pass and
 * loyalty shows, the hottest reads (see `Database.sql` in src/db/database.ts for what it saves).
 * @throws NotFoundError when the account has no such pass.
 */
export function showPass(db: Pick<Database, 'sql'>, accountId: string, idOrExtId: string): Promise<PassRow> {
  return requirePass(db.sql, accountId, idOrExtId);
}

/**
 * Stores a pass's sealed Apple `authenticationToken` unless it has one, without changing the pass
 * (`updated_at` stays: the token is not content the wallets must fetch again).
 * @returns The sealed token the pass has now (the given one, or the one a concurrent call stored first).
 */
export async function storeAppleAuthenticationToken(prisma: PrismaExecutor, passId: string, sealed: Uint8Array): Promise<Uint8Array> {
  await prisma.$executeRaw`UPDATE passes SET apple_authentication_token = ${sealed} WHERE id = ${passId}::uuid AND apple_authentication_token IS NULL`;
  const row = await prisma.pass.findUniqueOrThrow({ where: { id: passId }, select: { appleAuthenticationToken: true } });
  return row.appleAuthenticationToken!;
}

/**
 * Marks up to `limit` passes of a template that were last updated before `before` as updated
 * `now` (their wallets fetch the template's new design), by ascending id, locking them.
 * @returns The passes marked, with their account.
 */
export function touchTemplatePasses(
  tx: PrismaExecutor,
  templateId: string,
  before: Date,
  now: Date,
  limit: number,
): Promise<{ id: string; accountId: string }[]> {
  return queryRows<{ id: string; accountId: string }>(
    tx,
    Prisma.sql`
      UPDATE passes SET updated_at = ${now}
       WHERE id IN (SELECT id FROM passes
                     WHERE template_id = ${templateId}::uuid AND updated_at < ${before}
                     ORDER BY id LIMIT ${limit} FOR NO KEY UPDATE)
      RETURNING id::text AS id, account_id::text AS account_id`,
  );
}
