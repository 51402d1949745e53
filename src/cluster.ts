/**
 * Several server processes on one port (`WEB_CONCURRENCY`, src/config.ts), with Node's cluster
 * module (https://nodejs.org/docs/latest-v20.x/api/cluster.html): the primary process forks the
 * server processes and hands out connections; each runs the whole service (src/server.ts) with
 * its own database pool, job workers and APNs sessions. What must be shared between them lives in
 * PostgreSQL (rate limits, API key revocations, the job queue), so that processes on other
 * machines against the same database behave alike.
 *
 * The primary serves nothing itself. It logs `listening` once every process listens; a process
 * that cannot start stops the others and the primary exits with its code (1 or 2, as a single
 * process would); a process that dies later is replaced (at most 5 times a minute, then the
 * primary stops everything and exits 1); SIGTERM or SIGINT is passed to every process, and the
 * primary exits 0 once they all stopped gracefully. A process whose primary disappears (kill -9)
 * exits at once (Node's cluster does this for workers whose IPC channel closes).
 *
 * Readiness: the primary tells every process once all of them listen (`started`), and each
 * replacement once it listens; until then a process's `/readyz` answers 503, since the primary
 * hands connections to every process that listens, a starting one included. Metrics: `/metrics`
 * answers at once with the processes that listen (the asking one and every other that answers
 * within 2 s), not waiting for one that is still starting.
 *
 * @module cluster
 */
import cluster, { type Worker } from 'node:cluster';
import { randomUUID } from 'node:crypto';
import { AggregatorRegistry, type MetricObjectWithValues, type MetricValue, type Registry } from 'prom-client';
import type { Logger } from './logger.ts';
import { exitAfterLogFlush } from './shutdown.ts';

/** What a server process tells the primary once it listens. */
export interface ListeningMessage {
  type: 'listening';
  url: string;
}

/** The primary tells a server process that every process has started (it may say it is ready). */
interface StartedMessage {
  type: 'started';
}

/** One process's metrics, as prom-client's `Registry.getMetricsAsJSON()` answers them. */
type MetricsJson = MetricObjectWithValues<MetricValue<string>>[];

/**
 * A server process asks the primary for every process's metrics, sending its own along; the
 * answer has the same id.
 */
interface MetricsRequest {
  type: 'metrics';
  id: string;
  own: MetricsJson;
}
interface MetricsAnswer {
  type: 'metrics';
  id: string;
  text?: string;
  error?: string;
}
/** The primary asks a listening process for its metrics; the answer has the same id. */
interface CollectRequest {
  type: 'metrics-collect';
  id: string;
}
interface CollectAnswer {
  type: 'metrics-collected';
  id: string;
  metrics: MetricsJson;
}

/** How long a process waits for the primary's aggregated metrics, in ms. */
const METRICS_TIMEOUT_MS = 5_000;
/** How long the primary waits for each other process's metrics before answering without them, in ms. */
const COLLECT_TIMEOUT_MS = 2_000;

/** Replacements allowed within {@link RESTART_WINDOW_MS} before the primary gives up. */
const MAX_RESTARTS = 5;
const RESTART_WINDOW_MS = 60_000;

/** Whether this process is one of the cluster's server processes (not the primary). */
export function isClusterWorker(): boolean {
  return cluster.isWorker;
}

/** Set when the primary says every process has started (always true outside a cluster). */
let everyProcessStarted = !cluster.isWorker;

/**
 * Whether the whole service has started: outside a cluster always; in a server process once the
 * primary said that every process listens (or, for a replacement, that it listens itself).
 */
export function clusterStarted(): boolean {
  return everyProcessStarted;
}

/**
 * Tells the primary that this server process listens at `url`, and answers the primary's requests
 * for this process's `metrics` (no-op outside a cluster).
 */
export function reportListening(url: string, metrics: Registry): void {
  if (!cluster.isWorker) return;
  process.on('message', (message: StartedMessage | CollectRequest) => {
    if (message?.type === 'started') everyProcessStarted = true;
    if (message?.type !== 'metrics-collect') return;
    const { id } = message;
    void metrics.getMetricsAsJSON().then(
      (json) => process.send?.({ type: 'metrics-collected', id, metrics: json as MetricsJson } satisfies CollectAnswer),
      () => undefined, // the primary answers without this process after its timeout
    );
  });
  process.send?.({ type: 'listening', url } satisfies ListeningMessage);
}

/**
 * The metrics of every server process that listens, aggregated by the primary (prom-client's
 * `AggregatorRegistry.aggregate`: counters and histograms summed, gauges marked `first` taken
 * once): this process's own, and those of the others that answer the primary within 2 s.
 * @param own This process's registry.
 * @throws Error when the primary does not answer within 5 s.
 */
