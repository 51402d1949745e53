/**
 * Delivers webhook events (src/domain/webhooks/webhookEvents.ts) to their subscriptions: one signed
 * `POST` per event and subscription, retried with exponential back-off and jitter for about a
 * day, every attempt recorded. Modelled on Documenso's webhook sender
 * (`packages/lib/server-only/webhooks/execute-webhook-call.ts`, https://github.com/documenso/documenso):
 * the URL is checked again before every request, after resolving its name
 * (src/net/outboundRequest.ts connects to the checked address, so DNS rebinding cannot reach a
 * private one), and each attempt is one stored row.
 *
 * **Signature.** `X-Webhook-Signature` is the lowercase hex HMAC-SHA256 of the raw body keyed with
 * the subscription's secret (PassEntry API reference, webhooks). Receivers that want replay
 * protection check `X-Webhook-Timestamp` (Unix seconds) and `X-Webhook-Signature-V2`, the HMAC of
 * `<timestamp>.<body>` (the scheme of Stripe's and Standard Webhooks' signatures,
 * https://www.standardwebhooks.com/). `X-Webhook-Id` is the event id (the same on every retry),
 * `X-Request-Id` new on each attempt.
 *
 * **Order.** Deliveries of one subscription with the same ordering key (the pass, or the event's
 * subject) go one at a time, oldest first: one `webhook-delivery` job per (subscription, key),
 * kept unique by pg-boss's `stately` policy (at most one queued and one active job per
 * singleton key, https://timgit.github.io/pg-boss/#/./api/queues). The job sends the oldest
 * pending delivery of its key and, while they succeed, the next ones; after a failure it records
 * when the next attempt is due and queues itself again to start then. A later delivery of the
 * key waits until the earlier one is delivered or given up. Retries are this job's own schedule
 * rather than pg-boss's retry back-off so that the delay is per delivery, has millisecond
 * resolution (`WEBHOOK_RETRY_BASE_MS`, short in tests) and survives restarts in the database.
 * pg-boss's own retries only cover a worker that died or a database error.
 *
 * @module delivery/webhookDeliveryJob
 */
import { createHmac, randomUUID } from 'node:crypto';
import type { PrismaExecutor } from '../db/database.ts';
import { defineJob } from '../jobs/jobDefinition.ts';
import { OutboundRequestError, outboundRequest } from '../net/outboundRequest.ts';
import type { Runtime } from '../deps.ts';
import {
  queueWebhookDeliveries,
  webhookDeliveryQueue,
  webhookDeliverySingletonKey,
  webhookDestinationPolicy,
  type WebhookDeliveryPayload,
} from '../domain/webhooks/webhookDeliveryQueue.ts';
import {
  countFailedDelivery,
  recordDeliveredAttempt,
  recordFailedAttempt,
  selectNextDelivery,
  selectPendingDeliveryKeys,
  type DeliveryAttempt,
  type DeliverySubscription,
  type PendingDelivery,
} from '../domain/webhooks/webhookDeliveryStore.ts';
import { webhookSecretContext } from '../security/secretContexts.ts';

/** NUL characters: PostgreSQL text cannot hold them, so a receiver's are dropped from the stored snippet. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding NUL is the point
const NUL = /\u0000/g;

/** The longest wait between two attempts of a delivery, in ms. */
export const MAX_RETRY_DELAY_MS = 3_600_000;
/** The most of a response body kept with an attempt, in bytes. */
export const RESPONSE_SNIPPET_BYTES = 1024;
/** How long one job keeps sending deliveries of its key before it hands over to a new job, in ms. */
const JOB_BUDGET_MS = 30_000;

/**
 * The wait before the next attempt after `failedAttempts` failures, in ms: exponential from
 * `baseMs` (doubling, at most {@link MAX_RETRY_DELAY_MS}) with "equal jitter" — half the step
 * fixed, half random — so that retries of many deliveries spread out while each wait stays at
 * least as long as half its step (AWS Architecture Blog, "Exponential Backoff And Jitter",
 * https://aws.amazon.com/blogs/architecture/exponential-backoff-and-jitter/).
 */
export function retryDelayMs(failedAttempts: number, baseMs: number, random: () => number = Math.random): number {
  const step = Math.min(MAX_RETRY_DELAY_MS, baseMs * 2 ** Math.min(30, Math.max(0, failedAttempts - 1)));
  return Math.round(step / 2 + (step / 2) * random());
}

