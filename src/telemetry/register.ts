/**
 * The telemetry bootstrap, imported first by src/server.ts and src/worker.ts: with
 * `OTEL_EXPORTER_OTLP_ENDPOINT` set (and `OTEL_SDK_DISABLED` not `true`), it loads and starts the
 * OpenTelemetry SDK (src/telemetry/sdk.ts) before the service opens anything; otherwise it loads
 * nothing, and tracing costs nothing (src/telemetry/tracing.ts).
 *
 * It reads `process.env` itself, before the configuration is loaded (src/config.ts), because the
 * SDK must be running before the first database connection and request. It works the same under
 * tsx and as compiled JavaScript (a relative dynamic import, rewritten to `.js` by tsc).
 *
 * @module telemetry/register
 */

/** Whether the environment asks for traces and metrics. */
export function telemetryRequested(env: NodeJS.ProcessEnv): boolean {
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim()) && env.OTEL_SDK_DISABLED?.trim().toLowerCase() !== 'true';
}

if (telemetryRequested(process.env)) {
  const { startTelemetry } = await import('./sdk.ts');
  startTelemetry(process.env);
}
