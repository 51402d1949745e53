/**
 * The HTTP server around the app (Node.js `http.Server`): time limits on slow clients, JSON:API
 * answers to what Node's own parser refuses, and listening with a clear error when the port is
 * taken.
 *
 * Time limits (Node.js docs, `http.createServer` options): the request headers must arrive within
 * `headersTimeoutMs` and the whole request, body included, within `requestTimeoutMs`; Node checks
 * every `connectionsCheckingInterval`. A client that is too slow gets 408 and its connection is
 * closed (RFC 9110 §15.5.9), so a body that never completes cannot hold a connection and a
 * request for ever.
 *
 * Refusals before the app runs (Node.js docs, event `'clientError'`): headers larger than Node's
 * `maxHeaderSize` (431, RFC 6585 §5; 414 when the request line alone is too long,
 * RFC 9110 §15.5.15), malformed requests (400), too slow (408). Node answers these with an empty body;
 * here they get the same JSON:API error document as every other error. When the request's
 * headers had been read (a body too slow), the answer goes through its response object, so it is
 * logged like any other; otherwise it is written to the socket directly.
 *
 * Idle keep-alive connections (RFC 9112 §9.3) are closed after Node's `keepAliveTimeout` (5 s,
 * announced as `Keep-Alive: timeout=5`, and a second more before Node acts; Node.js docs,
 * `server.keepAliveTimeout`), but never under a request that has arrived. Node closes them from a socket timer, and timers run before the
 * event loop reads sockets: when the loop was held past that moment (PGlite's synchronous WASM
 * work on a loaded machine holds it for seconds), a request the client sent meanwhile sits unread
 * when the timer fires, and closing then resets the connection under it — the client sees
 * ECONNRESET ("fetch failed") and the server logs nothing. Here the close waits one turn of the
 * loop, in which what arrived is read, and happens only when nothing did.
 *
 * @module http/listener
 */
