/**
 * Database access for idempotency keys (`idempotency_keys`): the rows src/http/idempotency.ts
 * claims, fills with a response and purges, always in the caller's write transaction.
 *
 * @module db/idempotencyKeyStore
 */
import type { PrismaExecutor } from './database.ts';

/** A key's row as another request stored it: what the request was, and what it answered. */
export interface StoredIdempotencyKey {
  fingerprint: string;
  /** Null until the request that claimed the key committed its response. */
  responseStatus: number | null;
  /** The response's JSON text, null as `responseStatus` is. */
  responseBody: string | null;
}

/** A key of an account's request. */
export interface IdempotencyKeyClaim {
  accountId: string;
  key: string;
  fingerprint: string;
  now: Date;
  expiresAt: Date;
}

/**
 * Inserts the key's row, or takes over an expired one (its response cleared).
 * @returns Whether this transaction holds the key now; when not, another row is live (the call
 *   waited for the transaction that wrote it).
 */
export async function insertIdempotencyKey(tx: PrismaExecutor, claim: IdempotencyKeyClaim): Promise<boolean> {
  const { accountId, key, fingerprint, now, expiresAt } = claim;
  const claimed = await tx.$queryRaw<unknown[]>`
    INSERT INTO idempotency_keys (account_id, key, fingerprint, created_at, expires_at)
    VALUES (${accountId}::uuid, ${key}, ${fingerprint}, ${now}, ${expiresAt})
    ON CONFLICT (account_id, key) DO UPDATE
      SET fingerprint = EXCLUDED.fingerprint, created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at,
          response_status = NULL, response_body = NULL
      WHERE idempotency_keys.expires_at <= EXCLUDED.created_at
    RETURNING 1`;
  return claimed.length > 0;
}

/** The key's row, or undefined. */
export async function selectIdempotencyKey(tx: PrismaExecutor, accountId: string, key: string): Promise<StoredIdempotencyKey | undefined> {
  const row = await tx.idempotencyKey.findUnique({
    where: { accountId_key: { accountId, key } },
    select: { fingerprint: true, responseStatus: true, responseBody: true },
  });
  return row ?? undefined;
}

/**
 * Removes up to `limit` expired rows of the account, skipping rows other transactions hold
 * (`FOR UPDATE SKIP LOCKED`).
 */
export async function purgeIdempotencyKeys(tx: PrismaExecutor, accountId: string, now: Date, limit: number): Promise<void> {
  await tx.$executeRaw`
    DELETE FROM idempotency_keys WHERE ctid IN (
      SELECT ctid FROM idempotency_keys WHERE account_id = ${accountId}::uuid AND expires_at <= ${now}
      LIMIT ${limit} FOR UPDATE SKIP LOCKED)`;
}

/** Stores the response of the request that holds the key. */
export async function storeIdempotentResponse(tx: PrismaExecutor, accountId: string, key: string, response: { status: number; body: string }): Promise<void> {
  await tx.$executeRaw`
    UPDATE idempotency_keys SET response_status = ${response.status}, response_body = ${response.body}
    WHERE account_id = ${accountId}::uuid AND key = ${key}`;
}
