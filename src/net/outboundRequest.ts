/**
 * Requests the service makes to addresses its users chose (template image URLs, webhook
 * endpoints), guarded against server-side request forgery (OWASP, "Server Side Request Forgery
 * Prevention Cheat Sheet",
 * https://cheatsheetseries.owasp.org/cheatsheets/Server_Side_Request_Forgery_Prevention_Cheat_Sheet.html):
 * the host name is resolved first, every address it resolves to is classified with ipaddr.js
 * (https://github.com/whitequark/ipaddr.js, `process()` then `range()`), and any address that is
 * not public unicast is refused: the ranges of the IANA IPv4 and IPv6 Special-Purpose Address
 * Registries (https://www.iana.org/assignments/iana-ipv4-special-registry/,
 * https://www.iana.org/assignments/iana-ipv6-special-registry/; RFC 6890) and multicast, an
 * IPv4-mapped IPv6 address (`::ffff:a.b.c.d`) as the IPv4 address it maps, and any IPv6 address
 * outside 2000::/3, the only block IANA allocates as global unicast
 * (https://www.iana.org/assignments/ipv6-address-space/). The connection is made to the checked
 * address itself — the socket's `lookup` answers with it — so a DNS answer that changes between
 * the check and the connection (DNS rebinding) cannot reach another host. Redirects are followed
 * only when asked, each hop checked again. IP literals in any form the WHATWG URL parser accepts
 * (`0x7f000001`, `2130706433`, `0177.0.0.1`, `[::ffff:7f00:1]`) are read as the address they
 * are (https://url.spec.whatwg.org/#concept-ipv4-parser) and classified like any other.
 *
 * One time budget covers the whole request: resolving the name, connecting, the TLS handshake,
 * and the response's headers and body, every redirect hop included. When it runs out the error
 * (`timeout`) names the part that was under way ({@link OutboundPhase}).
 *
 * With tracing on (src/telemetry/tracing.ts), each request made inside a span is a client span
 * named by its method, with the destination's host, port and scheme and the answer's status —
 * never the path or query, which are the user's and may carry credentials.
 *
 * @module net/outboundRequest
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction, type Socket } from 'node:net';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import ipaddr from 'ipaddr.js';
import { DEFAULT_OUTBOUND_TIMEOUT_MS } from '../config.ts';
import { hasActiveSpan, inSpan, tracingEnabled } from '../telemetry/tracing.ts';

/** Why a destination or response was refused. */
export type OutboundProblem =
  | 'invalid_url'
  | 'https_required'
  | 'private_address'
  | 'unresolvable'
  | 'timeout'
  | 'too_large'
  | 'too_many_redirects'
  | 'network_error';

/**
 * The part of a request under way: resolving the host name, connecting (TCP), the TLS
 * handshake, or the response (headers and body).
 */
export type OutboundPhase = 'dns' | 'connect' | 'tls' | 'response';

/** A request that could not be made or completed; a `timeout` says in which {@link OutboundPhase}. */
export class OutboundRequestError extends Error {
  override name = 'OutboundRequestError';
  constructor(
    readonly code: OutboundProblem,
    detail: string,
    readonly phase?: OutboundPhase,
  ) {
    super(detail);
  }
}

/** Where requests may go. */
export interface DestinationPolicy {
  /** Allow private, loopback and link-local destinations (tests, installs on private networks). */
  allowPrivate: boolean;
  /** Allow `http:` for loopback destinations only (development); otherwise HTTPS is required. */
  allowHttpLoopback: boolean;
}

/** 2000::/3, IANA's global unicast block of the IPv6 address space. */
const GLOBAL_UNICAST_IPV6 = ipaddr.parseCIDR('2000::/3');

/**
 * The range an IP address is in, as ipaddr.js names the special-purpose ones (`loopback`,
 * `private`, `linkLocal`, `uniqueLocal`, `carrierGradeNat`, `reserved`, `rfc6052`, `6to4`, …);
 * `unallocated` for an IPv6 address outside 2000::/3, `unicast` for a public address. An
 * IPv4-mapped IPv6 address is classified as the IPv4 address it maps.
 * @throws Error when `address` is not an IP address.
 */
export function addressRange(address: string): string {
  const parsed = ipaddr.process(address);
  const range = parsed.range();
  if (range === 'unicast' && parsed.kind() === 'ipv6' && !parsed.match(GLOBAL_UNICAST_IPV6)) return 'unallocated';
  return range;
}

/** Whether an address is anything but public unicast (see {@link addressRange}). */
export function isSpecialAddress(address: string): boolean {
  return addressRange(address) !== 'unicast';
}

function isLoopback(address: string): boolean {
  return addressRange(address) === 'loopback';
}

