/**
 * A stand-in for the Google Wallet API and Google's OAuth token endpoint, for tests and
 * benchmarks: plain HTTP on 127.0.0.1 (or where `listen` says: HTTPS at Google's simulated
 * addresses in the field suite), recording every call (method, path, body, time, the
 * bearer token). The token endpoint checks the JWT bearer grant (RFC 7523) against the service
 * account's public key and hands out tokens; the API answers only those tokens (401 otherwise)
 * and keeps classes and objects in memory with Google's semantics: insert (POST) answers 409 for
 * an existing id, get/patch/update answer 404 for a missing one, patch merges top-level members,
 * addMessage appends to `messages` and refuses a fourth TEXT_AND_NOTIFY per object within 24 h
 * (429 QuotaExceededException, https://developers.google.com/wallet/generic/use-cases/trigger-push-notifications).
 * `failNext` programs answers (429, 5xx, 400) for the next API calls. The batch endpoint
 * (`POST /batch`, `multipart/mixed` of `application/http` parts,
 * https://developers.google.com/wallet/generic/resources/batch-requests) answers each inner call as
 * if it came alone: inner calls are in `calls` (with `batch`, the batch request's number, from 1),
 * the batch requests themselves in `batches`.
 */
import { randomBytes, type KeyObject } from 'node:crypto';
import type { RequestListener } from 'node:http';
import { jwtVerify } from 'jose';
import { listenWith, type ListenOptions } from './listen.ts';

/** A call the stand-in received. */
export interface GoogleCall {
  method: string;
  /** Path below the API base (`/loyaltyObject/…`), or `/token`. */
  path: string;
  body: any;
  at: number;
  /** The number of the batch request that carried it (1 for the first), if one did. */
  batch?: number;
}

export interface FakeGoogleWallet {
  /** The API base (`GOOGLE_WALLET_API_URL`). */
  apiUrl: string;
  /** The token endpoint (`GOOGLE_OAUTH_TOKEN_URL`). */
  tokenUrl: string;
  /** Every API call, in order (token requests are in `tokenRequests`). */
  calls: GoogleCall[];
  tokenRequests: GoogleCall[];
  /** The batch requests (`POST /batch`), each with the number of calls it carried. */
  batches: { at: number; calls: number }[];
  /** Stored resources by id (classes and objects). */
  resources: Map<string, Record<string, any>>;
  /** Answers the next API calls with these statuses (and a Google error body), in order. */
  failNext(...statuses: number[]): void;
  /** Invalidates every access token handed out (the API then answers 401 until a new grant). */
  revokeTokens(): void;
  /** Forgets calls, resources and programmed answers. */
  reset(): void;
  /** Forgets the calls and batch requests received so far (keeps resources). */
  forgetCalls(): void;
  close(): Promise<void>;
}

const ERROR_STATUS: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  404: 'NOT_FOUND',
  409: 'ALREADY_EXISTS',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  503: 'UNAVAILABLE',
};

/** Options of {@link startFakeGoogleWallet}. */
export interface FakeGoogleWalletOptions {
  /** Verifies the service account's assertions. */
  publicKey: KeyObject;
  clientEmail: string;
  delayMs?: number;
  /** Where it listens (default: HTTP on 127.0.0.1, a free port). */
  listen?: ListenOptions;
  /** The `aud` the token endpoint expects (default: its own `tokenUrl`); Google's is `https://oauth2.googleapis.com/token`. */
  tokenAudience?: string;
}

