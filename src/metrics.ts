/**
 * What the service measures for Prometheus (prom-client, https://github.com/siimon/prom-client;
 * exposition format: https://prometheus.io/docs/instrumenting/exposition_formats/), served by
 * `GET /metrics` (src/api/monitoring/getMetrics.ts):
 *
 * - `http_request_duration_seconds{operation,status}`: a histogram of every request's time, by
 *   the contract's operationId (`unknown` for paths the contract does not have).
 * - `wallet_delivery_attempts_total{channel,outcome}`: every APNs push (`apns`), Google Wallet
 *   call (`googleWallet`) and webhook request (`webhook`, outcomes of
 *   src/delivery/webhookDeliveryJob.ts), by outcome.
 * - `db_pool_connections{state}`: the PostgreSQL pool of each process (`total`, `idle`,
 *   `waiting` requests), read at scrape time.
 * - `job_queue_jobs{queue,state}` and `job_queue_oldest_waiting_seconds{queue}`: the job queue
 *   (pg-boss's `pgboss.job`), read from the database at scrape time.
 * - Node's process metrics (CPU, memory, event-loop delay) with the `process_`/`nodejs_` prefixes.
 *
 * With several server processes (src/cluster.ts) the primary aggregates them: counters and
 * histograms are summed over the processes, database-wide figures (the job queue) are taken from
 * one of them.
 *
 * @module metrics
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Database } from './db/database.ts';
import { selectJobQueueCounts, type JobQueueCounts } from './db/jobQueueStore.ts';

/** The metrics of one runtime (one per process in production). */
export interface ServiceMetrics {
  readonly registry: Registry;
  readonly requestDuration: Histogram<'operation' | 'status'>;
  readonly deliveryAttempts: Counter<'channel' | 'outcome'>;
}

/** Request duration buckets, in seconds: 5 ms to 10 s. */
const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** Job states counted per queue (pg-boss's `job_state`). */
const JOB_STATES = ['created', 'retry', 'active', 'failed'] as const;

/**
 * Creates the registry and metrics of a runtime.
 * @param options.processMetrics Also collect Node's process metrics (the server and worker do;
 *   tests with many runtimes in one process do not).
 */
export function createMetrics(db: Database, options: { processMetrics: boolean }): ServiceMetrics {
  const registry = new Registry();
  if (options.processMetrics) collectDefaultMetrics({ register: registry });
  const requestDuration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time to answer a request, by operationId and status.',
    labelNames: ['operation', 'status'] as const,
    buckets: DURATION_BUCKETS,
    registers: [registry],
  });
  const deliveryAttempts = new Counter({
    name: 'wallet_delivery_attempts_total',
    help: 'Attempts to deliver a change: APNs pushes, Google Wallet calls and webhook requests, by channel and outcome.',
    labelNames: ['channel', 'outcome'] as const,
    registers: [registry],
  });
  if (db.driver.kind === 'postgresql') {
    const pool = db.driver.pool;
    new Gauge({
      name: 'db_pool_connections',
      help: "Connections of this process's PostgreSQL pool (total, idle) and requests waiting for one (waiting).",
      labelNames: ['state'] as const,
      registers: [registry],
      collect() {
        this.set({ state: 'total' }, pool.totalCount);
        this.set({ state: 'idle' }, pool.idleCount);
        this.set({ state: 'waiting' }, pool.waitingCount);
      },
    });
  }
  // One query serves both job gauges at a scrape (prom-client collects each gauge in turn).
  let pending: Promise<JobQueueCounts[]> | undefined;
  const jobRows = () => (pending ??= selectJobQueueCounts(db).finally(() => setImmediate(() => (pending = undefined))));
  new Gauge({
    name: 'job_queue_jobs',
    help: 'Jobs of each queue by state (created: waiting, retry: waiting to be tried again, active, failed and kept).',
    labelNames: ['queue', 'state'] as const,
    aggregator: 'first',
    registers: [registry],
    async collect() {
      this.reset();
      for (const row of await jobRows()) for (const state of JOB_STATES) this.set({ queue: row.name, state }, row[state]);
    },
  });
  new Gauge({
    name: 'job_queue_oldest_waiting_seconds',
    help: 'Age of the oldest job of each queue that is due and waiting for a worker (0 when none).',
    labelNames: ['queue'] as const,
    aggregator: 'first',
    registers: [registry],
    async collect() {
      this.reset();
      for (const row of await jobRows()) this.set({ queue: row.name }, row.oldest);
    },
  });
  return { registry, requestDuration, deliveryAttempts };
}
