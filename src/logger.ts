/**
 * Structured JSON logging with pino. Secrets never reach a log line: credentials in headers and
 * the body members that carry secrets are redacted by path, and pass ids (capabilities) are
 * shortened wherever they are logged as `passId` or in a request URL (src/http/redact.ts). With
 * tracing on (src/telemetry/tracing.ts), a line written inside a span carries its `trace_id`,
 * `span_id` and `trace_flags` (OpenTelemetry, "Trace Context in non-OTLP Log Formats",
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

/** Characters of a pass id a log line keeps (a UUID's first group: enough to tell passes apart in a log). */
export const LOGGED_ID_LENGTH = 8;

/**
 * `id` as a log line may hold it: its first {@link LOGGED_ID_LENGTH} characters and `…` when it is
 * longer. A pass UUID is the holder's capability (README, "The holder page": `/passes/<pass id>`
 * needs no API key), so whoever reads the logs must not get it whole (OWASP Logging Cheat Sheet,
 * "Data to exclude": "access tokens", https://cheatsheetseries.owasp.org/cheatsheets/Logging_Cheat_Sheet.html).
 */
export function shortenId(id: string): string {
  return id.length > LOGGED_ID_LENGTH ? `${id.slice(0, LOGGED_ID_LENGTH)}…` : id;
}

/** pino serializers (https://getpino.io/#/docs/api?id=serializers-object): members logged by key that hold a pass id. */
export const SERIALIZERS = {
  passId: (id: unknown) => (typeof id === 'string' ? shortenId(id) : id),
};

/**
 * Creates the root logger: JSON lines (https://getpino.io), with {@link REDACTED_PATHS} censored
 * and pass ids shortened ({@link SERIALIZERS}). `npm run dev` pipes them through pino-pretty.
 * @param level Minimum level written.
 * @param destination Where lines go (stdout by default; tests pass a capturing stream).
 */
export function createLogger(level: LogLevel, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      base: { service: 'wallet-pass-service' },
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      serializers: SERIALIZERS,
      timestamp: pino.stdTimeFunctions.isoTime,
      ...(tracingEnabled() ? { mixin: activeTraceFields } : {}),
    },
    destination,
  );
}
