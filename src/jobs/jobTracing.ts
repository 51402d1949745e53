/**
 * Traces through the job queue (OpenTelemetry semantic conventions, "Messaging spans",
 * https://opentelemetry.io/docs/specs/semconv/messaging/messaging-spans/): a job queued inside a
 * span (a request's, another job's) is queued in a producer span `send <queue>`, and its payload
 * carries that span's W3C Trace Context (https://www.w3.org/TR/trace-context/) in
 * {@link TRACE_CONTEXT_MEMBER}; each run of the job is a consumer span `process <queue>`, child of
 * the span that queued it, so one trace reaches from the request to the work it caused (an APNs
 * push after a loyalty update). A job queued outside any span starts a trace of its own. The
 * member is taken off the payload before the job's definition sees it. With tracing off
 * (src/telemetry/tracing.ts) nothing is added and no span is made.
 *
 * @module jobs/jobTracing
 */
import { SpanKind } from '@opentelemetry/api';
import { extractTraceContext, hasActiveSpan, injectTraceContext, inSpan, tracingEnabled, type TraceCarrier } from '../telemetry/tracing.ts';

/** The payload member that carries the trace of whoever queued the job. */
export const TRACE_CONTEXT_MEMBER = 'traceContext';

/** The messaging system, as spans name it. */
const MESSAGING_SYSTEM = 'pg-boss';

/** Adds the trace context to a payload. */
export type StampTrace = (data: object) => object;

const unchanged: StampTrace = (data) => data;

/**
 * Queues jobs of `queue` in a producer span when tracing is on and a span is active; `send` gets
 * the function that adds the span's trace context to each payload.
 * @param count How many jobs `send` queues (`messaging.batch.message_count` when more than one).
 */
export function sendingJobs<T>(queue: string, count: number, send: (stamp: StampTrace) => Promise<T>): Promise<T> {
  if (!tracingEnabled() || !hasActiveSpan()) return send(unchanged);
  const attributes = {
    'messaging.system': MESSAGING_SYSTEM,
    'messaging.destination.name': queue,
    'messaging.operation.type': 'send',
    'messaging.operation.name': 'send',
    ...(count > 1 ? { 'messaging.batch.message_count': count } : {}),
  };
  return inSpan(`send ${queue}`, { kind: SpanKind.PRODUCER, attributes }, () => {
    const carrier = injectTraceContext();
    return send(carrier ? (data) => ({ ...data, [TRACE_CONTEXT_MEMBER]: carrier }) : unchanged);
  });
}

/** A fetched job, as pg-boss gives it. */
interface FetchedJob {
  id: string;
  data: object;
  retryCount: number;
}

/**
 * Runs one job: in a consumer span `process <queue>` continuing the trace its payload carries
 * when tracing is on; `run` gets the payload without the trace context either way.
 */
export function runningJob<T>(queue: string, job: FetchedJob, run: (data: object) => Promise<T>): Promise<T> {
  let data = job.data;
  let carrier: TraceCarrier | undefined;
  if (data && TRACE_CONTEXT_MEMBER in data) {
    const { [TRACE_CONTEXT_MEMBER]: carried, ...payload } = data as Record<string, unknown>;
    carrier = carried as TraceCarrier;
    data = payload;
  }
  if (!tracingEnabled()) return run(data);
  const attributes = {
    'messaging.system': MESSAGING_SYSTEM,
    'messaging.destination.name': queue,
    'messaging.operation.type': 'process',
    'messaging.operation.name': 'process',
    'messaging.message.id': job.id,
    'messaging.pgboss.retry_count': job.retryCount,
  };
  return inSpan(`process ${queue}`, { kind: SpanKind.CONSUMER, attributes }, () => run(data), extractTraceContext(carrier));
}
