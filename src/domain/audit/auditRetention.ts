/**
 * Retention of the audit log: events older than `AUDIT_RETENTION_DAYS` (default 400) are
 * deleted by the `audit-retention` job, which keeps every chain verifiable: per account, in one
 * transaction, the head records the hash and position of the newest deleted event as its anchor
 * (the `prevHash` the oldest kept event follows), then the events up to it are deleted — the
 * only deletion the append-only trigger lets through, in a transaction that set
 * `wps.audit_prune` (prisma/README.md). `npm run admin -- audit verify` verifies a pruned chain
 * from its first kept event on.
 *
 * The job runs once a day: each run enqueues the next, 24 hours later, under one singleton key,
 * and every worker start enqueues one (coalesced into the queued one).
 *
 * @module domain/audit/auditRetention
 */
import type { Database } from '../../db/database.ts';
import { pruneChainsBefore } from './auditStore.ts';
import { sealAuditChains } from './auditSeal.ts';
import { defineJob } from '../../jobs/jobDefinition.ts';
import type { Runtime } from '../../deps.ts';

const DAY_MS = 86_400_000;

/**
 * Deletes the events that occurred before `now` − `retentionDays`, account by account, moving
 * each head's anchor to the newest deleted event.
 * @returns How many events were deleted.
 */
export async function pruneAuditEvents(db: Pick<Database, 'sql' | 'writeSql'>, now: Date, retentionDays: number): Promise<number> {
  const cutoff = new Date(now.getTime() - retentionDays * DAY_MS);
  // An event is pruned with its place in the chain: seal what is not sealed yet first.
  await sealAuditChains(db);
  return db.writeSql((tx) => pruneChainsBefore(tx, cutoff));
}

/** The `audit-retention` queue: one run a day (see the module comment). */
export const auditRetentionJob = defineJob<Record<string, never>, Runtime>({
  name: 'audit-retention',
  settings: { policy: 'stately', retryLimit: 5, retryDelay: 60, retryBackoff: true, expireInSeconds: 3600, deleteAfterSeconds: 7 * 24 * 3600 },
  singletonKey: () => 'audit-retention',
  // One at every worker start, coalesced into a queued one.
  inFlight: async () => [{}],
  async run(_job, runtime) {
    const deleted = await pruneAuditEvents(runtime.db, runtime.clock.now(), runtime.config.auditRetentionDays);
    await runtime.db.writeSql((tx) => runtime.jobs.send(tx, auditRetentionJob, {}, { startAfterSeconds: 24 * 3600, singletonKey: 'audit-retention' }));
    return { deleted };
  },
  async onLastAttemptFailed() {},
});
