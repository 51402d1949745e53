/**
 * The relay of the pass-change outbox (src/domain/passes/passChanges.ts): the one module that
 * turns announced pass changes into `pass-changed` jobs (src/delivery/passChangedJob.ts: APNs pushes
 * and Google Wallet object writes) and webhook events (src/domain/webhooks/webhookEvents.ts).
 *
 * A row is relayed — deleted, and in the same transaction its pass's `pass-changed` job queued
 * (when it must be pushed or synced) and its event recorded for the subscriptions the change
 * selected, with the pass as `getPass` shows it in `included` — exactly once: whoever deletes it
 * relays it.
 *
 * - **At once**, in the process that made the change: the ids of the rows a transaction wrote are
 *   said after its commit (src/db/afterCommit.ts), and the relay takes those rows before the
 *   request answers. Every process relays its own changes, whether or not it works jobs.
 * - **Later**, when that did not happen (the process died between the commit and the relay, or
 *   the relay's transaction failed): a process that works jobs takes rows older than
 *   {@link RELAY_AFTER_SECONDS} at its start and every {@link RELAY_INTERVAL_MS}, 100 at a time,
 *   skipping rows another process holds (`FOR UPDATE SKIP LOCKED`). The event then carries the
 *   pass as it is when relayed.
 *
 * @module delivery/passChangeRelay
 */
import type { BackgroundTask, Runtime } from '../deps.ts';
import { PASS_CHANGES_CHANNEL } from '../domain/passes/passChanges.ts';
import { deletePassChanges, takePendingPassChanges, type PassChangeEntry } from '../domain/passes/passChangeOutboxStore.ts';
import { findPassesByUuid, type PassRow } from '../domain/passes/passStore.ts';
import { serializePass } from '../domain/passes/serializePass.ts';
import { recordWebhookEvent, serviceBaseUrl } from '../domain/webhooks/webhookEvents.ts';
import type { SqlExecutor } from '../db/database.ts';
import { sendPassChangedJobs } from './passChangedJob.ts';

/** Rows younger than this, in seconds, are left to the process that wrote them. */
export const RELAY_AFTER_SECONDS = 5;
/** How often a process that works jobs relays the outbox's older rows, in ms. */
export const RELAY_INTERVAL_MS = 5_000;
/** The most rows one relay transaction takes. */
const RELAY_BATCH = 100;

type RelayDependencies = Pick<Runtime, 'db' | 'jobs' | 'config' | 'logger'>;

/**
 * Delivers taken outbox rows in the caller's transaction: the `pass-changed` jobs of those to
 * push, in one statement, and each row's webhook event for its subscriptions, with its pass (a
 * row whose pass is gone records nothing).
 */
async function deliver(tx: SqlExecutor, deps: RelayDependencies, entries: readonly PassChangeEntry[]): Promise<void> {
  if (!entries.length) return;
  const passes = new Map<string, PassRow>((await findPassesByUuid(tx, [...new Set(entries.map((entry) => entry.passId))])).map((pass) => [pass.id, pass]));
  const pushed = entries.filter((entry) => entry.push && passes.has(entry.passId));
  if (pushed.length) await sendPassChangedJobs(tx, deps.jobs, [...new Set(pushed.map((entry) => entry.passId))]);
  const baseUrl = serviceBaseUrl(deps.config);
  for (const entry of entries) {
    const pass = passes.get(entry.passId);
    if (!pass || !entry.eventType || !entry.subscriptionIds.length) continue;
    await recordWebhookEvent(tx, deps, {
      accountId: entry.accountId,
      entityId: entry.entityId,
      type: entry.eventType,
      subject: { relationship: 'pass', type: 'pass', id: pass.id },
      at: entry.occurredAt,
      subscriptionIds: entry.subscriptionIds,
      resource: () => serializePass(pass, baseUrl),
    });
  }
}

/**
 * Relays the given outbox rows now, in one transaction (those another process relayed already
 * are skipped).
 * @throws What the database or the job queue throws (the rows stay for the later relay).
 */
export async function relayPassChanges(deps: RelayDependencies, outboxIds: readonly string[]): Promise<void> {
  await deps.db.writeSql(async (tx) => deliver(tx, deps, await deletePassChanges(tx, outboxIds)));
}

/**
 * Relays the rows older than {@link RELAY_AFTER_SECONDS} (by the database clock), up to
 * {@link RELAY_BATCH} per transaction, until none is left.
 * @returns How many rows were relayed.
 * @throws What the database or the job queue throws (the batch is rolled back and retried on the next round).
 */
export async function relayPendingPassChanges(deps: RelayDependencies): Promise<number> {
  let relayed = 0;
  for (;;) {
    const taken = await deps.db.writeSql(async (tx) => {
      const entries = await takePendingPassChanges(tx, RELAY_AFTER_SECONDS, RELAY_BATCH);
      await deliver(tx, deps, entries);
      return entries.length;
    });
    relayed += taken;
    if (taken < RELAY_BATCH) return relayed;
  }
}

/**
 * The relay of a process: it relays the changes this process commits as soon as they commit
 * (from its creation), and, once started (src/runtime.ts `startJobs`, in processes that work
 * jobs), what is left in the outbox — at start, so that a change committed just before a crash is
 * delivered once a worker is back, and then every `intervalMs`. A failed round is logged and
 * tried again on the next.
 * @param options.intervalMs Time between rounds (default {@link RELAY_INTERVAL_MS}).
 */
export function createPassChangeRelay(deps: RelayDependencies, options: { intervalMs?: number } = {}): BackgroundTask {
  deps.db.commits.on(PASS_CHANGES_CHANNEL, async (said) => {
    const outboxIds = (said as string[][]).flat();
    await relayPassChanges(deps, outboxIds).catch((error: unknown) =>
      deps.logger.warn({ err: error, outboxIds }, 'the pass change is committed; the outbox relay will deliver it'),
    );
  });
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  let started = false;
  let stopped = false;
  const round = () => {
    running = relayPendingPassChanges(deps).then(
      (relayed) => void (relayed && deps.logger.info({ relayed }, 'relayed pass changes left in the outbox')),
      (error: unknown) => deps.logger.error({ err: error }, 'relaying the pass-change outbox failed; trying again'),
    );
    return running;
  };
  const schedule = () => {
    timer = setTimeout(() => void round().then(() => !stopped && schedule()), options.intervalMs ?? RELAY_INTERVAL_MS);
    timer.unref();
  };
  return {
    start() {
      if (started || stopped) return;
      started = true;
      void round().then(() => !stopped && schedule());
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
