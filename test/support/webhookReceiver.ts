/**
 * A local HTTP endpoint (HTTPS where `listen` says, in the field suite) standing in for a customer's webhook receiver (the outside edge of
 * webhook delivery): it records every request (headers, raw body, time) and answers as scripted —
 * 200 by default, or a queue of statuses, delays and dropped connections for the next requests.
 *
 * Usage:
 *   const receiver = await startWebhookReceiver();
 *   receiver.script(503, 503);            // the next two requests get 503, then 200 again
 *   const [request] = await receiver.waitFor(1);
 *   verifyWebhookSignature(secret, request);
 *   await receiver.close();
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders, RequestListener } from 'node:http';
import { listenWith, type ListenOptions } from './listen.ts';

/** One request received. */
export interface ReceivedWebhook {
  path: string;
  headers: IncomingHttpHeaders;
  /** The body as received (what the signature covers). */
  raw: Buffer;
  /** The body parsed as JSON. */
  body: any;
  /** When it arrived (ms since the epoch). */
  at: number;
  /** The status answered. */
  status: number;
}

/** What to answer to one request: a status, or `'hang'` (never answer), or `'drop'` (close the connection). */
export type ScriptedAnswer = number | 'hang' | 'drop';

export interface WebhookReceiver {
  /** `http://127.0.0.1:<port>` by default (add any path). */
  url: string;
  port: number;
  received: ReceivedWebhook[];
  /** Queues the answers of the next requests; after them, 200. */
  script(...answers: ScriptedAnswer[]): void;
  /** Resolves with the first `count` requests (matching `filter`) once they arrived. */
  waitFor(count: number, options?: { timeoutMs?: number; filter?: (r: ReceivedWebhook) => boolean }): Promise<ReceivedWebhook[]>;
  /** Forgets what was received and scripted. */
  reset(): void;
  close(): Promise<void>;
}

/** Starts a receiver on 127.0.0.1 and a free port over HTTP, or where `listen` says. */
export async function startWebhookReceiver(listen?: ListenOptions): Promise<WebhookReceiver> {
  const received: ReceivedWebhook[] = [];
  let answers: ScriptedAnswer[] = [];
  const hanging = new Set<import('node:http').ServerResponse>();
  const handler: RequestListener = (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const answer = answers.shift() ?? 200;
      let body: unknown = null;
      try {
        body = JSON.parse(raw.toString('utf8'));
      } catch {
        body = null;
      }
      received.push({ path: req.url ?? '/', headers: req.headers, raw, body, at: Date.now(), status: typeof answer === 'number' ? answer : 0 });
      if (answer === 'hang') {
        hanging.add(res);
        return;
      }
      if (answer === 'drop') {
        req.socket.destroy();
        return;
      }
      res.writeHead(answer, { 'Content-Type': 'text/plain' }).end(answer < 300 ? 'ok' : `scripted ${answer}`);
    });
  };
  const listening = await listenWith(handler, listen);
  const { port } = listening;
  return {
    url: `${listening.scheme}://${listen?.addresses?.[0] ?? '127.0.0.1'}:${port}`,
    port,
    received,
    script: (...next) => {
      answers.push(...next);
    },
    async waitFor(count, { timeoutMs = 20_000, filter = () => true } = {}) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const matching = received.filter(filter);
        if (matching.length >= count) return matching.slice(0, count);
        if (Date.now() > deadline) throw new Error(`The receiver got ${matching.length} of ${count} expected requests within ${timeoutMs} ms.`);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    },
    reset() {
      received.length = 0;
      answers = [];
    },
    async close() {
      for (const res of hanging) res.destroy();
      await listening.close();
    },
  };
}

/**
 * Checks a received webhook as the documentation tells receivers to: `X-Webhook-Signature` is the
 * hex HMAC-SHA256 of the raw body with the secret, `X-Webhook-Signature-V2` that of
 * `<X-Webhook-Timestamp>.<raw body>`; both compared in constant time.
 */
export function verifyWebhookSignature(secret: string, request: Pick<ReceivedWebhook, 'headers' | 'raw'>): boolean {
  const same = (given: unknown, expected: Buffer) => {
    const bytes = Buffer.from(String(given ?? ''), 'hex');
    return bytes.length === expected.length && timingSafeEqual(bytes, expected);
  };
  const timestamp = String(request.headers['x-webhook-timestamp'] ?? '');
  return (
    same(request.headers['x-webhook-signature'], createHmac('sha256', secret).update(request.raw).digest()) &&
    same(request.headers['x-webhook-signature-v2'], createHmac('sha256', secret).update(`${timestamp}.`).update(request.raw).digest())
  );
}