/** The lowercase hex HMAC-SHA256 of `body` keyed with `secret` (`X-Webhook-Signature`). */
export function signWebhookBody(secret: string, body: string): string {
  return createHmac('sha256', secret).update(body).digest('hex');
}

/** The lowercase hex HMAC-SHA256 of `<timestamp>.<body>` (`X-Webhook-Signature-V2`). */
export function signWebhookTimestampedBody(secret: string, timestamp: string, body: string): string {
  return createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest('hex');
}

type Subscription = DeliverySubscription;

/** The stored attempt of a request that gave `result`. */
function attemptOf(
  subscriptionId: string,
  delivery: PendingDelivery,
  requestId: string,
  result: AttemptResult,
  nextAttemptAt: Date | null,
  at: Date,
): DeliveryAttempt {
  const { outcome, status, responseSnippet, error, durationMs } = result;
  return {
    subscriptionId,
    deliveryId: delivery.id,
    attempt: delivery.attempts + 1,
    requestId,
    outcome,
    status,
    responseSnippet,
    error,
    durationMs,
    nextAttemptAt,
    at,
  };
}

/** What one request gave. */
interface AttemptResult {
  outcome: 'delivered' | 'httpError' | 'timeout' | 'networkError' | 'refused';
  status: number;
  responseSnippet: string | null;
  error: string | null;
  durationMs: number;
}

/** Makes one request of a delivery. Never throws for what the receiver or the network does. */
async function attempt(runtime: Runtime, subscription: Subscription, delivery: PendingDelivery, requestId: string): Promise<AttemptResult> {
  const secret = runtime.secrets.decrypt(subscription.secretEncrypted, webhookSecretContext(subscription.id));
  const timestamp = String(Math.floor(runtime.clock.now().getTime() / 1000));
  const started = performance.now();
  const duration = () => Math.round(performance.now() - started);
  try {
    const response = await outboundRequest({
      method: 'POST',
      url: subscription.url,
      headers: {
        'Content-Type': 'application/json',
        'User-Agent': 'wallet-pass-service-webhooks/1',
        'X-Webhook-Signature': signWebhookBody(secret, delivery.payload),
        'X-Webhook-Signature-V2': signWebhookTimestampedBody(secret, timestamp, delivery.payload),
        'X-Webhook-Timestamp': timestamp,
        'X-Webhook-Id': delivery.eventId,
        'X-Request-Id': requestId,
      },
      body: delivery.payload,
      timeoutMs: runtime.config.webhookTimeoutMs,
      maxBodyBytes: RESPONSE_SNIPPET_BYTES,
      truncate: true,
      maxRedirects: 0,
      policy: webhookDestinationPolicy(runtime.config),
      resolve: runtime.resolveHost,
    });
    const text = response.body
      .toString('utf8')
      .replace(NUL, '')
      .replace(/\uFFFD$/, '');
    return {
      outcome: response.status >= 200 && response.status < 300 ? 'delivered' : 'httpError',
      status: response.status,
      responseSnippet: text.length ? text.slice(0, RESPONSE_SNIPPET_BYTES) : null,
      error: null,
      durationMs: duration(),
    };
  } catch (error) {
    const code = error instanceof OutboundRequestError ? error.code : 'network_error';
    const outcome = code === 'timeout' ? 'timeout' : code === 'network_error' || code === 'too_large' ? 'networkError' : 'refused';
    return { outcome, status: 0, responseSnippet: null, error: String((error as Error).message ?? error).slice(0, 500), durationMs: duration() };
  }
}

/**
 * The `webhook-delivery` queue: one job per (subscription, ordering key) at a time (`stately`);
 * up to 50 keys sent at once per worker. A job active for 2 minutes belongs to a dead worker and
 * is run again (its delivery, not yet marked delivered, is sent again: at least once). At every
 * worker start each key with pending deliveries of an enabled subscription gets a job (coalesced
 * with the one it has), so that deliveries whose job ended for good — its retries spent on
 * database errors — are taken up again.
 */