/** Starts the stand-in. */
export async function startFakeGoogleWallet(options: FakeGoogleWalletOptions): Promise<FakeGoogleWallet> {
  const calls: GoogleCall[] = [];
  const batches: { at: number; calls: number }[] = [];
  const tokenRequests: GoogleCall[] = [];
  const resources = new Map<string, Record<string, any>>();
  const tokens = new Set<string>();
  let programmed: number[] = [];
  const notifications = new Map<string, number[]>();

  /** Answers one API call (alone or inside a batch) with Google's semantics. */
  const dispatch = (method: string, path: string, body: any): { status: number; body: unknown } => {
    const ok = (status: number, answer: unknown) => ({ status, body: answer });
    const fail = (status: number, message: string) => ({
      status,
      body: { error: { code: status, message, status: ERROR_STATUS[status] ?? 'FAILED_PRECONDITION' } },
    });
    const match = /^\/([A-Za-z]+)(?:\/([^/]+))?(\/addMessage)?$/.exec(path);
    if (!match) return fail(404, 'No such method.');
    const [, resource, rawId, addMessage] = match;
    const id = rawId ? decodeURIComponent(rawId) : undefined;
    if (method === 'POST' && !id) {
      if (!body?.id) return fail(400, 'id is required.');
      if (resources.has(body.id)) return fail(409, `Resource ${body.id} already exists.`);
      resources.set(body.id, { ...body, kind: `walletobjects#${resource}` });
      return ok(200, resources.get(body.id));
    }
    const existing = id ? resources.get(id) : undefined;
    if (!existing) return fail(404, `Resource ${id} not found.`);
    if (method === 'GET') return ok(200, existing);
    if (method === 'PATCH') return ok(200, Object.assign(existing, body));
    if (method === 'PUT') {
      resources.set(id!, { ...body, kind: existing.kind });
      return ok(200, resources.get(id!));
    }
    if (method === 'POST' && addMessage) {
      const message = body?.message;
      if (message?.messageType === 'TEXT_AND_NOTIFY') {
        const recent = (notifications.get(id!) ?? []).filter((t) => t > Date.now() - 24 * 3600 * 1000);
        if (recent.length >= 3) return fail(429, 'QuotaExceededException: the object has had 3 notifications in the last 24 hours.');
        notifications.set(id!, [...recent, Date.now()]);
      }
      existing.messages = [...(existing.messages ?? []), message];
      return ok(200, { resource: existing });
    }
    return fail(400, 'Unsupported call.');
  };

  const handler: RequestListener = (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const send = (status: number, body: unknown) => {
          res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
        };
        const error = (status: number, message: string) =>
          send(status, { error: { code: status, message, status: ERROR_STATUS[status] ?? 'FAILED_PRECONDITION' } });
        if (req.url === '/token') {
          const form = new URLSearchParams(text);
          tokenRequests.push({ method: req.method!, path: '/token', body: Object.fromEntries(form), at: Date.now() });
          if (form.get('grant_type') !== 'urn:ietf:params:oauth:grant-type:jwt-bearer') return send(400, { error: 'unsupported_grant_type' });
          try {
            const { payload } = await jwtVerify(form.get('assertion') ?? '', options.publicKey, {
              issuer: options.clientEmail,
              audience: options.tokenAudience ?? tokenUrl,
            });
            if (payload.scope !== 'https://www.googleapis.com/auth/wallet_object.issuer') return send(400, { error: 'invalid_scope' });
          } catch {
            return send(400, { error: 'invalid_grant', error_description: 'Invalid JWT Signature.' });
          }
          const token = `ya29.${randomBytes(12).toString('hex')}`;
          tokens.add(token);
          return send(200, { access_token: token, expires_in: 3599, token_type: 'Bearer' });
        }
        const bearerOf = () => /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
        if (req.url === '/batch' && req.method === 'POST') {
          const bearer = bearerOf();
          if (!bearer || !tokens.has(bearer)) return error(401, 'Request had invalid authentication credentials.');
          const boundary = /boundary="?([^";]+)"?/.exec(req.headers['content-type'] ?? '')?.[1];
          if (!boundary) return error(400, 'A batch request must be multipart/mixed with a boundary.');
          const inner = text
            .split(`--${boundary}`)
            .slice(1)
            .filter((part) => !part.startsWith('--'))
            .map((part) => {
              // The part's own headers, a blank line, then the HTTP request.
              const http = part.includes('\r\n\r\n') ? part.slice(part.indexOf('\r\n\r\n') + 4) : '';
              const [requestLine = '', ...rest] = http.split('\r\n');
              const [method = '', target = ''] = requestLine.split(' ');
              const json = rest.join('\r\n').split('\r\n\r\n').slice(1).join('\r\n\r\n').trim();
              return { method, path: target.replace(/^\/walletobjects\/v1/, ''), body: json ? JSON.parse(json) : null };
            });
          batches.push({ at: Date.now(), calls: inner.length });
          const out = `batch_${randomBytes(6).toString('hex')}`;
          const parts = inner.map((call, i) => {
            calls.push({ ...call, at: Date.now(), batch: batches.length });
            const next = programmed.shift();
            const answer = next
              ? { status: next, body: { error: { code: next, message: `Programmed answer ${next}.`, status: ERROR_STATUS[next] } } }
              : dispatch(call.method, call.path, call.body);
            return `--${out}\r\nContent-Type: application/http\r\nContent-ID: <response-item${i + 1}>\r\n\r\nHTTP/1.1 ${answer.status} X\r\nContent-Type: application/json; charset=UTF-8\r\n\r\n${JSON.stringify(answer.body)}\r\n`;
          });
          res.writeHead(200, { 'Content-Type': `multipart/mixed; boundary=${out}` }).end(`${parts.join('')}--${out}--\r\n`);
          return;
        }
        const path = (req.url ?? '').replace(/^\/walletobjects\/v1/, '');
        const body = text ? JSON.parse(text) : null;
        calls.push({ method: req.method!, path, body, at: Date.now() });
        if (options.delayMs) await new Promise((r) => setTimeout(r, options.delayMs));
        const bearer = bearerOf();
        if (!bearer || !tokens.has(bearer)) return error(401, 'Request had invalid authentication credentials.');
        const next = programmed.shift();
        if (next) return error(next, `Programmed answer ${next}.`);
        const answer = dispatch(req.method!, path, body);
        return send(answer.status, answer.body);
      })().catch((e: Error) => res.writeHead(500).end(JSON.stringify({ error: { code: 500, message: e.message, status: 'INTERNAL' } })));
    });
  };
  const listening = await listenWith(handler, options.listen);
  const origin = `${listening.scheme}://${options.listen?.addresses?.[0] ?? '127.0.0.1'}:${listening.port}`;
  const tokenUrl = `${origin}/token`;
  return {
    apiUrl: `${origin}/walletobjects/v1`,
    tokenUrl,
    calls,
    batches,
    tokenRequests,
    resources,
    failNext: (...statuses) => {
      programmed.push(...statuses);
    },
    revokeTokens: () => tokens.clear(),
    forgetCalls() {
      calls.length = 0;
      batches.length = 0;
    },
    reset() {
      calls.length = 0;
      batches.length = 0;
      tokenRequests.length = 0;
      resources.clear();
      notifications.clear();
      programmed = [];
    },
    close: () => listening.close(),
  };
}
