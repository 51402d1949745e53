/**
 * The pass-change outbox: how a change of a pass made by one autocommit statement still reaches
 * wallets and webhook subscriptions exactly once, without holding the pass's row lock across a
 * transaction (the transactional outbox pattern, https://microservices.io/patterns/data/transactional-outbox.html).
 *
 * The statement that changes the pass also selects where the change must go — Apple devices
 * registered for the pass or Google Wallet credentials of its account ({@link deliveryTargetsSql}),
 * the subscriptions of its webhook event ({@link subscriptionIdsSql}) — and, when it must go
 * anywhere, inserts one `pass_change_outbox` row, all in the same statement
 * ({@link passChangeOutboxSql}). So the change and the duty to deliver it commit together, and a
 * change nobody must hear of is that one statement and nothing else.
 *
 * The row is relayed — deleted, and in the same transaction the `pass-changed` job queued
 * (src/delivery/passChanged.ts) and the webhook event recorded (src/delivery/webhookEvents.ts) —
 * by the request that made the change, right after the statement ({@link relayPassChange}), with
 * the pass as the statement returned it; or, when that did not happen (the process died between
 * the two, or the relay's transaction failed), by the relay of a process that works jobs, which
 * takes rows older than {@link RELAY_AFTER_SECONDS} every {@link RELAY_INTERVAL_MS}
 * ({@link createPassChangeRelay}; the event then carries the pass as it is when relayed). The
 * delete decides who relays a row: whoever deletes it, once.
 *
 * @module resources/passes/passChangeOutbox
 */
import type { SqlExecutor } from '../../db/database.ts';
import { Prisma } from '../../../generated/prisma/client.ts';
import { deliveryTargetsSql, sendPassChangedJobs } from '../../delivery/passChanged.ts';
import { serviceBaseUrl, subscriptionIdsSql, type WebhookEventScope } from '../../delivery/webhookEvents.ts';
import type { Runtime } from '../../runtime.ts';
import { recordPassEvent, type PassEventType } from './passWebhooks.ts';
import { findPassesByUuid, type PassRow } from './passStore.ts';

/** Rows younger than this, in seconds, are left to the request that wrote them. */
export const RELAY_AFTER_SECONDS = 5;
/** How often a process that works jobs relays the outbox's older rows, in ms. */
export const RELAY_INTERVAL_MS = 5_000;
/** The most rows one relay transaction takes. */
const RELAY_BATCH = 100;

/** The change's event, as the outbox row keeps it. */
export interface PassChangeEvent {
  accountId: string;
  type: PassEventType;
  /** When the change happened (the service clock): the event's `timeStamp`. */
  at: Date;
}

/**
 * Two common table expressions for a statement whose CTE `changed` holds the changed pass (its
 * `passes` row): `routed` — `changed`'s rows with `devices`, `google` ({@link deliveryTargetsSql})
 * and `subscription_ids` (a `text[]`) — and `outbox`, the outbox row it inserted (`id`), or none
 * when the change goes nowhere. The statement selects `(SELECT id::text FROM outbox)` and hands
 * it to {@link relayPassChange}. To be joined into the statement's `WITH` list after `changed`.
 */
export function passChangeOutboxSql(event: PassChangeEvent): Prisma.Sql {
  return Prisma.sql`
    routed AS (
      SELECT c.*, ${deliveryTargetsSql('c')}, ${subscriptionIdsSql(event.accountId, event.type, null)} AS subscription_ids
        FROM changed c),
    outbox AS (
      INSERT INTO pass_change_outbox (account_id, pass_id, push, event_type, subscription_ids, occurred_at)
      SELECT r.account_id, r.id, r.devices > 0 OR r.google, ${event.type}, r.subscription_ids::uuid[], ${event.at}
        FROM routed r
       WHERE r.devices > 0 OR r.google OR cardinality(r.subscription_ids) > 0
      RETURNING id)`;
}

/** An outbox row, as relayed. */
interface OutboxEntry {
  accountId: string;
  passId: string;
  push: boolean;
  eventType: PassEventType;
  subscriptionIds: string[];
  occurredAt: Date;
}

const ENTRY_COLUMNS = Prisma.raw(`account_id::text AS "accountId", pass_id::text AS "passId", push, event_type AS "eventType",
  COALESCE(subscription_ids::text[], '{}') AS "subscriptionIds", occurred_at AS "occurredAt"`);

