/**
 * What the rest of the service knows of OpenTelemetry (https://opentelemetry.io/docs/languages/js/):
 * whether tracing is on, the service's tracer, and the helpers that make its own spans (requests,
 * PGlite statements, jobs, APNs pushes, outbound requests), carry a trace through a job's payload
 * and give log lines their `trace_id`. It imports only `@opentelemetry/api`, whose calls do nothing
 * until an SDK registers itself; the SDK is loaded by src/telemetry/register.ts only when
 * `OTEL_EXPORTER_OTLP_ENDPOINT` is set. Code on a hot path asks {@link tracingEnabled} once, when it
 * is built, and adds nothing at all when tracing is off.
 *
 * No span attribute carries a secret, a token or a whole pass id: statements are recorded as
 * parameterised text with literals replaced ({@link sanitizeStatement}), URLs without their query
 * and with every UUID shortened to its first 8 characters ({@link redactUrlForSpan}), and request
 * spans name their contract operation and path template, never the path as sent.
 *
 * @module telemetry/tracing
 */
import {
  context,
  propagation,
  ROOT_CONTEXT,
  SpanStatusCode,
  trace,
  type Context,
  type Span,
  type SpanOptions,
  type TextMapGetter,
  type Tracer,
} from '@opentelemetry/api';

/** The instrumentation scope of the service's own spans and metrics. */
export const INSTRUMENTATION_SCOPE = 'wallet-pass-service';

let enabled = false;
let flush: () => Promise<void> = async () => {};

/** Whether the OpenTelemetry SDK was started in this process (src/telemetry/register.ts). */
export function tracingEnabled(): boolean {
  return enabled;
}

/**
 * Marks tracing as on; called once by src/telemetry/sdk.ts after the SDK started.
 * @param shutdown Exports what is still buffered and stops the SDK.
 */
export function markTracingStarted(shutdown: () => Promise<void>): void {
  enabled = true;
  flush = shutdown;
}

/** Exports the spans and metrics still buffered and stops the SDK; resolves at once when tracing is off. Never rejects. */
export function shutdownTelemetry(): Promise<void> {
  return flush().catch(() => undefined);
}

/** The service's tracer (a no-op one until the SDK registers a provider). */
export function serviceTracer(): Tracer {
  return trace.getTracer(INSTRUMENTATION_SCOPE);
}

/** Whether a span is active in the current context (statements and outbound calls are traced only inside one). */
export function hasActiveSpan(): boolean {
  return trace.getSpan(context.active()) !== undefined;
}

/**
 * Runs `work` in a new active span, which ends when `work` settles: a rejection is recorded on
 * the span (exception event, status ERROR) and rethrown.
 */
export function inSpan<T>(name: string, options: SpanOptions, work: (span: Span) => Promise<T>, parent: Context = context.active()): Promise<T> {
  return serviceTracer().startActiveSpan(name, options, parent, async (span) => {
    try {
      return await work(span);
    } catch (error) {
      failSpan(span, error);
      throw error;
    } finally {
      span.end();
    }
  });
}

/**
 * Records an error on a span: an exception event with the error's type and message (URLs in it
 * without their query, every UUID in it shortened, as {@link redactUrlForSpan} does; no stack),
 * status ERROR, `error.type`.
 */
