/**
 * The Google Wallet API client (REST v1, https://developers.google.com/wallet/reference/rest),
 * behind one small interface: a JSON call on behalf of an issuer, answered with its status and
 * body, never thrown for an HTTP error. Authentication is the service account's OAuth 2.0 access
 * token from the JWT bearer grant (RFC 7523; Google, "Using OAuth 2.0 for Server to Server
 * Applications", https://developers.google.com/identity/protocols/oauth2/service-account#httprest),
 * scope `https://www.googleapis.com/auth/wallet_object.issuer`, cached per key until a minute
 * before it expires and dropped when the API answers 401. The API and token URLs are
 * configuration (`GOOGLE_WALLET_API_URL`, `GOOGLE_OAUTH_TOKEN_URL`), so tests and air-gapped
 * installs reach a stand-in; the assertion is signed with jose (google-auth-library hard-codes
 * Google's token URL).
 *
 * Every call first waits for the caller's `throttle` (Google allows 20 requests per second per
 * issuer; src/delivery/googleRateLimit.ts counts across workers). Several calls can travel in one
 * HTTP request to Google's batch endpoint (`POST https://walletobjects.googleapis.com/batch`,
 * `multipart/mixed`, one `application/http` part per call; Google, "Batch requests",
 * https://developers.google.com/wallet/generic/resources/batch-requests): each inner call still
 * counts against the quota, so the throttle is awaited once per inner call.
 *
 * @module wallet/google/client
 */
import { createPrivateKey, randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';

/** The OAuth scope of the Google Wallet API. */
export const WALLET_SCOPE = 'https://www.googleapis.com/auth/wallet_object.issuer';

/** An issuer, as calls are made for it. */
export interface GoogleIssuer {
  issuerId: string;
  clientEmail: string;
  /** PKCS#8 PEM of the service account's RSA key. */
  privateKey: string;
  privateKeyId: string | null;
  /** Identifies the key version (token cache key): changes when the credentials are replaced. */
  cacheKey: string;
}

/** What an attempt achieved (the delivery record's outcomes). */
export type GoogleOutcome = 'delivered' | 'retry' | 'rejected';

/** The answer of one call. */
export interface GoogleResponse {
  /** HTTP status; 0 when none came (network failure, timeout, no token). */
  status: number;
  /** The parsed JSON body (null when none or not JSON). */
  body: unknown;
  /** Google's error message, when the call failed. */
  reason: string | null;
}

/** One call of the API. */
export interface GoogleRequest {
  method: 'GET' | 'POST' | 'PATCH' | 'PUT';
  /** Below the API base, e.g. `/loyaltyObject` or `/loyaltyObject/3388….0194…/addMessage`. */
  path: string;
  body?: unknown;
}

/** The Google Wallet API for the service. */
export interface GoogleWalletClient {
  /** Makes one call (after the throttle) and answers its status and body. Never throws for HTTP or network errors. */
  call(issuer: GoogleIssuer, request: GoogleRequest): Promise<GoogleResponse>;
  /**
   * Makes several calls in one batch request (after one throttle per call) and answers each
   * call's status and body, in order. When the batch request itself fails, every call gets its
   * status (0 for no answer). Never throws for HTTP or network errors.
   */
  batch(issuer: GoogleIssuer, requests: GoogleRequest[]): Promise<GoogleResponse[]>;
  /** Forgets cached tokens. */
  close(): Promise<void>;
}

/** How a client is made. */
export interface GoogleWalletClientOptions {
  /** `GOOGLE_WALLET_API_URL`, e.g. `https://walletobjects.googleapis.com/walletobjects/v1`. */
  apiUrl: string;
  /** `GOOGLE_OAUTH_TOKEN_URL`, e.g. `https://oauth2.googleapis.com/token`. */
  tokenUrl: string;
  /** Waits until the issuer may make another call (default: no waiting). */
  throttle?: (issuerId: string) => Promise<void>;
  /** Time allowed per HTTP request, in ms (default 15000). */
  timeoutMs?: number;
}

/**
 * Classifies an answer: 2xx delivered; 408, 429, 5xx and no answer retried with back-off
 * (Google: "Retry with exponential backoff" for RESOURCE_EXHAUSTED, INTERNAL and UNAVAILABLE,
 * https://developers.google.com/wallet/generic/resources/troubleshooting); any other 4xx
 * rejected (a request that cannot succeed as is).
 */
export function classifyGoogleResponse(status: number): GoogleOutcome {
  if (status >= 200 && status < 300) return 'delivered';
  if (status === 0 || status === 408 || status === 429 || status >= 500) return 'retry';
  return 'rejected';
}

/** Google's error message of a body `{ error: { message, status } }`, else the HTTP status. */
function errorReason(status: number, body: unknown): string {
  const error = (body as { error?: { message?: unknown; status?: unknown } } | null)?.error;
  const message = typeof error?.message === 'string' ? error.message : null;
  const code = typeof error?.status === 'string' ? error.status : null;
  return [code, message].filter(Boolean).join(': ').slice(0, 500) || `HTTP ${status}`;
}

/** Asks the token endpoint for an access token of the service account (JWT bearer grant). */
async function fetchToken(options: GoogleWalletClientOptions, timeoutMs: number, issuer: GoogleIssuer): Promise<{ token: string; expiresAt: number }> {
  const now = Math.floor(Date.now() / 1000);
  const assertion = await new SignJWT({ scope: WALLET_SCOPE })
    .setProtectedHeader({ alg: 'RS256', typ: 'JWT', ...(issuer.privateKeyId ? { kid: issuer.privateKeyId } : {}) })
    .setIssuer(issuer.clientEmail)
    .setAudience(options.tokenUrl)
    .setIssuedAt(now)
    .setExpirationTime(now + 3600)
    .sign(createPrivateKey(issuer.privateKey));
  const response = await fetch(options.tokenUrl, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion }).toString(),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const body = (await response.json().catch(() => null)) as { access_token?: string; expires_in?: number; error_description?: string; error?: string } | null;
  if (!response.ok || !body?.access_token) {
    throw new GoogleTokenError(
      response.status,
      `The OAuth token endpoint refused the service account: ${response.status} ${body?.error ?? ''} ${body?.error_description ?? ''}`.trim(),
    );
  }
  return { token: body.access_token, expiresAt: Date.now() + Math.max(60, (body.expires_in ?? 3600) - 60) * 1000 };
}

