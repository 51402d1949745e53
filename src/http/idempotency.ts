/**
 * The `Idempotency-Key` request header (the contract's `IdempotencyKey` parameter; modelled on
 * the IETF draft "The Idempotency-Key HTTP Header Field"): a write sent with a key runs once per
 * account and key within {@link IDEMPOTENCY_TTL_MS}; a retry of the same request gets the stored
 * response again with `Idempotent-Replayed: true`, and a different request with the same key is
 * refused with 422.
 *
 * Mechanism: the key's row (table `idempotency_keys`, primary key `(account_id, key)`) is
 * inserted first, inside the same database transaction as the operation, and updated with the
 * response before commit. So the row commits together with the operation's effects and its
 * response, or not at all (an operation that fails leaves no row, and a retry runs again). A
 * concurrent request with the same key blocks on the primary key until the first transaction
 * ends; then it finds the committed row and replays it — exactly one effect. On PGlite (one
 * connection) transactions run one after the other, with the same outcome.
 *
 * @module http/idempotency
 */
import { createHash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { Database, PrismaExecutor } from '../db/database.ts';
import { insertIdempotencyKey, purgeIdempotencyKeys, selectIdempotencyKey, storeIdempotentResponse } from '../db/idempotencyKeyStore.ts';
import { UnprocessableError } from '../errors.ts';
import type { OperationId } from './operation.ts';

/** How long a stored response is replayed: 24 hours, in ms (the contract's IdempotencyKey). */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

/** Response header marking a replayed response. */
export const REPLAYED_HEADER = 'Idempotent-Replayed';

/** Expired rows of the account removed per keyed request, so the table does not grow without bound. */
const PURGE_BATCH = 20;

/**
 * JSON with object keys sorted at every depth, so that two bodies that differ only in key order
 * have the same fingerprint. Recursive: request bodies reach it with their depth bounded
 * (src/http/jsonDepth.ts).
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

/** What identifies a request for its key. */
export interface IdempotentRequest {
  /** The `Idempotency-Key` header. */
  key: string;
  accountId: string;
  /** Stands for the method (one operation per method and path). */
  operationId: OperationId;
  /** The request path and query as received. */
  url: string;
  /** The parsed request body (undefined when there is none). */
  body: unknown;
}

/**
 * Lowercase hex SHA-256 of a request: operation, path, query parameters (sorted, as sent) and
 * body (canonical JSON).
 */
export function requestFingerprint(request: Pick<IdempotentRequest, 'operationId' | 'url' | 'body'>): string {
  const url = new URL(request.url, 'http://placeholder');
  const query = [...url.searchParams.entries()].sort(([a, x], [b, y]) => (a === b ? (x < y ? -1 : x > y ? 1 : 0) : a < b ? -1 : 1));
  const text = canonicalJson({ operationId: request.operationId, path: url.pathname, query, body: request.body ?? null });
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** The `Idempotency-Key` header of a request (the contract checked its form), or undefined. */
export function idempotencyKeyOf(headers: IncomingHttpHeaders): string | undefined {
  const value = headers['idempotency-key'];
  return Array.isArray(value) ? value[0] : value;
}

/** A handler result: a status and a JSON body (and headers added on replay). */
export interface StoredResult {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

/**
 * Claims `key` for this request inside `tx`: inserts its row, or takes over an expired one.
 * @returns null when this request owns the key now; otherwise the live row's fingerprint and
 *   stored response (committed by an earlier request, which this call waited for).
 */
async function claim(tx: PrismaExecutor, accountId: string, key: string, fingerprint: string, now: Date) {
  const expiresAt = new Date(now.getTime() + IDEMPOTENCY_TTL_MS);
  if (await insertIdempotencyKey(tx, { accountId, key, fingerprint, now, expiresAt })) return null;
  const stored = await selectIdempotencyKey(tx, accountId, key);
  if (!stored || stored.responseStatus === null || stored.responseBody === null) {
    // Unreachable: a visible row was committed with its response.
    throw new Error(`Idempotency key row of ${key} has no stored response.`);
  }
  return { fingerprint: stored.fingerprint, status: stored.responseStatus, body: stored.responseBody };
}

/**
 * Runs an operation once per idempotency key, in one write transaction with the key's row.
 *
 * A first request runs `operation` and stores its response with the key; a request whose key is
 * stored with the same fingerprint returns the stored status and body with
 * `Idempotent-Replayed: true` and runs nothing; a concurrent one waits for the first to commit,
 * then replays. Expired rows of the account are removed on the way (a bounded batch, skipping rows
 * other transactions hold). The router (src/http/routes.ts) calls this for every request with an
 * `Idempotency-Key` to an operation whose contract declares the header.
 *
 * @param db The database (the transaction is opened here, with `db.write`).
 * @param request The key and what identifies the request.
 * @param now The current time (rows live {@link IDEMPOTENCY_TTL_MS} from it).
 * @param operation The operation; it must do all its database work through the given transaction.
 * @returns The operation's result, or the replayed one.
 * @throws UnprocessableError (422, `idempotency_key_reused`, source header `Idempotency-Key`)
 *   when the key is stored for a different request; whatever `operation` throws (then nothing
 *   is stored).
 */
export async function runIdempotent<R extends StoredResult>(
  db: Database,
  request: IdempotentRequest,
  now: Date,
  operation: (tx: PrismaExecutor) => Promise<R>,
): Promise<R> {
  const { key, accountId } = request;
  const fingerprint = requestFingerprint(request);
  return db.write(async (tx) => {
    const stored = await claim(tx, accountId, key, fingerprint, now);
    if (stored) {
      if (stored.fingerprint !== fingerprint) {
        throw new UnprocessableError(
          'idempotency_key_reused',
          `The Idempotency-Key ${key} was used for a different request; use a new key for a new request.`,
          { header: 'Idempotency-Key' },
        );
      }
      return { status: stored.status, body: JSON.parse(stored.body) as unknown, headers: { [REPLAYED_HEADER]: 'true' } } as unknown as R;
    }
    await purgeIdempotencyKeys(tx, accountId, now, PURGE_BATCH);
    const result = await operation(tx);
    await storeIdempotentResponse(tx, accountId, key, { status: result.status, body: JSON.stringify(result.body) });
    return result;
  });
}