/**
 * Relays one outbox row in the caller's transaction: deletes it, queues the pass's `pass-changed`
 * job when it must be pushed or synced, and records its webhook event for its subscriptions with
 * `pass` in `included`. Nothing, when the outbox relay took the row first.
 * @param scope The job queue and the base of links (the request's).
 * @param pass The pass as the change left it (the statement's row).
 */
export async function relayPassChange(tx: SqlExecutor, scope: WebhookEventScope & { baseUrl: string }, outboxId: string, pass: PassRow): Promise<void> {
  const entries = await tx.$queryRaw<OutboxEntry[]>`DELETE FROM pass_change_outbox WHERE id = ${outboxId}::uuid RETURNING ${ENTRY_COLUMNS}`;
  await deliver(tx, scope, entries, new Map([[pass.id, pass]]));
}

/**
 * Delivers taken outbox rows: the `pass-changed` jobs of those to push, in one statement, and
 * each row's webhook event with its pass from `passes` (a row whose pass is missing records none).
 */
async function deliver(tx: SqlExecutor, scope: WebhookEventScope & { baseUrl: string }, entries: OutboxEntry[], passes: Map<string, PassRow>): Promise<void> {
  const pushed = entries.filter((entry) => entry.push && passes.has(entry.passId));
  if (pushed.length) await sendPassChangedJobs(tx, scope.jobs, pushed.map((entry) => entry.passId));
  for (const entry of entries) {
    const pass = passes.get(entry.passId);
    if (!pass || !entry.subscriptionIds.length) continue;
    await recordPassEvent(tx, scope, { type: entry.eventType, accountId: entry.accountId, pass, at: entry.occurredAt, subscriptionIds: entry.subscriptionIds });
  }
}

/**
 * Relays the outbox rows older than {@link RELAY_AFTER_SECONDS} (by the database clock), up to
 * {@link RELAY_BATCH} at a time, in one transaction each, skipping rows another process holds
 * (`FOR UPDATE SKIP LOCKED`), until none is left: their passes read in one statement and their
 * jobs queued in one. A row whose pass is gone is dropped.
 * @returns How many rows were relayed.
 * @throws What the database or the job queue throws (the batch is rolled back and retried on the next round).
 */
export async function relayPendingPassChanges(runtime: Pick<Runtime, 'db' | 'jobs' | 'config'>): Promise<number> {
  const scope = { jobs: runtime.jobs, baseUrl: serviceBaseUrl(runtime.config) };
  let relayed = 0;
  for (;;) {
    const taken = await runtime.db.writeSql(async (tx) => {
      const entries = await tx.$queryRaw<OutboxEntry[]>`
        DELETE FROM pass_change_outbox WHERE id IN (
          SELECT id FROM pass_change_outbox
           WHERE created_at < now() - make_interval(secs => ${RELAY_AFTER_SECONDS})
           ORDER BY created_at LIMIT ${RELAY_BATCH} FOR UPDATE SKIP LOCKED)
        RETURNING ${ENTRY_COLUMNS}`;
      if (entries.length) {
        const passes = await findPassesByUuid(tx, [...new Set(entries.map((entry) => entry.passId))]);
        await deliver(tx, scope, entries, new Map(passes.map((pass) => [pass.id, pass])));
      }
      return entries.length;
    });
    relayed += taken;
    if (taken < RELAY_BATCH) return relayed;
  }
}

/** The outbox relay of a process ({@link createPassChangeRelay}). */
export interface PassChangeRelay {
  /** Relays what is pending now, then every interval, until `stop()`. Idempotent. */
  start(): void;
  /** Stops the rounds and waits for a running one. Idempotent. */
  stop(): Promise<void>;
}

/**
 * The relay a process that works jobs runs (src/runtime.ts `startJobs`): a round of
 * {@link relayPendingPassChanges} at start — a change committed just before a crash is delivered
 * once a worker is back — and then every `intervalMs`. A failed round is logged and tried again
 * on the next.
 * @param options.intervalMs Time between rounds (default {@link RELAY_INTERVAL_MS}).
 */
export function createPassChangeRelay(runtime: Pick<Runtime, 'db' | 'jobs' | 'config' | 'logger'>, options: { intervalMs?: number } = {}): PassChangeRelay {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  let started = false;
  let stopped = false;
  const round = () => {
    running = relayPendingPassChanges(runtime).then(
      (relayed) => void (relayed && runtime.logger.info({ relayed }, 'relayed pass changes left in the outbox')),
      (error: unknown) => runtime.logger.error({ err: error }, 'relaying the pass-change outbox failed; trying again'),
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
