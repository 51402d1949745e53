/**
 * Database access for batches (PassEntry API reference: the batch resource): the batch rows, their listed recipients and their
 * per-pass deliveries. API reads are scoped to an account; the sending job works by batch id.
 *
 * The delivery table's primary key `(batch_id, pass_id)` is what makes sending restartable:
 * {@link recordDeliveries} inserts a chunk's deliveries with `ON CONFLICT DO NOTHING` and sets
 * `latestMessage` only on the passes whose delivery row it inserted, in one statement, so a pass
 * is messaged at most once per batch however often a chunk is retried.
 *
 * @module domain/batches/batchStore
 */
import type { PrismaExecutor } from '../../db/database.ts';
import { queryRow, queryRows } from '../../db/rows.ts';
import { NotFoundError } from '../../errors.ts';
import { pageWindow, type PageRequest } from '../../db/pagination.ts';
import { Prisma, type Batch, type BatchStatus, type BatchType } from '../../../generated/prisma/client.ts';

export type BatchRow = Batch;

/** The columns of a new wallet messaging batch (status `validating`). */
export interface NewBatch {
  accountId: string;
  entityId: string;
  name: string;
  tag: string | null;
  content: string;
  scheduledAt: Date;
  segmentTags: string[];
  createdAt: Date;
}

/** A listed recipient as given. */
export interface NewRecipient {
  passRef: string;
  variables: Record<string, string>;
}

/** Stores a new batch, `validating`, with its listed recipients (in request order). */
export async function insertBatch(tx: PrismaExecutor, batch: NewBatch, recipients: NewRecipient[]): Promise<BatchRow> {
  const row = await tx.batch.create({ data: { ...batch, updatedAt: batch.createdAt } });
  await insertRecipients(tx, row, recipients, 0);
  return row;
}

/** Stores listed recipients of a batch, the first at position `from` (recipients of a CSV file come in chunks). */
export async function insertRecipients(tx: PrismaExecutor, batch: { id: string; accountId: string }, recipients: NewRecipient[], from: number): Promise<void> {
  if (!recipients.length) return;
  await tx.batchRecipient.createMany({
    data: recipients.map((r, i) => ({
      batchId: batch.id,
      position: from + i,
      accountId: batch.accountId,
      passRef: r.passRef,
      variables: r.variables as Prisma.InputJsonValue,
    })),
  });
}

/** A batch of an account, or null (also for another account's batch). */
export function selectAccountBatch(prisma: PrismaExecutor, accountId: string, id: string): Promise<BatchRow | null> {
  return prisma.batch.findFirst({ where: { id, accountId } });
}

/** The 404 of a batch that does not exist in the caller's account. */
export function batchNotFound(id: string): NotFoundError {
  return new NotFoundError(`No batch with id ${id} exists.`, { parameter: 'id' });
}

/**
 * {@link selectAccountBatch}, required.
 * @throws NotFoundError (parameter `id`) when the account has no such batch.
 */
export async function requireBatch(prisma: PrismaExecutor, accountId: string, id: string): Promise<BatchRow> {
  const row = await selectAccountBatch(prisma, accountId, id);
  if (!row) throw batchNotFound(id);
  return row;
}

/** A page of an account's batches, newest first, optionally of one type, and the total count. */
export async function selectBatchPage(prisma: PrismaExecutor, accountId: string, type: BatchType | undefined, page: PageRequest) {
  const where = { accountId, ...(type ? { type } : {}) };
  const [rows, total] = await Promise.all([
    prisma.batch.findMany({ where, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], ...pageWindow(page) }),
    prisma.batch.count({ where }),
  ]);
  return { rows, total };
}

/** Changes of a batch's state columns. */
export type BatchChanges = Partial<Pick<BatchRow, 'status' | 'statusDetail' | 'scheduledAt' | 'recipientCount' | 'errorCount' | 'completedAt'>>;

