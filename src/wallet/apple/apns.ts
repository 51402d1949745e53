/**
 * Pushes to Apple Wallet through the Apple Push Notification service: the empty notification
 * that tells a device one of its passes changed, after which the device asks the web service
 * what changed and fetches the new pass (Apple, "Updating a pass",
 * https://developer.apple.com/documentation/walletpasses/adding-a-web-service-to-update-passes).
 *
 * Protocol (Apple, "Sending notification requests to APNs",
 * https://developer.apple.com/documentation/usernotifications/sending-notification-requests-to-apns):
 * HTTP/2 (RFC 9113) `POST /3/device/<push token>` to `api.push.apple.com` (Wallet's tokens are
 * production tokens), TLS client authentication with the Pass Type ID certificate and key that
 * sign the passes, `apns-topic` = the pass type identifier, body `{}`; `apns-push-type: alert`
 * and `apns-priority: 10` (a `background` push is throttled). One HTTP/2 session per certificate,
 * kept open and reused for every push, replaced when the server closes it (GOAWAY) or it fails;
 * requests beyond the server's `SETTINGS_MAX_CONCURRENT_STREAMS` wait for a stream.
 *
 * Answers (Apple, "Handling notification responses from APNs",
 * https://developer.apple.com/documentation/usernotifications/handling-notification-responses-from-apns)
 * are classified once, in {@link classifyApnsResponse}.
 *
 * With tracing on (src/telemetry/tracing.ts), each push inside a span is a client span
 * {@link APNS_SPAN_NAME} (the path template: the push token, a device's credential, is never recorded).
 *
 * @module wallet/apple/apns
 */
import { connect, constants, type ClientHttp2Session } from 'node:http2';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { hasActiveSpan, inSpan, tracingEnabled } from '../../telemetry/tracing.ts';

/** Apple's production APNs host, where Wallet's push tokens belong. */
export const APNS_PRODUCTION_URL = 'https://api.push.apple.com';

/** The certificate a session authenticates with. */
export interface ApnsCredentials {
  /** A stable key of these credentials (e.g. the certificate's SHA-256): one session per id. */
  id: string;
  certificatePem: string;
  privateKeyPem: string;
}

/** One push. */
export interface ApnsPush {
  credentials: ApnsCredentials;
  /** The pass type identifier. */
  topic: string;
  /** The device's push token (hex), as it registered. */
  pushToken: string;
}

/**
 * What a push achieved: `delivered` (200); `unregistered` (410: the device no longer has the pass;
 * `timestamp` says since when); `badToken` (400 BadDeviceToken, DeviceTokenNotForTopic: never
 * retry); `certificateError` (403, or a TLS handshake refused: the credentials are wrong);
 * `retry` (429, 500, 503, no answer: try again later); `rejected` (any other refusal: not
 * retried).
 */
export type ApnsOutcome = 'delivered' | 'unregistered' | 'badToken' | 'certificateError' | 'retry' | 'rejected';

/** The answer to one push. */
export interface ApnsResult {
  /** The HTTP status; 0 when no answer came. */
  status: number;
  outcome: ApnsOutcome;
  /** APNs's `reason`, or what went wrong without an answer. */
  reason?: string;
  /** 410's `timestamp`: when APNs learnt that the token is no longer valid. */
  timestamp?: Date;
  apnsId?: string;
}

/**
 * Classifies an APNs answer (Apple, "Handling notification responses from APNs": never retry
 * BadDeviceToken, DeviceTokenNotForTopic, Forbidden, ExpiredToken, Unregistered, PayloadTooLarge;
 * retry 429 TooManyRequests and 500/503 later).
 */
export function classifyApnsResponse(status: number, reason: string | undefined): ApnsOutcome {
  if (status === 200) return 'delivered';
  if (status === 410) return 'unregistered';
  if (status === 400 && (reason === 'BadDeviceToken' || reason === 'DeviceTokenNotForTopic')) return 'badToken';
  if (status === 403) return 'certificateError';
  if (status === 429 || status >= 500 || status === 0) return 'retry';
  return 'rejected';
}

/** Options of {@link createApnsClient}. */
export interface ApnsClientOptions {
  /** Default {@link APNS_PRODUCTION_URL}; tests point it at a local stand-in. */
  baseUrl?: string;
  /** Certificate authorities to trust instead of the system's (a stand-in's certificate). */
  ca?: string | Buffer;
  /** Longest wait for one push's answer, in ms (default 10 s). */
  requestTimeoutMs?: number;
}

/** A client pushing with any number of certificates. */
export interface ApnsClient {
  /** Sends one push; never throws for what APNs or the network answers (see {@link ApnsResult}). */
  push(push: ApnsPush): Promise<ApnsResult>;
  /** Closes every session. */
  close(): Promise<void>;
}

/** A session and the pushes waiting for one of its streams. */
interface Session {
  http2: ClientHttp2Session;
  active: number;
  waiting: (() => void)[];
  ready: Promise<void>;
}

const TLS_REFUSED = /certificate|handshake|alert|SSL/i;

/**
 * One push on an open session: `POST /3/device/<push token>` with the pass type as `apns-topic`,
 * push type `alert`, priority 10 and an empty JSON payload (Apple, "Updating a pass": Wallet
 * fetches the pass itself); no answer within `timeoutMs` is a result to retry.
 */
