/**
 * Requests the service makes to addresses its users chose (template image URLs, webhook
 * endpoints), guarded against server-side request forgery (OWASP, "Server Side Request Forgery
 * Prevention Cheat Sheet",
 * https://cheatsheetseries.owasp.org/cheatsheets/Server_Side_Request_Forgery_Prevention_Cheat_Sheet.html):
 * the host name is resolved first, every address it resolves to is checked against the
 * special-purpose ranges (loopback, private, link-local, unique-local, carrier-grade NAT,
 * multicast, unspecified, documentation; RFC 6890 and the IANA special-purpose registries), and
 * the connection is made to the checked address itself — the socket's `lookup` answers with it —
 * so a DNS answer that changes between the check and the connection (DNS rebinding) cannot reach
 * another host. Redirects are followed only when asked, each hop checked again. Bodies are read
 * up to a size, within a whole-request timeout.
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
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
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

/** A request that could not be made or completed. */
export class OutboundRequestError extends Error {
  override name = 'OutboundRequestError';
  constructor(
    readonly code: OutboundProblem,
    detail: string,
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

/** Address ranges that are never a public destination. */
const SPECIAL = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  SPECIAL.addSubnet(network, prefix, 'ipv4');
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['::ffff:0:0', 96],
  ['64:ff9b:1::', 48],
  ['100::', 64],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const)
  SPECIAL.addSubnet(network, prefix, 'ipv6');
const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

/** An IPv4-mapped IPv6 address (`::ffff:a.b.c.d`) as its IPv4 address, anything else as is. */
function unmapped(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return mapped ? mapped[1]! : address;
}

/** Whether an address is in a special-purpose (non-public) range. */
export function isSpecialAddress(address: string): boolean {
  const plain = unmapped(address);
  return SPECIAL.check(plain, isIP(plain) === 6 ? 'ipv6' : 'ipv4');
}

function isLoopback(address: string): boolean {
  const plain = unmapped(address);
  return LOOPBACK.check(plain, isIP(plain) === 6 ? 'ipv6' : 'ipv4');
}

/** A checked destination: the URL and the address to connect to. */
export interface Destination {
  url: URL;
  address: string;
  family: 4 | 6;
}

/** Resolves a host name (or takes an IP literal) to its addresses. Injectable for tests. */
export type Resolver = (hostname: string) => Promise<{ address: string; family: number }[]>;

const systemResolver: Resolver = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

/**
 * Checks a URL and resolves its host.
 * @throws OutboundRequestError `invalid_url` (not http(s), credentials in it), `https_required`,
 *   `unresolvable`, or `private_address` when any address of the host is special-purpose and
 *   the policy does not allow it.
 */
export async function checkDestination(raw: string | URL, policy: DestinationPolicy, resolve: Resolver = systemResolver): Promise<Destination> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new OutboundRequestError('invalid_url', `${String(raw)} is not a URL.`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new OutboundRequestError('invalid_url', `${url.protocol} URLs are not fetched; use https:.`);
  if (url.username || url.password) throw new OutboundRequestError('invalid_url', 'URLs with credentials are not fetched.');
  const hostname = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: { address: string; family: number }[];
  try {
    addresses = isIP(hostname) ? [{ address: hostname, family: isIP(hostname) }] : await resolve(hostname);
  } catch {
    throw new OutboundRequestError('unresolvable', `The host ${hostname} cannot be resolved.`);
  }
  if (!addresses.length) throw new OutboundRequestError('unresolvable', `The host ${hostname} has no address.`);
  const loopback = addresses.every((a) => isLoopback(a.address));
  if (url.protocol === 'http:' && !(policy.allowHttpLoopback && loopback)) {
    throw new OutboundRequestError('https_required', `${url.origin} must use https:.`);
  }
  const special = addresses.find((a) => isSpecialAddress(a.address));
  if (special && !policy.allowPrivate && !(loopback && policy.allowHttpLoopback)) {
    throw new OutboundRequestError('private_address', `${hostname} resolves to ${special.address}, a private or reserved address.`);
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
  /** Whole-request limit, in ms (connect, send, response headers and body). */
  timeoutMs: number;
  /** Largest response body read, in bytes; a longer one fails with `too_large` unless `truncate`. */
  maxBodyBytes: number;
  /** Keep the first `maxBodyBytes` of a longer body instead of failing (webhook response snippets). */
  truncate?: boolean;
  /** Redirects to follow (each hop checked again); 0: a 3xx is the answer. */
  maxRedirects: number;
  policy: DestinationPolicy;
  resolve?: Resolver;
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
 * Makes a guarded request.
 * @throws OutboundRequestError for a refused destination, a timeout, a body over the limit,
 *   too many redirects, or a network failure (`network_error`, the message saying which).
 */
export async function outboundRequest(options: OutboundRequest): Promise<OutboundResponse> {
  const deadline = Date.now() + options.timeoutMs;
  let url = options.url;
  for (let hop = 0; ; hop++) {
    const destination = await checkDestination(url, options.policy, options.resolve);
    const response = await (tracingEnabled() && hasActiveSpan() ? tracedOnce : once)(destination, options, deadline - Date.now());
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
function tracedOnce(destination: Destination, options: OutboundRequest, timeoutMs: number): Promise<OutboundResponse> {
  const { url } = destination;
  const attributes = {
    'http.request.method': options.method,
    'url.scheme': url.protocol.replace(':', ''),
    'server.address': url.hostname,
    'server.port': Number(url.port) || (url.protocol === 'https:' ? 443 : 80),
    'network.peer.address': destination.address,
  };
  return inSpan(options.method, { kind: SpanKind.CLIENT, attributes }, async (span) => {
    const response = await once(destination, options, timeoutMs);
    span.setAttribute('http.response.status_code', response.status);
    if (response.status >= 400) span.setStatus({ code: SpanStatusCode.ERROR, message: String(response.status) });
    return response;
  });
}

function once(destination: Destination, options: OutboundRequest, timeoutMs: number): Promise<OutboundResponse> {
  if (timeoutMs <= 0) return Promise.reject(new OutboundRequestError('timeout', `No answer from ${options.url} within ${options.timeoutMs} ms.`));
  const lookup: LookupFunction = (_hostname, _options, callback) => {
    const all = (_options as { all?: boolean }).all;
    if (all)
      (callback as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [
        { address: destination.address, family: destination.family },
      ]);
    else callback(null, destination.address, destination.family);
  };
  const make = destination.url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const request = make(destination.url, { method: options.method, headers: options.headers, lookup, agent: false }, (response) => {
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
          request.destroy(new OutboundRequestError('too_large', `The response of ${destination.url.origin} is larger than ${options.maxBodyBytes} bytes.`));
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
    const timer = setTimeout(
      () => request.destroy(new OutboundRequestError('timeout', `No answer from ${destination.url.origin} within ${options.timeoutMs} ms.`)),
      timeoutMs,
    );
    request.on('error', (error) => {
      clearTimeout(timer);
      reject(
        error instanceof OutboundRequestError
          ? error
          : new OutboundRequestError('network_error', `${destination.url.origin}: ${(error as NodeJS.ErrnoException).code ?? error.message}`),
      );
    });
    request.end(options.body);
  });
}