/**
 * Changes a batch only while it is in one of `from` (a compare-and-set, so that concurrent
 * actions and jobs cannot both move it).
 * @param accountId The caller's account, or null for the job (which acts by id).
 * @returns The changed row, or null when the batch does not exist (in the account) or is in
 *   another status.
 */
export async function transitionBatch(
  tx: PrismaExecutor,
  accountId: string | null,
  id: string,
  from: readonly BatchStatus[],
  changes: BatchChanges,
  now: Date,
): Promise<BatchRow | null> {
  const [row] = await tx.batch.updateManyAndReturn({
    where: { id, ...(accountId ? { accountId } : {}), status: { in: [...from] } },
    data: { ...changes, updatedAt: now },
  });
  return row ?? null;
}

/**
 * The start of a `scheduled` batch (PassEntry API reference: a batch waits for its `scheduledAt`):
 * before `scheduledAt` (by `now`) nothing changes and the caller learns how long to wait; from
 * then on the batch moves to `sending` with `changes` — once, however many job runs try at the
 * same time.
 * @param changes What else the move sets (read only when the batch is due).
 * @returns `{ waitSeconds }` (whole seconds, ≥ 1) to run again then; or `{ started }`: the batch
 *   in `sending`, or null when another run started it first or it was cancelled meanwhile.
 */
export async function startWhenDue(
  db: PrismaExecutor,
  batch: BatchRow,
  now: Date,
  changes: () => Promise<BatchChanges> = async () => ({}),
): Promise<{ waitSeconds: number } | { started: BatchRow | null }> {
  const waitMs = batch.scheduledAt.getTime() - now.getTime();
  if (waitMs > 0) return { waitSeconds: Math.ceil(waitMs / 1000) };
  return { started: await transitionBatch(db, null, batch.id, ['scheduled'], { ...(await changes()), status: 'sending' }, now) };
}

/** Locks a batch until the transaction ends (`SELECT … FOR UPDATE`) and reads it; null when gone. */
export async function lockBatch(tx: PrismaExecutor, id: string): Promise<BatchRow | null> {
  await tx.$queryRaw`SELECT id FROM batches WHERE id = ${id}::uuid FOR UPDATE`;
  return tx.batch.findUnique({ where: { id } });
}

/** A listed recipient as stored. */
export interface RecipientRow {
  position: number;
  passRef: string;
}

/** The listed recipients of a batch, in request order. */
export function selectRecipients(tx: PrismaExecutor, batchId: string): Promise<RecipientRow[]> {
  return tx.batchRecipient.findMany({ where: { batchId }, orderBy: { position: 'asc' }, select: { position: true, passRef: true } });
}

/** What validation found for one listed recipient: its pass, and why it will not be messaged. */
export interface RecipientResolution {
  position: number;
  passId: string | null;
  error: string | null;
}

/** Stores what validation found for the listed recipients, in one statement. */
export async function recordResolutions(tx: PrismaExecutor, batchId: string, resolutions: RecipientResolution[]): Promise<void> {
  if (!resolutions.length) return;
  await tx.$executeRaw`
    UPDATE batch_recipients r SET pass_id = t.pass_id, error = t.error
      FROM unnest(${resolutions.map((r) => r.position)}::int[], ${resolutions.map((r) => r.passId)}::uuid[],
                  ${resolutions.map((r) => r.error)}::varchar[]) AS t(position, pass_id, error)
     WHERE r.batch_id = ${batchId}::uuid AND r.position = t.position`;
}

/** Passes of an account in any of the segments' group tags that are not nullified. */
export async function countSegmentPasses(tx: PrismaExecutor, accountId: string, tags: string[]): Promise<number> {
  const [row] = await tx.$queryRaw<{ count: number }[]>`
    SELECT count(*)::int AS count FROM passes
     WHERE account_id = ${accountId}::uuid AND group_tags && ${tags}::varchar[] AND status <> 'nullified'`;
  return row!.count;
}