function postPush(http2: ClientHttp2Session, push: ApnsPush, timeoutMs: number): Promise<ApnsResult> {
  return new Promise<ApnsResult>((resolve) => {
    const request = http2.request({
      [constants.HTTP2_HEADER_METHOD]: 'POST',
      [constants.HTTP2_HEADER_PATH]: `/3/device/${push.pushToken}`,
      'apns-topic': push.topic,
      'apns-push-type': 'alert',
      'apns-priority': '10',
      'content-type': 'application/json',
    });
    let status = 0;
    let apnsId: string | undefined;
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => request.close(constants.NGHTTP2_CANCEL), timeoutMs);
    request.on('response', (headers) => {
      status = Number(headers[constants.HTTP2_HEADER_STATUS] ?? 0);
      apnsId = headers['apns-id'] as string | undefined;
    });
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('close', () => {
      clearTimeout(timer);
      if (status === 0) return resolve({ status: 0, outcome: 'retry', reason: `No answer within ${timeoutMs} ms or the stream was reset.` });
      let body: { reason?: string; timestamp?: number } = {};
      try {
        body = chunks.length ? (JSON.parse(Buffer.concat(chunks).toString('utf8')) as typeof body) : {};
      } catch {
        body = {};
      }
      resolve({
        status,
        outcome: classifyApnsResponse(status, body.reason),
        ...(body.reason ? { reason: body.reason } : {}),
        ...(typeof body.timestamp === 'number' ? { timestamp: new Date(body.timestamp) } : {}),
        ...(apnsId ? { apnsId } : {}),
      });
    });
    request.on('error', () => undefined);
    request.end('{}');
  });
}

/** Waits for a free stream of the session (its peer's SETTINGS_MAX_CONCURRENT_STREAMS). */
async function stream(session: Session): Promise<void> {
  for (;;) {
    const limit = session.http2.remoteSettings?.maxConcurrentStreams ?? 100;
    if (session.active < limit || session.http2.closed) {
      session.active++;
      return;
    }
    await new Promise<void>((resolve) => session.waiting.push(resolve));
  }
}

function release(session: Session): void {
  session.active--;
  session.waiting.shift()?.();
}

/** The name of a push's span: its method and path template (OpenTelemetry semantic conventions, "HTTP spans"). */
export const APNS_SPAN_NAME = 'POST /3/device/{deviceToken}';

/** `push` in a client span describing the request and its answer (never the push token). */
function tracedPush(baseUrl: string, push: ApnsPush, send: () => Promise<ApnsResult>): Promise<ApnsResult> {
  const url = new URL(baseUrl);
  const attributes = {
    'http.request.method': 'POST',
    'url.scheme': url.protocol.replace(':', ''),
    'url.template': '/3/device/{deviceToken}',
    'server.address': url.hostname,
    'server.port': Number(url.port) || 443,
    'apns.topic': push.topic,
  };
  return inSpan(APNS_SPAN_NAME, { kind: SpanKind.CLIENT, attributes }, async (span) => {
    const result = await send();
    if (result.status) span.setAttribute('http.response.status_code', result.status);
    span.setAttribute('apns.outcome', result.outcome);
    if (result.reason && result.status) span.setAttribute('apns.reason', result.reason);
    if (result.outcome !== 'delivered') span.setStatus({ code: SpanStatusCode.ERROR, message: result.outcome });
    return result;
  });
}

/** Creates a client. Sessions open on first use and are unref'd (they keep no process alive). */
export function createApnsClient(options: ApnsClientOptions = {}): ApnsClient {
  const baseUrl = options.baseUrl ?? APNS_PRODUCTION_URL;
  const timeoutMs = options.requestTimeoutMs ?? 10_000;
  const sessions = new Map<string, Session>();

  function sessionFor(credentials: ApnsCredentials): Session {
    const existing = sessions.get(credentials.id);
    if (existing && !existing.http2.closed && !existing.http2.destroyed) return existing;
    const http2 = connect(baseUrl, { cert: credentials.certificatePem, key: credentials.privateKeyPem, ...(options.ca ? { ca: options.ca } : {}) });
    const session: Session = {
      http2,
      active: 0,
      waiting: [],
      ready: new Promise<void>((resolve, reject) => {
        http2.once('connect', () => resolve());
        http2.once('error', reject);
      }),
    };
    session.ready.catch(() => undefined);
    const forget = () => {
      if (sessions.get(credentials.id) === session) sessions.delete(credentials.id);
      for (const wake of session.waiting.splice(0)) wake();
    };
    http2.on('goaway', forget);
    http2.on('close', forget);
    http2.on('error', forget);
    http2.unref();
    sessions.set(credentials.id, session);
    return session;
  }

  async function send(session: Session, push: ApnsPush): Promise<ApnsResult> {
    await session.ready;
    await stream(session);
    try {
      return await postPush(session.http2, push, timeoutMs);
    } finally {
      release(session);
    }
  }

  async function pushOnce(push: ApnsPush): Promise<ApnsResult> {
    const session = sessionFor(push.credentials);
    try {
      return await send(session, push);
    } catch (error) {
      const message = (error as Error).message;
      return { status: 0, outcome: TLS_REFUSED.test(message) ? 'certificateError' : 'retry', reason: message };
    }
  }

  return {
    push: (push) => (tracingEnabled() && hasActiveSpan() ? tracedPush(baseUrl, push, () => pushOnce(push)) : pushOnce(push)),
    async close() {
      const open = [...sessions.values()];
      sessions.clear();
      await Promise.all(open.map((s) => new Promise<void>((resolve) => (s.http2.closed ? resolve() : s.http2.close(() => resolve())))));
    },
  };
}