import http, { STATUS_CODES, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { Express } from 'express';

/** Time limits of the server, in ms. */
export interface ListenerLimits {
  /** Until the request headers are complete (`HEADERS_TIMEOUT_MS`, default 10 000). */
  headersTimeoutMs: number;
  /** Until the whole request is received (`REQUEST_TIMEOUT_MS`, default 30 000); ≥ headersTimeoutMs. */
  requestTimeoutMs: number;
}

/** Thrown by {@link listen} when the address is taken or not allowed; the message says which. */
export class ListenError extends Error {
  override name = 'ListenError';
}

/** Longest request line answered 431 rather than 414 when the headers overflow, in bytes (RFC 9112 §3). */
const MAX_REQUEST_LINE = 8000;

/** A JSON:API error document (https://jsonapi.org/format/#errors) for a refusal by the server. */
function errorDocument(status: number, code: string, detail: string): string {
  return JSON.stringify({ errors: [{ status: String(status), code, title: STATUS_CODES[status] ?? 'Error', detail }] });
}

/** Status, code and detail of a client error reported by Node's HTTP parser or its timers. */
function refusalOf(error: NodeJS.ErrnoException & { rawPacket?: Buffer }): { status: number; code: string; detail: string } {
  switch (error.code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { status: 408, code: 'request_timeout', detail: 'The request was not received in time; send the headers and the whole body promptly.' };
    case 'HPE_HEADER_OVERFLOW': {
      // What Node had buffered: when its first line alone is past the request-line length every
      // server must support (8,000 octets, RFC 9112 §3), the URI is what is too long.
      const packet = error.rawPacket;
      const lineEnd = packet ? packet.indexOf('\r\n') : -1;
      const requestLine = packet ? (lineEnd < 0 ? packet.length : lineEnd) : 0;
      return requestLine > MAX_REQUEST_LINE
        ? { status: 414, code: 'uri_too_long', detail: `The request line is longer than ${MAX_REQUEST_LINE} bytes.` }
        : { status: 431, code: 'headers_too_large', detail: 'The request headers are too large.' };
    }
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return { status: 413, code: 'payload_too_large', detail: 'The chunk extensions of the request body are too large.' };
    default:
      return { status: 400, code: 'bad_request', detail: 'The request is not valid HTTP/1.1.' };
  }
}

/**
 * Creates the HTTP server that serves `app`, with the time limits and the JSON:API answers to
 * client errors described in the module comment. It does not listen yet.
 */
export function createHttpServer(limits: ListenerLimits, app?: RequestListener): Server {
  // This server's own request and response classes, whose prototypes serveApp points at an app's.
  class Request extends http.IncomingMessage {}
  class Response extends http.ServerResponse {}
  const server = http.createServer({
    IncomingMessage: Request,
    ServerResponse: Response,
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    // Node checks the limits this often (default 30 s, far too coarse for a 10 s limit).
    connectionsCheckingInterval: Math.max(100, Math.min(1000, Math.floor(limits.headersTimeoutMs / 4))),
  });
  // The request being served on each connection, for refusals once its headers are in.
  const exchanges = new WeakMap<Socket, { req: IncomingMessage; res: ServerResponse }>();
  server.prependListener('request', (req: IncomingMessage, res: ServerResponse) => {
    exchanges.set(req.socket, { req, res });
    res.once('close', () => {
      if (exchanges.get(req.socket)?.res === res) exchanges.delete(req.socket);
    });
  });
  // A socket timer fired: with this listener, closing the socket is left to it (Node.js docs,
  // `server.setTimeout`, `'timeout'` event). The only socket timer here is the keep-alive one
  // (`server.timeout` is 0), set when a response finished and cleared when the next request comes.
  server.on('timeout', (socket: Socket) => {
    const readBefore = socket.bytesRead;
    // The poll phase of this turn reads what the client sent while the loop was held; a request
    // that arrived (or started to: its headers are then bounded by headersTimeout) keeps the
    // connection open.
    setImmediate(() => {
      if (!socket.destroyed && socket.bytesRead === readBefore && !exchanges.has(socket)) socket.destroy();
    });
  });
  messagePrototypes.set(server, { request: Request.prototype, response: Response.prototype });
  if (app) server.on('request', app);
  server.on('clientError', (error: NodeJS.ErrnoException & { rawPacket?: Buffer }, duplex: Duplex) => {
    const socket = duplex as Socket;
    if (error.code === 'ECONNRESET' || !socket.writable) return void socket.destroy();
    const { status, code, detail } = refusalOf(error);
    const body = errorDocument(status, code, detail);
    const refuseOnSocket = () =>
      socket.end(
        `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
          `Content-Length: ${Buffer.byteLength(body)}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n${body}`,
      );
    const exchange = exchanges.get(socket);
    if (!exchange) return void refuseOnSocket();
    const { req, res } = exchange;
    if (req.complete) {
      // The request being served was read in full: the error is about what the client sent after
      // it (bytes beyond its Content-Length). Answer it once the response in progress is out.
      if (res.writableFinished) refuseOnSocket();
      else {
        // Not `Connection: close` on that response: Node would end the socket before this answer.
        res.once('finish', refuseOnSocket);
        res.once('close', () => !res.writableFinished && socket.destroy());
      }
      return;
    }
    if (res.headersSent) return void socket.destroy();
    // Its headers were read but not its body: answer through its response, so it is logged.
    res.statusCode = status;
    res.setHeader('Content-Type', 'application/json; charset=utf-8');
    res.setHeader('Content-Length', Buffer.byteLength(body));
    res.setHeader('Connection', 'close');
    res.end(body, () => socket.destroy());
  });
  return server;
}

/** The prototypes of the requests and responses of each server made by {@link createHttpServer}. */
const messagePrototypes = new WeakMap<Server, { request: IncomingMessage; response: ServerResponse }>();

/**
 * Serves an Express app on a server made by {@link createHttpServer}, its requests and responses
 * made with the app's prototypes from the start: the server's classes' prototypes inherit from
 * Express's app-specific prototypes (`app.request`, `app.response`,
 * https://expressjs.com/en/guide/overriding-express-api.html) and take their place, so requests
 * and responses have the same methods and properties as before.
 *
 * Express otherwise gives each request and response its app's prototypes with
 * `Object.setPrototypeOf` (`app.handle`). V8 (Node 20) then puts an object that already has
 * properties on a map outside the transition tree, from which it records no transitions: every
 * property the request or response gains afterwards (Express's, the middlewares', the
 * validator's) makes a new map with a copy of the whole descriptor array. The copies are young
 * but held by those maps, in old space, which only a full GC frees: each survived two scavenges
 * and was promoted. Measured under an open loop of pass reads (`GET /api/v1/passes/{id}`, 800 per
 * second, `--trace-gc-nvp`): ≈ 2.5 MB of the ≈ 11 MB allocated between scavenges survived each
 * one, and as much was promoted; with this, ≈ 1.5 MB (the rest was per-request getters,
 * src/http/requestLog.ts). An Express app that only answers: ≈ 3.5 MB before, ≈ 3 KB after.
 *
 * Bench: `npm run bench -- passesAndLoyalty`, the service's µs of CPU per `GET` (and its p99
 * under the steady load); run it with `BENCH_SERVICE_NODE_ARGS=--trace-gc-nvp` to see the
 * promoted bytes per scavenge. With this, the shared getters (src/http/requestLog.ts, src/app.ts
 * `Context`) and no spread-then-add on the hot path (src/http/routes.ts, src/domain/passes/
 * passStore.ts `passRowOf`, src/domain/passes/passService.ts `passExtras`), a pass read went from
 * ≈ 450 to ≈ 240 µs of CPU (closed loop), ≈ 2.5 MB to ≈ 30 KB promoted per scavenge and scavenge
 * pauses from 4–7 to ≈ 1.1 ms (800 reads per second).
 */
export function serveApp(server: Server, app: Express): void {
  const prototypes = messagePrototypes.get(server);
  if (!prototypes) throw new Error('serveApp: the server was not made by createHttpServer');
  Object.setPrototypeOf(prototypes.request, app.request);
  Object.setPrototypeOf(prototypes.response, app.response);
  app.request = prototypes.request as Express['request'];
  app.response = prototypes.response as Express['response'];
  server.on('request', app);
}

/**
 * Starts listening.
 * @throws ListenError naming the address when it is in use (EADDRINUSE) or not allowed (EACCES,
 *   EADDRNOTAVAIL); other errors as they come.
 */
export async function listen(server: Server, port: number, host: string): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) => {
      const address = `${host}:${port}`;
      if (error.code === 'EADDRINUSE') reject(new ListenError(`Port ${port} on ${host} is already in use (${address}); stop what listens there or set PORT.`));
      else if (error.code === 'EACCES') reject(new ListenError(`Not allowed to listen on ${address} (ports below 1024 need privileges); set PORT.`));
      else if (error.code === 'EADDRNOTAVAIL') reject(new ListenError(`${host} is not an address of this machine; set HOST.`));
      else reject(error);
    };
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      resolve();
    });
  });
}
