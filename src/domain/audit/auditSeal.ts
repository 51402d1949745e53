/**
 * Sealing the audit log: an event is written with its change, in the change's own statement or
 * transaction, without a place in its account's chain (`seq`, `prev_hash` and `hash` null:
 * src/domain/audit/auditStore.ts); once it has committed, the sealer gives it the next place and
 * its hash, `sha256(previous hash || canonical event)` (src/domain/audit/auditEvent.ts).
 *
 * Why after the commit: a chain is one sequence per account, so whatever gives an event its place
 * must be serialised per account. Done in the change's transaction, that lock was held until the
 * change committed (its WAL flush included), so every change of an account waited for the one
 * before it: measured on `PATCH /api/v1/loyalty/{id}` (one statement without the audit log), 63–69 %
 * of its capacity lost (`npm run bench -- passesAndLoyalty`). The sealer takes the lock only to
 * seal, many events at a time, and no request waits for it.
 *
 * What the chain proves is unchanged: a sealed event cannot be changed, removed or inserted
 * before another without breaking the chain (the append-only trigger lets an unsealed event be
 * sealed once and nothing else: prisma/README.md). Events are sealed in the order they occurred
 * as far as the sealer sees them committed; one that commits after a later event was sealed takes
 * the next place (its place is its sealing order, its time stays its time).
 *
 * When: each process seals the accounts whose events it wrote as soon as they commit
 * ({@link createAuditSealer}, on the `audit-events` after-commit channel); anything else that
 * reads the chain seals first (`GET /api/v1/audit-events`, the administration API's events, the
 * retention job), so a process that died before sealing leaves nothing unsealed for long and no
 * reader ever sees an event without its place.
 *
 * @module domain/audit/auditSeal
 */
import type { Database } from '../../db/database.ts';
import type { BackgroundTask } from '../../deps.ts';
import type { Logger } from '../../logger.ts';
import { accountsWithUnsealedEvents, sealBatch } from './auditSealStore.ts';

/** The after-commit channel (src/db/afterCommit.ts) on which a write says which account's chain has an event to seal. */
export const AUDIT_EVENTS_CHANNEL = 'audit-events';

/** The most events one sealing transaction takes. */
const SEAL_BATCH = 1000;

/**
 * Seals the committed unsealed events of one account, oldest first, in transactions of up to
 * {@link SEAL_BATCH} events: each locks the account’s chain head (creating
 * it at position 0 when the account has none), takes the unsealed events, gives each the next
 * position and its hash, and moves the head to the last.
 * @param db The database (its write transactions).
 * @returns How many events were sealed.
 * @throws Whatever the database throws (what was sealed before stays sealed).
 */
export async function sealAuditChain(db: Pick<Database, 'writeSql'>, accountId: string): Promise<number> {
  let sealed = 0;
  for (;;) {
    const taken = await db.writeSql((tx) => sealBatch(tx, accountId, SEAL_BATCH));
    sealed += taken;
    if (taken < SEAL_BATCH) return sealed;
  }
}

/**
 * Seals every unsealed event before a reader reads the chain: of one account, or of every
 * account that has any when `accountId` is undefined. Costs one indexed look-up when there is
 * nothing to seal (the partial index `audit_events_unsealed_idx`).
 * @returns How many events were sealed.
 */
export async function sealAuditChains(db: Pick<Database, 'sql' | 'writeSql'>, accountId?: string): Promise<number> {
  const accounts = await accountsWithUnsealedEvents(db, accountId);
  let sealed = 0;
  for (const account of accounts) sealed += await sealAuditChain(db, account.accountId);
  return sealed;
}

/**
 * How long the sealer lets events of a process gather before it seals them, in ms. Sealing costs
 * a transaction of six statements whatever it seals, so it seals many at a time: under a steady
 * 170 loyalty updates a second, sealing each event on its own took ≈ 560 µs more CPU per request
 * than sealing a quarter second's (`npm run bench -- passesAndLoyalty`, BENCH_SCOPES_AUDIT_ONLY).
 * Readers seal first, so the delay never shows.
 */
const SEAL_DELAY_MS = 250;

/**
 * The sealer of a process: seals, soon after they commit ({@link SEAL_DELAY_MS}), the chains of
 * the accounts whose events this process wrote (said on {@link AUDIT_EVENTS_CHANNEL}). The
 * accounts said while a round waits or runs are sealed in it or the next, so under load one
 * round seals many events. The request that wrote an event does not wait for it. A failed round
 * is logged; its events stay unsealed until the next round of that account or the next reader
 * ({@link sealAuditChains}). `stop()` seals what is waiting at once and waits for it.
 */
export function createAuditSealer(deps: { db: Pick<Database, 'sql' | 'writeSql' | 'commits'>; logger: Logger }): BackgroundTask {
  const waiting = new Set<string>();
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  const round = async () => {
    timer = undefined;
    while (waiting.size) {
      const accounts = [...waiting];
      waiting.clear();
      for (const accountId of accounts) {
        await sealAuditChain(deps.db, accountId).catch((error: unknown) =>
          deps.logger.warn({ err: error, accountId }, 'audit events committed but not yet sealed; the next round or reader seals them'),
        );
      }
    }
    running = undefined;
  };
  deps.db.commits.on(AUDIT_EVENTS_CHANNEL, async (said) => {
    for (const accountId of said as string[]) waiting.add(accountId);
    if (!running && !timer) {
      timer = setTimeout(() => {
        running = round();
      }, SEAL_DELAY_MS);
      timer.unref();
    }
  });
  return {
    start() {},
    async stop() {
      if (timer) {
        clearTimeout(timer);
        running = round();
      }
      await running;
    },
  };
}