/** A pass to message, with what rendering reads. */
export interface ChunkPass {
  id: string;
  extId: string | null;
  status: string;
  /** Field values keyed by template field id. */
  content: Record<string, string>;
  balance: number;
  /** The recipient's variables (`{}` for a segment's pass). */
  variables: Record<string, string>;
}

const NO_PASS = '00000000-0000-0000-0000-000000000000';

/**
 * The next passes a batch has not delivered to, at most `limit`, in a fixed order so that
 * chunks follow each other: a segment batch's passes (in a segment tag, not nullified) by pass
 * id, after the greatest pass id delivered to; a listed batch's valid recipients by position.
 */
export function selectUndelivered(tx: PrismaExecutor, batch: BatchRow, limit: number): Promise<ChunkPass[]> {
  if (batch.segmentTags.length) {
    return queryRows<ChunkPass>(
      tx,
      Prisma.sql`
      SELECT p.id::text AS id, p.ext_id, p.status::text AS status, p.content, p.balance, '{}'::jsonb AS variables
        FROM passes p
       WHERE p.account_id = ${batch.accountId}::uuid AND p.group_tags && ${batch.segmentTags}::varchar[]
         AND p.status <> 'nullified'
         AND p.id > COALESCE((SELECT pass_id FROM batch_deliveries WHERE batch_id = ${batch.id}::uuid
                               ORDER BY pass_id DESC LIMIT 1), ${NO_PASS}::uuid)
       ORDER BY p.id
       LIMIT ${limit}`,
    );
  }
  return queryRows<ChunkPass>(
    tx,
    Prisma.sql`
    SELECT p.id::text AS id, p.ext_id, p.status::text AS status, p.content, p.balance, r.variables
      FROM batch_recipients r JOIN passes p ON p.id = r.pass_id
     WHERE r.batch_id = ${batch.id}::uuid AND r.error IS NULL
       AND NOT EXISTS (SELECT 1 FROM batch_deliveries d WHERE d.batch_id = r.batch_id AND d.pass_id = r.pass_id)
     ORDER BY r.position
     LIMIT ${limit}`,
  );
}

/** The outcome for one pass of a chunk. */
export type Delivery = { passId: string } & ({ message: string } | { error: string });

/**
 * Records a chunk's deliveries and sets `latestMessage` on the passes messaged, in one
 * statement: a pass that already has a delivery row for the batch is skipped (not messaged
 * again). Also adds the chunk's failures to the batch's `errorCount`.
 * @returns How many deliveries were new, and how many of them failed.
 */
export async function recordDeliveries(tx: PrismaExecutor, batch: BatchRow, deliveries: Delivery[], now: Date): Promise<{ inserted: number; failed: number }> {
  const [row] = await tx.$queryRaw<{ inserted: number; failed: number }[]>`
    WITH input AS (
      SELECT * FROM unnest(${deliveries.map((d) => d.passId)}::uuid[],
                           ${deliveries.map((d) => ('message' in d ? 'sent' : 'failed'))}::text[],
                           ${deliveries.map((d) => ('message' in d ? d.message : null))}::varchar[],
                           ${deliveries.map((d) => ('error' in d ? d.error : null))}::varchar[]) AS t(pass_id, status, message, error)),
    inserted AS (
      INSERT INTO batch_deliveries (batch_id, pass_id, account_id, status, message, error, created_at)
      SELECT ${batch.id}::uuid, pass_id, ${batch.accountId}::uuid, status::batch_delivery_status, message, error, ${now} FROM input
      ON CONFLICT (batch_id, pass_id) DO NOTHING
      RETURNING pass_id, status, message),
    messaged AS (
      UPDATE passes p SET latest_message = i.message, updated_at = ${now}
        FROM inserted i WHERE p.id = i.pass_id AND i.status = 'sent'),
    counted AS (
      UPDATE batches SET error_count = error_count + (SELECT count(*) FROM inserted WHERE status = 'failed'), updated_at = ${now}
       WHERE id = ${batch.id}::uuid)
    SELECT (SELECT count(*) FROM inserted)::int AS inserted, (SELECT count(*) FROM inserted WHERE status = 'failed')::int AS failed`;
  return { inserted: row!.inserted, failed: row!.failed };
}