/** A checked destination: the URL and the address to connect to. */
export interface Destination {
  url: URL;
  address: string;
  family: 4 | 6;
}

/** Resolves a host name (or takes an IP literal) to its addresses. Injectable for tests. */
export type Resolver = (hostname: string) => Promise<{ address: string; family: number }[]>;

/** The operating system's resolver (`getaddrinfo`: /etc/hosts, then DNS), every address in its order. */
export const systemResolver: Resolver = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

/** How {@link checkDestination} resolves. */
export interface ResolveOptions {
  /** Default {@link systemResolver}. */
  resolve?: Resolver | undefined;
  /** Time allowed for resolving, in ms (default {@link DEFAULT_OUTBOUND_TIMEOUT_MS}). */
  timeoutMs?: number;
  /** The whole request's budget, in ms, for the message (default `timeoutMs`). */
  budgetMs?: number;
}

/** Settles as `work`, or rejects with `onTimeout()` after `ms`. */
function within<T>(work: Promise<T>, ms: number, onTimeout: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(onTimeout()), Math.max(0, ms));
  });
  return Promise.race([work, expired]).finally(() => clearTimeout(timer));
}

/**
 * Checks a URL and resolves its host within a time limit.
 * @throws OutboundRequestError `invalid_url` (not http(s), credentials in it), `https_required`,
 *   `unresolvable`, `timeout` (phase `dns`) when the name does not resolve in time, or
 *   `private_address` when any address of the host is special-purpose and the policy does not
 *   allow it.
 */
export async function checkDestination(raw: string | URL, policy: DestinationPolicy, options: ResolveOptions = {}): Promise<Destination> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new OutboundRequestError('invalid_url', `${String(raw)} is not a URL.`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new OutboundRequestError('invalid_url', `${url.protocol} URLs are not fetched; use https:.`);
  if (url.username || url.password) throw new OutboundRequestError('invalid_url', 'URLs with credentials are not fetched.');
  const hostname = url.hostname.replace(/^\[|\]$/g, '');
  const timeoutMs = options.timeoutMs ?? DEFAULT_OUTBOUND_TIMEOUT_MS;
  let addresses: { address: string; family: number }[];
  if (isIP(hostname)) addresses = [{ address: hostname, family: isIP(hostname) }];
  else {
    const resolving = (options.resolve ?? systemResolver)(hostname).catch(() => {
      throw new OutboundRequestError('unresolvable', `The host ${hostname} cannot be resolved.`, 'dns');
    });
    addresses = await within(
      resolving,
      timeoutMs,
      () =>
        new OutboundRequestError(
          'timeout',
          `${url.origin}: the time budget of ${options.budgetMs ?? timeoutMs} ms ran out while resolving ${hostname} (DNS).`,
          'dns',
        ),
    );
  }
  if (!addresses.length) throw new OutboundRequestError('unresolvable', `The host ${hostname} has no address.`, 'dns');
  const loopback = addresses.every((a) => isLoopback(a.address));
  if (url.protocol === 'http:' && !(policy.allowHttpLoopback && loopback)) {
    throw new OutboundRequestError('https_required', `${url.origin} must use https:.`);
  }
  const special = addresses.find((a) => isSpecialAddress(a.address));
  if (special && !policy.allowPrivate && !(loopback && policy.allowHttpLoopback)) {
    throw new OutboundRequestError(
      'private_address',
      `${hostname} resolves to ${special.address}, a private or reserved address (${addressRange(special.address)}).`,
    );
  }
  const chosen = addresses[0]!;
  return { url, address: chosen.address, family: chosen.family === 6 ? 6 : 4 };
}

/** A request to make. */
export interface OutboundRequest {
  method: 'GET' | 'POST';
  url: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  /** The time budget of the whole request, in ms: DNS, connect, TLS, response headers and body, every redirect. */
  timeoutMs: number;
  /** Largest response body read, in bytes; a longer one fails with `too_large` unless `truncate`. */
  maxBodyBytes: number;
  /** Keep the first `maxBodyBytes` of a longer body instead of failing (webhook response snippets). */
  truncate?: boolean;
  /** Redirects to follow (each hop checked again); 0: a 3xx is the answer. */
  maxRedirects: number;
  policy: DestinationPolicy;
  resolve?: Resolver | undefined;
}

/** What came back. */
export interface OutboundResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** The address connected to. */
  remoteAddress: string;
  /** The URL that answered (after redirects). */
  url: string;
}

/**
 * Makes a guarded request within one time budget.
 * @throws OutboundRequestError for a refused destination, a timeout (its `phase` and message
 *   naming the part under way), a body over the limit, too many redirects, or a network failure
 *   (`network_error`, the message saying which).
 */