export const webhookDeliveryJob = defineJob<WebhookDeliveryPayload, Runtime>({
  name: webhookDeliveryQueue.name,
  settings: {
    policy: 'stately',
    retryLimit: 20,
    retryDelay: 5,
    retryBackoff: true,
    retryDelayMax: 600,
    expireInSeconds: 120,
    deleteAfterSeconds: 7 * 24 * 3600,
    notify: true,
    batchSize: 50,
  },
  singletonKey: webhookDeliverySingletonKey,
  inFlight: ({ db }) => selectPendingDeliveryKeys(db.prisma),
  async run(job, runtime) {
    const { subscriptionId } = job.data;
    const started = Date.now();
    let delivered = 0;
    for (;;) {
      const { subscription, head, more } = await selectNextDelivery(runtime.db.prisma, job.data);
      // Deleted: its deliveries went with it. Disabled: they wait until it is enabled again.
      if (!subscription?.enabled) return { subscriptionId, delivered, skipped: subscription ? 'disabled' : 'deleted' };
      if (!head) return { subscriptionId, delivered };
      const waitMs = head.nextAttemptAt.getTime() - runtime.clock.now().getTime();
      if (waitMs > 0 || Date.now() - started > JOB_BUDGET_MS) {
        await runtime.db.write((tx) => queueWebhookDeliveries(tx, runtime.jobs, [job.data], Math.max(0, waitMs) / 1000));
        return { subscriptionId, delivered, waitingMs: Math.max(0, waitMs) };
      }
      const requestId = randomUUID();
      const result = await attempt(runtime, subscription, head, requestId);
      runtime.metrics.deliveryAttempts.inc({ channel: 'webhook', outcome: result.outcome });
      if (result.outcome === 'delivered') {
        await recordDeliveredAttempt(runtime.db.prisma, attemptOf(subscription.id, head, requestId, result, null, runtime.clock.now()));
        delivered++;
        if (!more) return { subscriptionId, delivered };
        continue;
      }
      // The attempt, its outcome and the job of the next attempt commit together: a crash loses none of them.
      const outcome = await runtime.db.write(async (tx) => {
        const decided = await recordFailure(tx, runtime, subscription.id, head, requestId, result);
        if (decided.retryAfterMs !== null) await queueWebhookDeliveries(tx, runtime.jobs, [job.data], decided.retryAfterMs / 1000);
        return decided;
      });
      if (outcome.retryAfterMs !== null) return { subscriptionId, delivered, retryAfterMs: outcome.retryAfterMs };
      if (outcome.disabled) return { subscriptionId, delivered, disabled: true };
    }
  },
});

/**
 * Stores a failed attempt and what it decides: another attempt (when); or, past the retry
 * window, the delivery failed — and after `WEBHOOK_DISABLE_AFTER_FAILURES` failed deliveries in a
 * row, the subscription disabled with the reason.
 * @returns When to try again (null: not again), and whether the subscription was disabled.
 */
async function recordFailure(
  tx: PrismaExecutor,
  runtime: Runtime,
  subscriptionId: string,
  delivery: PendingDelivery,
  requestId: string,
  result: AttemptResult,
): Promise<{ retryAfterMs: number | null; disabled: boolean }> {
  const now = runtime.clock.now();
  const attemptNumber = delivery.attempts + 1;
  const { webhookRetryBaseMs, webhookRetryWindowMs, webhookDisableAfterFailures } = runtime.config;
  let retryAfterMs: number | null = null;
  let status: 'pending' | 'failed' = 'failed';
  const deadline = delivery.createdAt.getTime() + webhookRetryWindowMs;
  if (now.getTime() < deadline) {
    status = 'pending';
    retryAfterMs = Math.min(retryDelayMs(attemptNumber, webhookRetryBaseMs), deadline - now.getTime());
  }
  const nextAttemptAt = retryAfterMs === null ? null : new Date(now.getTime() + retryAfterMs);
  await recordFailedAttempt(tx, attemptOf(subscriptionId, delivery, requestId, result, nextAttemptAt, now), status);
  if (status === 'pending') return { retryAfterMs, disabled: false };
  const last = result.status ? `the last answered ${result.status}` : `the last got no answer (${result.outcome})`;
  const reason = `Disabled after ${webhookDisableAfterFailures} deliveries in a row failed; ${last}.`;
  const disabled = await countFailedDelivery(tx, subscriptionId, webhookDisableAfterFailures, reason, now);
  if (disabled) runtime.logger.warn({ subscriptionId, reason }, 'webhook subscription disabled');
  return { retryAfterMs: null, disabled };
}
