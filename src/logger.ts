/**
 * Structured JSON logging with pino. Secrets never reach a log line: credentials in headers and
 * the body members that carry secrets are redacted by path. With tracing on
 * (src/telemetry/tracing.ts), a line written inside a span carries its `trace_id`, `span_id` and
 * `trace_flags` (OpenTelemetry, "Trace Context in non-OTLP Log Formats",
 * https://opentelemetry.io/docs/specs/otel/compatibility/logging_trace_context/); with tracing off
 * the logger is built without that step.
 *
 * @module logger
 */
import { pino, type Logger, type DestinationStream } from 'pino';
import type { LogLevel } from './config.ts';
import { activeTraceFields, tracingEnabled } from './telemetry/tracing.ts';

export type { Logger };

/** Paths pino censors wherever they appear in a log object. */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-api-key"]',
  'res.headers["set-cookie"]',
  'password',
  '*.password',
  'token',
  '*.token',
];

/**
 * Creates the root logger.
 * @param level Minimum level written.
 * @param destination Where lines go (stdout by default; tests pass a capturing stream).
 */
export function createLogger(level: LogLevel, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      base: { service: 'wallet-pass-service' },
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      timestamp: pino.stdTimeFunctions.isoTime,
      ...(tracingEnabled() ? { mixin: activeTraceFields } : {}),
    },
    destination,
  );
}