/**
 * Deliveries of a batch by outcome: messages stored (`sent`), of which `pushFailed` could reach
 * none of the pass's wallets and `pending` are still to be pushed; messages that could not be
 * stored (`failed`).
 */
export async function deliveryCounts(
  tx: PrismaExecutor,
  batchId: string,
): Promise<{ sent: number; failed: number; pushFailed: number; pending: number; wallets: number }> {
  const row = await queryRow<{ sent: number; failed: number; pushFailed: number; pending: number; wallets: number }>(
    tx,
    Prisma.sql`
    SELECT count(*) FILTER (WHERE status = 'sent')::int AS sent, count(*) FILTER (WHERE status = 'failed')::int AS failed,
           count(*) FILTER (WHERE status = 'sent' AND devices > 0)::int AS wallets,
           count(*) FILTER (WHERE status = 'sent' AND push_error IS NOT NULL)::int AS push_failed,
           count(*) FILTER (WHERE status = 'sent' AND pushed_at IS NULL)::int AS pending
      FROM batch_deliveries WHERE batch_id = ${batchId}::uuid`,
  );
  return row!;
}

/** Passes whose message is stored but not pushed yet, at most `limit`. */
export async function selectPendingPushes(prisma: PrismaExecutor, batchId: string, limit: number): Promise<string[]> {
  const rows = await queryRows<{ passId: string }>(
    prisma,
    Prisma.sql`
    SELECT pass_id::text AS pass_id FROM batch_deliveries
     WHERE batch_id = ${batchId}::uuid AND status = 'sent' AND pushed_at IS NULL
     ORDER BY pass_id LIMIT ${limit}`,
  );
  return rows.map((r) => r.passId);
}

/** What pushing one pass's message achieved. */
export interface PushResult {
  passId: string;
  /** Devices reached. */
  devices: number;
  /** Why no wallet of the pass could be reached, when it has some and none was; else null. */
  error: string | null;
}

/** Records the pushes of deliveries, in one statement. */
export async function recordPushes(prisma: PrismaExecutor, batchId: string, results: PushResult[], now: Date): Promise<void> {
  if (!results.length) return;
  await prisma.$executeRaw`
    UPDATE batch_deliveries d SET pushed_at = ${now}, devices = t.devices, push_error = t.error
      FROM unnest(${results.map((r) => r.passId)}::uuid[], ${results.map((r) => r.devices)}::int[], ${results.map((r) => r.error)}::varchar[])
           AS t(pass_id, devices, error)
     WHERE d.batch_id = ${batchId}::uuid AND d.pass_id = t.pass_id`;
}

/** One row of a batch's errors (the contract's BatchErrorsCsv). */
export interface BatchErrorRow {
  recipient: string;
  passId: string | null;
  extId: string | null;
  error: string;
}

/**
 * The recipients of a batch that were not messaged: listed recipients refused by validation or
 * whose delivery failed or whose push reached none of their wallets, by position; for a segment
 * batch, such deliveries by pass id.
 */
export function selectBatchErrors(prisma: PrismaExecutor, batch: BatchRow): Promise<BatchErrorRow[]> {
  if (batch.segmentTags.length) {
    return queryRows<BatchErrorRow>(
      prisma,
      Prisma.sql`
      SELECT d.pass_id::text AS recipient, d.pass_id::text AS pass_id, p.ext_id, COALESCE(d.error, d.push_error) AS error
        FROM batch_deliveries d JOIN passes p ON p.id = d.pass_id
       WHERE d.batch_id = ${batch.id}::uuid AND (d.status = 'failed' OR d.push_error IS NOT NULL)
       ORDER BY d.pass_id`,
    );
  }
  return queryRows<BatchErrorRow>(
    prisma,
    Prisma.sql`
    SELECT r.pass_ref AS recipient, r.pass_id::text AS pass_id, p.ext_id, COALESCE(r.error, d.error, d.push_error) AS error
      FROM batch_recipients r
      LEFT JOIN passes p ON p.id = r.pass_id
      LEFT JOIN batch_deliveries d ON d.batch_id = r.batch_id AND d.pass_id = r.pass_id AND r.error IS NULL
     WHERE r.batch_id = ${batch.id}::uuid AND (r.error IS NOT NULL OR d.status = 'failed' OR d.push_error IS NOT NULL)
     ORDER BY r.position`,
  );
}

