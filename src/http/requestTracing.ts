/**
 * A server span per request, when tracing is on (src/telemetry/tracing.ts): named by the
 * operationId of the contract operation the request is for (`updateLoyalty`), or by its method
 * when it matches none; attributes `http.request.method`, `http.route` (the contract's path
 * template, `/api/v1/loyalty/{id}`: never the path as sent, whose pass id may be a holder's
 * credential), `url.scheme`, `network.protocol.version` and `http.response.status_code`; status
 * ERROR on a 5xx (OpenTelemetry semantic conventions, "HTTP server spans",
 * https://opentelemetry.io/docs/specs/semconv/http/http-spans/#http-server). A request carrying a
 * W3C `traceparent` (https://www.w3.org/TR/trace-context/) continues that trace. The span is
 * active for everything the request does — its statements, the jobs it queues, its log lines —
 * and the duration is recorded in the `http.server.request.duration` histogram (seconds).
 * Liveness and readiness probes are not traced.
 *
 * The app mounts it only when tracing is on, first, so that the request and response emitters are
 * bound to the span's context before any listener is added to them (body parsing, the request log).
 *
 * @module http/requestTracing
 */
import type { RequestHandler } from 'express';
import { context, metrics, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { extractTraceContext, INSTRUMENTATION_SCOPE, serviceTracer } from '../telemetry/tracing.ts';
import type { PathMatch } from './routes.ts';

/** Paths never traced: the probes, polled every few seconds. */
const UNTRACED = new Set(['/healthz', '/readyz']);

/**
 * The request tracing middleware (see the module).
 * @param match The contract's path matcher (src/http/routes.ts `pathMatcher`).
 */
export function traceRequests(match: (path: string) => PathMatch | undefined): RequestHandler {
  const tracer = serviceTracer();
  const duration = metrics.getMeter(INSTRUMENTATION_SCOPE).createHistogram('http.server.request.duration', {
    unit: 's',
    description: 'Duration of HTTP server requests.',
  });
  return (req, res, next) => {
    if (UNTRACED.has(req.path)) return next();
    const served = match(req.path)?.operation(req.method);
    const operationId = served?.operation.operationId;
    const common = { 'http.request.method': req.method, 'url.scheme': req.protocol, ...(served ? { 'http.route': served.path } : {}) };
    const parent = extractTraceContext(req.headers);
    const span = tracer.startSpan(
      operationId ?? req.method,
      { kind: SpanKind.SERVER, attributes: { ...common, 'network.protocol.version': req.httpVersion } },
      parent,
    );
    const active = trace.setSpan(parent, span);
    context.bind(active, req);
    context.bind(active, res);
    const started = performance.now();
    const end = () => {
      res.off('finish', end);
      res.off('close', end);
      span.setAttribute('http.response.status_code', res.statusCode);
      if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      if (!res.writableFinished) span.setAttribute('error.type', 'aborted');
      span.end();
      duration.record((performance.now() - started) / 1000, { ...common, 'http.response.status_code': res.statusCode });
    };
    res.on('finish', end);
    res.on('close', end);
    context.with(active, next);
  };
}