export function failSpan(span: Span, error: unknown): void {
  const err = error instanceof Error ? error : new Error(String(error));
  const message = err.message.replace(/\bhttps?:\/\/[^\s'"]+/g, (url) => redactUrlForSpan(url)).replace(UUID, shortUuid);
  span.recordException({ name: err.name, message });
  span.setStatus({ code: SpanStatusCode.ERROR, message });
  span.setAttribute('error.type', err.name);
}

/**
 * The ids of the active span, as log lines carry them (OpenTelemetry, "Trace Context in
 * non-OTLP Log Formats", https://opentelemetry.io/docs/specs/otel/compatibility/logging_trace_context/):
 * `trace_id`, `span_id` (lower-case hex) and `trace_flags`; empty when no span is active.
 */
export function activeTraceFields(): Record<string, string> {
  const span = trace.getSpan(context.active());
  if (!span) return {};
  const { traceId, spanId, traceFlags } = span.spanContext();
  return { trace_id: traceId, span_id: spanId, trace_flags: `0${traceFlags.toString(16)}`.slice(-2) };
}

const UUID = /[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}/g;
/** A UUID cut to its first 8 characters. */
const shortUuid = (uuid: string): string => `${uuid.slice(0, 8)}…`;

/** The W3C Trace Context headers (`traceparent`, `tracestate`) of a trace, as a job's payload keeps them. */
export type TraceCarrier = Record<string, string>;

/** The W3C Trace Context of the active span (https://www.w3.org/TR/trace-context/), or undefined when none is active. */
export function injectTraceContext(): TraceCarrier | undefined {
  if (!hasActiveSpan()) return undefined;
  const carrier: TraceCarrier = {};
  propagation.inject(context.active(), carrier);
  return carrier.traceparent ? carrier : undefined;
}

/** Reads a carrier's or a request's headers (header names are lower-case in Node). */
const headerGetter: TextMapGetter<Record<string, string | string[] | undefined>> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => carrier[key.toLowerCase()],
};

/** The context a carrier (job payload, request headers) continues; the root context when it carries none. */
export function extractTraceContext(carrier: Record<string, string | string[] | undefined> | undefined): Context {
  return carrier ? propagation.extract(ROOT_CONTEXT, carrier, headerGetter) : ROOT_CONTEXT;
}

/** The longest statement text a span keeps, in characters. */
const STATEMENT_MAX = 4096;
/** Sanitised statements by their text: statements come from a bounded set of templates. */
const sanitized = new Map<string, string>();
const SANITIZED_MAX = 1_000;
/**
 * String literals (`'…'` with `''` escapes, `E'…'`), dollar-quoted strings (`$tag$…$tag$`) and
 * numbers that are not part of a name or a `$n` placeholder.
 */
const LITERALS = /(?:(?<!\w)[eE])?'(?:[^'\\]|''|\\.)*'|\$([A-Za-z_]\w*)?\$[\s\S]*?\$\1\$|(?<![\w$.])-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?\b/g;

/**
 * A statement as a span records it (`db.query.text`): its text with every literal replaced by `?`
 * (OpenTelemetry semantic conventions, "Sanitization of db.query.text",
 * https://opentelemetry.io/docs/specs/semconv/database/database-spans/#sanitization-of-dbquerytext),
 * so that values written into a statement never reach a span; parameters (`$1`…) are never
 * recorded. Cut to {@link STATEMENT_MAX} characters.
 */
export function sanitizeStatement(sql: string): string {
  let text = sanitized.get(sql);
  if (text === undefined) {
    text = sql.replace(LITERALS, '?').replace(/\s+/g, ' ').trim().slice(0, STATEMENT_MAX);
    if (sanitized.size < SANITIZED_MAX) sanitized.set(sql, text);
  }
  return text;
}

/** The first keyword of a statement, upper-cased (select, with or begin become SELECT, WITH, BEGIN): `db.operation.name`. */
export function statementOperation(sql: string): string {
  const match = /^\s*([A-Za-z]+)/.exec(sql);
  return match ? match[1]!.toUpperCase() : 'QUERY';
}

/**
 * A URL (or a path) as a span may carry it: without its query and fragment, which may hold
 * credentials (signed image URLs, webhook tokens), and with every UUID shortened to its first 8
 * characters (a pass id in a holder-page or pass-file path is the holder's credential).
 */
export function redactUrlForSpan(url: string): string {
  const end = url.search(/[?#]/);
  const path = end < 0 ? url : url.slice(0, end);
  return path.replace(UUID, shortUuid);
}