/**
 * Batches whose sending job should be running: validating, sending, or scheduled with
 * `scheduledAt` reached (the work in flight of the `wallet-messaging` queue).
 */
export function selectBatchesInFlight(prisma: PrismaExecutor, now: Date): Promise<{ id: string }[]> {
  return prisma.batch.findMany({
    where: { type: 'walletMessaging', OR: [{ status: { in: ['validating', 'sending'] } }, { status: 'scheduled', scheduledAt: { lte: now } }] },
    select: { id: true },
  });
}

const FINISHED: BatchStatus[] = ['successful', 'completedWithErrors', 'failed'];

/**
 * The contract's `walletCount` of wallet messaging batches, by batch id (BatchAttributes): for a
 * finished batch, its deliveries that reached a device or Google object; before, its recipients'
 * passes (listed, or in its segments) that are in a wallet now (`added_at` set, `removed_at`
 * not); null while `validating` or when cancelled; pass batches are left out.
 * One query per kind of batch, whatever the number of batches.
 */
export async function selectWalletCounts(prisma: PrismaExecutor, batches: BatchRow[]): Promise<Map<string, number | null>> {
  const counts = new Map<string, number | null>();
  const messaging = batches.filter((b) => b.type === 'walletMessaging');
  const finished = messaging.filter((b) => FINISHED.includes(b.status)).map((b) => b.id);
  const listed = messaging.filter((b) => !FINISHED.includes(b.status) && !b.segmentTags.length && (b.status === 'scheduled' || b.status === 'sending'));
  const segments = messaging.filter((b) => !FINISHED.includes(b.status) && b.segmentTags.length && (b.status === 'scheduled' || b.status === 'sending'));
  for (const b of messaging) counts.set(b.id, null);
  if (finished.length) {
    const rows = await queryRows<{ batchId: string; count: number }>(
      prisma,
      Prisma.sql`
      SELECT batch_id::text AS batch_id, count(*) FILTER (WHERE status = 'sent' AND devices > 0)::int AS count
        FROM batch_deliveries WHERE batch_id = ANY(${finished}::uuid[]) GROUP BY batch_id`,
    );
    for (const id of finished) counts.set(id, 0);
    for (const r of rows) counts.set(r.batchId, r.count);
  }
  if (listed.length) {
    const ids = listed.map((b) => b.id);
    const rows = await queryRows<{ batchId: string; count: number }>(
      prisma,
      Prisma.sql`
      SELECT r.batch_id::text AS batch_id, count(DISTINCT p.id)::int AS count
        FROM batch_recipients r JOIN passes p ON p.id = r.pass_id
       WHERE r.batch_id = ANY(${ids}::uuid[]) AND r.error IS NULL AND p.added_at IS NOT NULL AND p.removed_at IS NULL AND p.status <> 'nullified'
       GROUP BY r.batch_id`,
    );
    for (const id of ids) counts.set(id, 0);
    for (const r of rows) counts.set(r.batchId, r.count);
  }
  for (const b of segments) {
    const [row] = await prisma.$queryRaw<{ count: number }[]>`
      SELECT count(*)::int AS count FROM passes
       WHERE account_id = ${b.accountId}::uuid AND group_tags && ${b.segmentTags}::varchar[] AND status <> 'nullified'
         AND added_at IS NOT NULL AND removed_at IS NULL`;
    counts.set(b.id, row!.count);
  }
  return counts;
}