/** One batch request (see {@link GoogleWalletClient.batch}). */
async function sendBatch(
  context: { token: (issuer: GoogleIssuer) => Promise<string>; throttle: (issuerId: string) => Promise<void>; apiUrl: string; timeoutMs: number },
  issuer: GoogleIssuer,
  requests: GoogleRequest[],
): Promise<GoogleResponse[]> {
  const { token, throttle, timeoutMs } = context;
  const api = new URL(context.apiUrl);
  const all = (response: GoogleResponse) => requests.map(() => response);
  let bearer: string;
  try {
    bearer = await token(issuer);
  } catch (error) {
    const status = error instanceof GoogleTokenError ? error.status : 0;
    return all({ status: status >= 500 ? status : status === 0 ? 0 : 401, body: null, reason: (error as Error).message.slice(0, 500) });
  }
  for (const _ of requests) await throttle(issuer.issuerId);
  const boundary = `batch_${randomUUID()}`;
  const body = encodeBatch(boundary, api.pathname.replace(/\/$/, ''), requests);
  let response: Response;
  try {
    response = await fetch(`${api.origin}/batch`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${bearer}`, 'Content-Type': `multipart/mixed; boundary=${boundary}` },
      body,
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (error) {
    return all({ status: 0, body: null, reason: `No answer from the Google Wallet API: ${(error as Error).message}`.slice(0, 500) });
  }
  const text = await response.text().catch(() => '');
  if (!response.ok) {
    let parsed: unknown = null;
    try {
      parsed = JSON.parse(text);
    } catch {}
    return all({ status: response.status, body: parsed, reason: errorReason(response.status, parsed) });
  }
  const parts = decodeBatch(response.headers.get('content-type') ?? '', text);
  return requests.map(
    (_, i) => parts[i] ?? { status: 0, body: null, reason: `The batch answer of the Google Wallet API had no part ${i + 1} of ${requests.length}.` },
  );
}

/** Makes a client. */
export function createGoogleWalletClient(options: GoogleWalletClientOptions): GoogleWalletClient {
  const tokens = new Map<string, Promise<{ token: string; expiresAt: number }>>();
  const timeoutMs = options.timeoutMs ?? 15_000;
  const throttle = options.throttle ?? (async () => {});

  async function token(issuer: GoogleIssuer): Promise<string> {
    const cached = tokens.get(issuer.cacheKey);
    if (cached) {
      const value = await cached.catch(() => null);
      if (value && value.expiresAt > Date.now()) return value.token;
    }
    const fresh = fetchToken(options, timeoutMs, issuer);
    tokens.set(issuer.cacheKey, fresh);
    fresh.catch(() => tokens.delete(issuer.cacheKey));
    return (await fresh).token;
  }

  async function once(issuer: GoogleIssuer, request: GoogleRequest): Promise<GoogleResponse> {
    let bearer: string;
    try {
      bearer = await token(issuer);
    } catch (error) {
      const status = error instanceof GoogleTokenError ? error.status : 0;
      // A refused grant (400/401) is the credentials' fault: not retried; no answer is.
      return { status: status >= 500 ? status : status === 0 ? 0 : 401, body: null, reason: (error as Error).message.slice(0, 500) };
    }
    await throttle(issuer.issuerId);
    let response: Response;
    try {
      response = await fetch(`${options.apiUrl}${request.path}`, {
        method: request.method,
        headers: { Authorization: `Bearer ${bearer}`, ...(request.body !== undefined ? { 'Content-Type': 'application/json' } : {}) },
        ...(request.body !== undefined ? { body: JSON.stringify(request.body) } : {}),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      return { status: 0, body: null, reason: `No answer from the Google Wallet API: ${(error as Error).message}`.slice(0, 500) };
    }
    const text = await response.text().catch(() => '');
    let body: unknown = null;
    try {
      body = text ? JSON.parse(text) : null;
    } catch {
      body = null;
    }
    return { status: response.status, body, reason: response.ok ? null : errorReason(response.status, body) };
  }

  return {
    async call(issuer, request) {
      const first = await once(issuer, request);
      if (first.status !== 401) return first;
      // An expired or revoked token: fetch a new one once.
      tokens.delete(issuer.cacheKey);
      return once(issuer, request);
    },
    async batch(issuer, requests) {
      if (!requests.length) return [];
      const context = { token, throttle, apiUrl: options.apiUrl, timeoutMs };
      const first = await sendBatch(context, issuer, requests);
      if (!first.every((r) => r.status === 401)) return first;
      tokens.delete(issuer.cacheKey);
      return sendBatch(context, issuer, requests);
    },
    async close() {
      tokens.clear();
    },
  };
}

/**
 * The body of a batch request: one `application/http` part per call, its request line naming the
 * API path (`PATCH /walletobjects/v1/loyaltyObject/<id> HTTP/1.1`), a JSON body when it has one.
 */
export function encodeBatch(boundary: string, apiPath: string, requests: GoogleRequest[]): string {
  const parts = requests.map((request, i) => {
    const json = request.body !== undefined ? JSON.stringify(request.body) : null;
    return [
      `--${boundary}`,
      'Content-Type: application/http',
      `Content-ID: <item${i + 1}>`,
      '',
      `${request.method} ${apiPath}${request.path} HTTP/1.1`,
      ...(json !== null ? ['Content-Type: application/json; charset=UTF-8', '', json] : ['']),
    ].join('\r\n');
  });
  return `${parts.join('\r\n')}\r\n--${boundary}--\r\n`;
}

/**
 * The answers of a batch response (`multipart/mixed`), in the order of the calls: each part's
 * `Content-ID: <response-itemN>` names its call; a part holds an HTTP response (status line,
 * headers, JSON body).
 */
export function decodeBatch(contentType: string, text: string): GoogleResponse[] {
  const boundary = /boundary="?([^";]+)"?/i.exec(contentType)?.[1];
  if (!boundary) return [];
  const answers: GoogleResponse[] = [];
  const chunks = text.split(`--${boundary}`).slice(1);
  chunks.forEach((chunk, position) => {
    if (chunk.startsWith('--')) return;
    const [outer = '', ...rest] = chunk.replace(/^\r?\n/, '').split(/\r?\n\r?\n/);
    const index = Number(/Content-ID:\s*<response-item(\d+)>/i.exec(outer)?.[1] ?? position + 1) - 1;
    const http = rest.join('\r\n\r\n');
    const status = Number(/^HTTP\/[\d.]+ (\d{3})/.exec(http)?.[1] ?? 0);
    const bodyText = http
      .split(/\r?\n\r?\n/)
      .slice(1)
      .join('\r\n\r\n')
      .trim();
    let body: unknown = null;
    try {
      body = bodyText ? JSON.parse(bodyText) : null;
    } catch {}
    answers[index] = { status, body, reason: status >= 200 && status < 300 ? null : errorReason(status, body) };
  });
  return answers;
}

/** The token endpoint refused or failed. */
class GoogleTokenError extends Error {
  override name = 'GoogleTokenError';
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}
