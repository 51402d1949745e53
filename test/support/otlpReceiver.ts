/**
 * A stand-in for an OpenTelemetry collector's OTLP/HTTP receiver (the outside edge of tracing):
 * it accepts `POST /v1/traces` and `POST /v1/metrics` with JSON bodies, as
 * `@opentelemetry/exporter-trace-otlp-http` and `@opentelemetry/exporter-metrics-otlp-http` send
 * them (OTLP specification, "OTLP/HTTP", https://opentelemetry.io/docs/specs/otlp/#otlphttp),
 * answers 200 with an empty export response, and keeps every span received, flattened, with its
 * attributes as plain values. Anything else gets 404; a body that is not JSON, 400.
 *
 * Usage:
 *   const collector = await startOtlpReceiver();
 *   // run a process with OTEL_EXPORTER_OTLP_ENDPOINT=collector.url
 *   const spans = collector.spans.filter((s) => s.traceId === id);
 *   await collector.close();
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One span as received, flattened. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  /** Empty for a root span. */
  parentSpanId: string;
  name: string;
  /** OTLP's SpanKind number: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  attributes: Record<string, unknown>;
  /** OTLP's status code: 0 unset, 1 ok, 2 error. */
  statusCode: number;
  /** The `service.name` of the resource that sent it. */
  serviceName: unknown;
  /** The instrumentation scope that made it. */
  scope: string;
}

/** The running stand-in. */
export interface OtlpReceiver {
  /** `http://127.0.0.1:<port>`: what `OTEL_EXPORTER_OTLP_ENDPOINT` is set to. */
  url: string;
  /** Every span received, in order of arrival. */
  spans: ReceivedSpan[];
  /** How many metric export requests arrived. */
  metricExports: number;
  /** The raw JSON bodies of every request, for assertions over everything sent. */
  bodies: string[];
  close(): Promise<void>;
}

/** An OTLP JSON `AnyValue` as a plain value. */
function plain(value: Record<string, unknown> | undefined): unknown {
  if (!value) return undefined;
  if ('stringValue' in value) return value.stringValue;
  if ('intValue' in value) return Number(value.intValue);
  if ('doubleValue' in value) return value.doubleValue;
  if ('boolValue' in value) return value.boolValue;
  if ('arrayValue' in value) return ((value.arrayValue as { values?: Record<string, unknown>[] }).values ?? []).map(plain);
  return value;
}

/** OTLP JSON key-value pairs as an object. */
function attributesOf(list: { key: string; value: Record<string, unknown> }[] | undefined): Record<string, unknown> {
  return Object.fromEntries((list ?? []).map(({ key, value }) => [key, plain(value)]));
}

/** OTLP/JSON ids are hex (the specification); base64, as protobuf's JSON mapping writes bytes, is converted. */
function hexId(id: string | undefined): string {
  if (!id) return '';
  return /^[0-9a-f]+$/i.test(id) ? id.toLowerCase() : Buffer.from(id, 'base64').toString('hex');
}

/** The spans of one export request. */
function spansOf(body: any): ReceivedSpan[] {
  return (body.resourceSpans ?? []).flatMap((resourceSpans: any) => {
    const serviceName = attributesOf(resourceSpans.resource?.attributes)['service.name'];
    return (resourceSpans.scopeSpans ?? []).flatMap((scopeSpans: any) =>
      (scopeSpans.spans ?? []).map(
        (span: any): ReceivedSpan => ({
          traceId: hexId(span.traceId),
          spanId: hexId(span.spanId),
          parentSpanId: hexId(span.parentSpanId),
          name: span.name,
          kind: span.kind,
          attributes: attributesOf(span.attributes),
          statusCode: span.status?.code ?? 0,
          serviceName,
          scope: scopeSpans.scope?.name ?? '',
        }),
      ),
    );
  });
}

/** Starts the stand-in on 127.0.0.1 and a free port. */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const receiver = { spans: [] as ReceivedSpan[], metricExports: 0, bodies: [] as string[] };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const path = (req.url ?? '').split('?')[0];
      if (req.method !== 'POST' || (path !== '/v1/traces' && path !== '/v1/metrics')) return void res.writeHead(404).end();
      const text = Buffer.concat(chunks).toString('utf8');
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        return void res.writeHead(400).end();
      }
      receiver.bodies.push(text);
      if (path === '/v1/traces') receiver.spans.push(...spansOf(body));
      else receiver.metricExports++;
      res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(receiver, {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}
