/**
 * Starts the OpenTelemetry SDK (`@opentelemetry/sdk-node`, https://opentelemetry.io/docs/languages/js/getting-started/nodejs/):
 * traces and metrics exported by OTLP over HTTP with JSON bodies
 * (`@opentelemetry/exporter-trace-otlp-http`, `@opentelemetry/exporter-metrics-otlp-http`) to
 * `OTEL_EXPORTER_OTLP_ENDPOINT` (`/v1/traces`, `/v1/metrics` appended; the other standard
 * `OTEL_*` variables apply: https://opentelemetry.io/docs/specs/otel/configuration/sdk-environment-variables/).
 * Loaded only by src/telemetry/register.ts, and only when tracing is asked for: a process without
 * it never loads the SDK.
 *
 * Instrumentations: node-postgres (`@opentelemetry/instrumentation-pg`: a span per statement on
 * PostgreSQL, inside a span of the service only, with the statement sanitised) and undici
 * (`@opentelemetry/instrumentation-undici`: `fetch`, which the Google Wallet client uses, with
 * URLs redacted). The service's own spans (src/telemetry/tracing.ts) cover requests, PGlite
 * statements, jobs, APNs pushes and outbound requests. No OTLP logs: log lines carry the trace
 * ids instead (src/logger.ts).
 *
 * @module telemetry/sdk
 */
import { createRequire } from 'node:module';
import type { Span } from '@opentelemetry/api';
import { metrics, NodeSDK } from '@opentelemetry/sdk-node';
import { BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPMetricExporter } from '@opentelemetry/exporter-metrics-otlp-http';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import { markTracingStarted, redactUrlForSpan, sanitizeStatement, statementOperation } from './tracing.ts';

/** The service name when `OTEL_SERVICE_NAME` does not give one. */
const SERVICE_NAME = 'wallet-pass-service';
/** How often metrics are exported when `OTEL_METRIC_EXPORT_INTERVAL` does not say, in ms (the SDK's default). */
const METRIC_EXPORT_INTERVAL_MS = 60_000;

/** Statement attributes of a PostgreSQL span: the sanitised text under both the current and the older semantic-convention names. */
function describeStatement(span: Span, text: string, database: string | undefined): void {
  const statement = sanitizeStatement(text);
  const operation = statementOperation(text);
  span.updateName(`pg.query:${operation}${database ? ` ${database}` : ''}`);
  span.setAttributes({ 'db.query.text': statement, 'db.statement': statement, 'db.system': 'postgresql', 'db.operation.name': operation });
}

/**
 * Starts the SDK and registers it globally; from now on the service's spans are recorded
 * (src/telemetry/tracing.ts `tracingEnabled`).
 * @param env The process environment (`OTEL_SERVICE_NAME`, `OTEL_METRIC_EXPORT_INTERVAL`; the
 *   exporters read the `OTEL_EXPORTER_OTLP_*` variables themselves).
 */
export function startTelemetry(env: NodeJS.ProcessEnv): void {
  const sdk = new NodeSDK({
    ...(env.OTEL_SERVICE_NAME ? {} : { serviceName: SERVICE_NAME }),
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())],
    metricReaders: [
      new metrics.PeriodicExportingMetricReader({
        exporter: new OTLPMetricExporter(),
        exportIntervalMillis: Number(env.OTEL_METRIC_EXPORT_INTERVAL) || METRIC_EXPORT_INTERVAL_MS,
      }),
    ],
    logRecordProcessors: [],
    instrumentations: [
      new PgInstrumentation({
        // pg-boss polls every second: only statements of a request or a job are traced.
        requireParentSpan: true,
        ignoreConnectSpans: true,
        requestHook: (span, { query, connection }) => describeStatement(span, query.text, connection.database),
      }),
      new UndiciInstrumentation({
        requireParentforSpans: true,
        startSpanHook: (request) => {
          const query = request.path.includes('?');
          return {
            'url.full': redactUrlForSpan(`${request.origin}${request.path}`),
            'url.path': redactUrlForSpan(request.path),
            'url.query': query ? '?[redacted]' : '',
          };
        },
      }),
    ],
  });
  sdk.start();
  // The instrumentations patch a CommonJS module when it is required. The service imports `pg` as
  // an ES module, which Node loads without `require`, so the patch is applied here: the prototypes
  // it wraps are those of the one `pg` every importer shares.
  const require = createRequire(import.meta.url);
  require('pg');
  // pg's own pool (not a dependency of the service): its `connect` keeps a query's context while it waits for a client.
  createRequire(require.resolve('pg'))('pg-pool');
  markTracingStarted(() => sdk.shutdown());
}