export async function clusterMetrics(own: Registry): Promise<string> {
  const id = randomUUID();
  const ownJson = (await own.getMetricsAsJSON()) as MetricsJson;
  return new Promise((resolve, reject) => {
    const onMessage = (message: MetricsAnswer) => {
      if (message?.type !== 'metrics' || message.id !== id) return;
      done();
      if (message.text !== undefined) resolve(message.text);
      else reject(new Error(`The cluster's metrics could not be read: ${message.error}`));
    };
    const timer = setTimeout(() => {
      done();
      reject(new Error('The cluster primary did not answer with the metrics within 5 s.'));
    }, METRICS_TIMEOUT_MS);
    const done = () => {
      clearTimeout(timer);
      process.off('message', onMessage);
    };
    process.on('message', onMessage);
    process.send?.({ type: 'metrics', id, own: ownJson } satisfies MetricsRequest);
  });
}

/**
 * Collects the metrics of `workers` (the primary's side): each one's answer, or nothing from one
 * that does not answer within 2 s.
 */
function collectMetrics(workers: Worker[]): Promise<MetricsJson[]> {
  return Promise.all(
    workers.map(
      (worker) =>
        new Promise<MetricsJson | undefined>((resolve) => {
          const id = randomUUID();
          const onMessage = (message: CollectAnswer) => {
            if (message?.type !== 'metrics-collected' || message.id !== id) return;
            done();
            resolve(message.metrics);
          };
          const timer = setTimeout(() => {
            done();
            resolve(undefined);
          }, COLLECT_TIMEOUT_MS);
          const done = () => {
            clearTimeout(timer);
            worker.off('message', onMessage);
          };
          worker.on('message', onMessage);
          if (!worker.isConnected() || !worker.send({ type: 'metrics-collect', id } satisfies CollectRequest)) {
            done();
            resolve(undefined);
          }
        }),
    ),
  ).then((answers) => answers.filter((answer): answer is MetricsJson => answer !== undefined));
}

/**
 * Runs the primary of `processes` server processes (this same entry point, forked) until they
 * stop; never resolves (the process exits).
 */
export function runPrimary(processes: number, logger: Logger): void {
  let stopping = false;
  let started = false;
  /** The exit code once every process is gone (set when stopping). */
  let exitCode = 0;
  /** Processes not yet gone (our own count: `cluster.workers` drops a process before its 'exit'). */
  const alive = new Map<number, Worker>();
  const listening = new Set<number>();
  const restarts: number[] = [];

  // The log is written asynchronously to a pipe: flush it before the process ends.
  const exit = () => exitAfterLogFlush(logger, exitCode);
  const stopAll = (code: number) => {
    stopping = true;
    exitCode = code;
    for (const worker of alive.values()) worker.process.kill('SIGTERM');
  };

  const fork = (): Worker => {
    const worker = cluster.fork();
    alive.set(worker.id, worker);
    worker.on('message', (message: ListeningMessage | MetricsRequest) => {
      if (message?.type === 'metrics') {
        const { id, own } = message;
        const answer = (reply: MetricsAnswer) => worker.isConnected() && worker.send(reply);
        const others = [...listening].filter((other) => other !== worker.id).flatMap((other) => alive.get(other) ?? []);
        collectMetrics(others)
          .then((collected) => AggregatorRegistry.aggregate([own, ...collected]).metrics())
          .then(
            (text) => answer({ type: 'metrics', id, text }),
            (error: Error) => answer({ type: 'metrics', id, error: error.message }),
          );
        return;
      }
      if (message?.type !== 'listening') return;
      listening.add(worker.id);
      if (started) worker.send({ type: 'started' } satisfies StartedMessage);
      else if (listening.size === processes) {
        started = true;
        for (const other of listening) alive.get(other)?.send({ type: 'started' } satisfies StartedMessage);
        logger.info({ url: message.url, docs: `${message.url}/docs`, processes }, 'listening');
      }
    });
    return worker;
  };

  cluster.on('exit', (worker, code, signal) => {
    alive.delete(worker.id);
    const wasListening = listening.delete(worker.id);
    if (stopping) {
      logger.info({ pid: worker.process.pid, code, signal }, 'server process stopped');
      if (alive.size === 0) exit();
      return;
    }
    if (!started || !wasListening) {
      // A process that could not start: the others could not either (same configuration).
      logger.fatal({ pid: worker.process.pid, code, signal }, 'a server process could not start; stopping');
      stopAll(code || 1);
      if (alive.size === 0) exit();
      return;
    }
    const now = Date.now();
    restarts.push(now);
    while (restarts.length && restarts[0]! < now - RESTART_WINDOW_MS) restarts.shift();
    if (restarts.length > MAX_RESTARTS) {
      logger.fatal({ restarts: restarts.length }, 'server processes keep dying; stopping');
      stopAll(1);
      if (alive.size === 0) exit();
      return;
    }
    logger.error({ pid: worker.process.pid, code, signal }, 'a server process died; starting another');
    fork();
  });

  // Installed for good: a Ctrl-C reaches the primary and every process (one process group), and
  // `npm start` forwards it once more; a second signal must not end the primary while its
  // processes drain (src/shutdown.ts).
  const shutdown = (signal: NodeJS.Signals) => {
    if (stopping) return;
    logger.info({ signal, processes: alive.size }, 'shutting down');
    stopAll(0);
  };
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);

  for (let i = 0; i < processes; i++) fork();
}
