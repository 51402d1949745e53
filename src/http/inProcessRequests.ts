/**
 * Requests run through the app in-process: one operation of the contract served on behalf of
 * another request, through every middleware an HTTP request passes (authentication, body checks,
 * contract validation, rate limit, the handler with its idempotency, request log, tracing, the
 * error handler), without a socket, HTTP parsing or a JSON round trip.
 *
 * The request is a Node.js `IncomingMessage` on a stand-in socket that carries the address and
 * TLS state of the request it is made for (so `req.ip`, `TRUST_PROXY` and the failed-attempt
 * counting see the same client), with the `Host` and `X-Forwarded-*` headers of that request (so
 * links are absolute in the same way). A JSON body is given parsed: it is set as `req.body`, and
 * the body parser, which leaves a request whose stream is finished alone (body-parser
 * `read`, on-finished `isFinished`), does not read it; every check after the parser sees it as
 * it sees a parsed body. Other bodies (a `multipart/form-data` upload) are streamed through the
 * request as bytes. The response is a `ServerResponse` whose `write` and `end` are captured:
 * the status, headers, bytes, and the value the handler gave `res.json` (so the caller need not
 * parse the JSON it would otherwise get as text).
 *
 * With tracing on, the active trace context is propagated as `traceparent`, so the operation's
 * span is a child of the caller's (https://www.w3.org/TR/trace-context/).
 *
 * Bench: `npm run bench -- mcp` (a tool call against the same HTTP request).
 *
 * @module http/inProcessRequests
 */
import { markRequestChannel } from './requestChannel.ts';
import { type IncomingHttpHeaders, IncomingMessage, type OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { context, propagation } from '@opentelemetry/api';
import type { Express } from 'express';

/** A request to run in-process. */
export interface InProcessRequest {
  /** Upper-case method. */
  method: string;
  /** Path and query, percent-encoded as on the wire. */
  url: string;
  /** Request headers, lower-case names; `Authorization` among them when the operation needs it. */
  headers: Record<string, string>;
  /** A JSON body, parsed (sent as `application/json` unless `headers` say otherwise). */
  json?: unknown;
  /** Any other body as bytes, with its `Content-Type` in `headers`. */
  bytes?: Buffer;
}

/** The response of an in-process request. */
export interface InProcessResponse {
  status: number;
  headers: OutgoingHttpHeaders;
  /** The bytes of the body (empty without one). */
  body: Buffer;
  /**
   * The value the app last gave `res.json` (or, when none did, the JSON body parsed), when the
   * response is JSON (`application/json`, `…+json`); `undefined` otherwise.
   */
  json: unknown;
}

/** What {@link dispatchInProcess} copies from the request it acts for. */
export interface OnBehalfOf {
  headers: IncomingHttpHeaders;
  socket: { remoteAddress?: string; encrypted?: boolean } | null;
}

/** Headers of the request acted for that the app reads to know its client and its own URL. */
const CLIENT_HEADERS = ['host', 'x-forwarded-for', 'x-forwarded-proto', 'x-forwarded-host', 'accept-language'] as const;

/**
 * Runs `request` through `app`.
 * @param app An app built by src/app.ts `createApp`.
 * @param onBehalfOf The request this one is made for (its client address, TLS state and
 *   client headers are copied).
 * @returns The response, once the app has ended it.
 * @throws Error when the app passes the request on unanswered (it never does: its error
 *   handler answers everything), or when it throws outside its error handling.
 */
export function dispatchInProcess(app: Express, onBehalfOf: OnBehalfOf, request: InProcessRequest): Promise<InProcessResponse> {
  const socket = {
    remoteAddress: onBehalfOf.socket?.remoteAddress,
    encrypted: onBehalfOf.socket?.encrypted === true,
    readable: false,
    writable: true,
    destroyed: false,
  };
  const req = new IncomingMessage(socket as never);
  // The audit log names the channel (src/http/requestChannel.ts): in-process requests are the MCP server's tool calls.
  markRequestChannel(req, 'mcp');
  req.method = request.method;
  req.url = request.url;
  req.httpVersion = '1.1';
  req.httpVersionMajor = 1;
  req.httpVersionMinor = 1;
  const headers: IncomingHttpHeaders = {};
  for (const name of CLIENT_HEADERS) {
    const value = onBehalfOf.headers[name];
    if (typeof value === 'string') headers[name] = value;
  }
  Object.assign(headers, request.headers);
  propagation.inject(context.active(), headers);
  if (request.json !== undefined) {
    headers['content-type'] ??= 'application/json';
    // A body is there (type-is `hasBody`); its length is not known without serialising it.
    headers['transfer-encoding'] = 'chunked';
    (req as IncomingMessage & { body?: unknown }).body = request.json;
    req.complete = true;
    req.push(null);
  } else if (request.bytes !== undefined) {
    headers['content-length'] = String(request.bytes.length);
    req.push(request.bytes);
    req.push(null);
    req.complete = true;
  } else {
    req.complete = true;
    req.push(null);
  }
  req.headers = headers;

  return new Promise<InProcessResponse>((resolve, reject) => {
    const res = new ServerResponse(req);
    const chunks: Buffer[] = [];
    let json: unknown;
    const toBuffer = (chunk: unknown, encoding?: unknown): Buffer =>
      Buffer.isBuffer(chunk)
        ? chunk
        : typeof chunk === 'string'
          ? Buffer.from(chunk, (typeof encoding === 'string' ? encoding : 'utf8') as BufferEncoding)
          : Buffer.from(chunk as Uint8Array);
    // Own properties: Express replaces the response's prototype with its own (app.handle).
    const captured = res as ServerResponse & { json?: (body: unknown) => unknown };
    Object.assign(captured, {
      write(chunk: unknown, encoding?: unknown, callback?: () => void): boolean {
        if (chunk != null) chunks.push(toBuffer(chunk, encoding));
        if (typeof encoding === 'function') (encoding as () => void)();
        else callback?.();
        return true;
      },
      end(chunk?: unknown, encoding?: unknown, callback?: () => void): ServerResponse {
        if (res.writableEnded) return res;
        if (chunk != null && typeof chunk !== 'function') chunks.push(toBuffer(chunk, encoding));
        if (!res.headersSent) res.writeHead(res.statusCode);
        res.finished = true;
        const body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
        const contentType = String(res.getHeader('content-type') ?? '');
        const isJson = /[/+]json\b/.test(contentType);
        resolve({
          status: res.statusCode,
          headers: res.getHeaders(),
          body,
          json: isJson ? (json ?? (body.length ? JSON.parse(body.toString('utf8')) : undefined)) : undefined,
        });
        res.emit('prefinish');
        res.emit('finish');
        res.emit('close');
        const done = [chunk, encoding, callback].find((a) => typeof a === 'function') as (() => void) | undefined;
        done?.();
        return res;
      },
    });
    // Express's `res.json` (the prototype's, set by app.handle), remembering the value.
    captured.json = function (this: { json: (body: unknown) => unknown }, body: unknown) {
      json = body;
      return (Object.getPrototypeOf(this) as { json: (body: unknown) => unknown }).json.call(this, body);
    };
    try {
      app(req as never, res as never, (error?: unknown) => {
        if (!res.writableEnded) reject(error instanceof Error ? error : new Error(`${request.method} ${request.url} was not answered in-process`));
      });
    } catch (error) {
      reject(error);
    }
  });
}