export async function outboundRequest(options: OutboundRequest): Promise<OutboundResponse> {
  const deadline = Date.now() + options.timeoutMs;
  let url = options.url;
  for (let hop = 0; ; hop++) {
    const destination = await checkDestination(url, options.policy, {
      resolve: options.resolve,
      timeoutMs: deadline - Date.now(),
      budgetMs: options.timeoutMs,
    });
    const response = await (tracingEnabled() && hasActiveSpan() ? tracedOnce : once)(destination, options, deadline);
    const location = response.headers.location;
    if (response.status >= 300 && response.status < 400 && location && options.maxRedirects > 0) {
      if (hop >= options.maxRedirects) throw new OutboundRequestError('too_many_redirects', `More than ${options.maxRedirects} redirects from ${options.url}.`);
      url = new URL(location, destination.url).toString();
      continue;
    }
    return response;
  }
}

/** {@link once} in a client span (OpenTelemetry semantic conventions, "HTTP client spans"). */
function tracedOnce(destination: Destination, options: OutboundRequest, deadline: number): Promise<OutboundResponse> {
  const { url } = destination;
  const attributes = {
    'http.request.method': options.method,
    'url.scheme': url.protocol.replace(':', ''),
    'server.address': url.hostname,
    'server.port': Number(url.port) || (url.protocol === 'https:' ? 443 : 80),
    'network.peer.address': destination.address,
  };
  return inSpan(options.method, { kind: SpanKind.CLIENT, attributes }, async (span) => {
    const response = await once(destination, options, deadline);
    span.setAttribute('http.response.status_code', response.status);
    if (response.status >= 400) span.setStatus({ code: SpanStatusCode.ERROR, message: String(response.status) });
    return response;
  });
}

/** What a phase was doing, for a timeout's message. */
function underWay(phase: OutboundPhase, destination: Destination, headersReceived: boolean): string {
  if (phase === 'connect') return `while connecting to ${destination.address}`;
  if (phase === 'tls') return `in the TLS handshake with ${destination.address}`;
  return headersReceived ? 'while reading the response body' : 'while waiting for the response';
}

/** One request to a checked destination, until `deadline` (ms since the epoch). */
function once(destination: Destination, options: OutboundRequest, deadline: number): Promise<OutboundResponse> {
  const { origin } = destination.url;
  const https = destination.url.protocol === 'https:';
  let phase: OutboundPhase = 'connect';
  let headersReceived = false;
  const timeout = () =>
    new OutboundRequestError(
      'timeout',
      `${origin}: the time budget of ${options.timeoutMs} ms ran out ${underWay(phase, destination, headersReceived)}.`,
      phase,
    );
  if (deadline - Date.now() <= 0) return Promise.reject(timeout());
  const lookup: LookupFunction = (_hostname, _options, callback) => {
    const all = (_options as { all?: boolean }).all;
    if (all)
      (callback as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [
        { address: destination.address, family: destination.family },
      ]);
    else callback(null, destination.address, destination.family);
  };
  const make = https ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const request = make(destination.url, { method: options.method, headers: options.headers, lookup, agent: false }, (response) => {
      headersReceived = true;
      const chunks: Buffer[] = [];
      let size = 0;
      response.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > options.maxBodyBytes) {
          if (options.truncate) {
            chunks.push(chunk.subarray(0, chunk.length - (size - options.maxBodyBytes)));
            finish();
            response.destroy();
            return;
          }
          request.destroy(new OutboundRequestError('too_large', `The response of ${origin} is larger than ${options.maxBodyBytes} bytes.`));
          return;
        }
        chunks.push(chunk);
      });
      const finish = () => {
        clearTimeout(timer);
        resolve({
          status: response.statusCode ?? 0,
          headers: response.headers,
          body: Buffer.concat(chunks),
          remoteAddress: destination.address,
          url: destination.url.toString(),
        });
      };
      response.on('end', finish);
      response.on('error', (error) => request.destroy(error));
    });
    // A TLS socket emits `connect` when TCP is up and `secureConnect` after the handshake.
    request.once('socket', (socket: Socket) => {
      socket.once('connect', () => {
        if (phase === 'connect') phase = https ? 'tls' : 'response';
      });
      socket.once('secureConnect', () => {
        phase = 'response';
      });
    });
    const timer = setTimeout(() => request.destroy(timeout()), deadline - Date.now());
    request.on('error', (error) => {
      clearTimeout(timer);
      reject(
        error instanceof OutboundRequestError
          ? error
          : new OutboundRequestError('network_error', `${origin}: ${(error as NodeJS.ErrnoException).code ?? error.message}`),
      );
    });
    request.end(options.body);
  });
}
