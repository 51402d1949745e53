/**
 * Transactions that lose to a concurrent one, and their bounded retry.
 *
 * PostgreSQL aborts a transaction with SQLSTATE `40P01` (deadlock detected) when it closes a cycle
 * of lock waits, and with `40001` (serialization failure) under stricter isolation or a
 * concurrent update it cannot serialize. Both say nothing about the request: the same work,
 * started again, normally succeeds. PostgreSQL's documentation advises exactly that — retry the
 * whole transaction, deadlocks included
 * (https://www.postgresql.org/docs/current/mvcc-serialization-failure-handling.html).
 *
 * Every balance path takes its locks in one order (the pass's row first, with `FOR NO KEY
 * UPDATE`; a transaction that changes several passes locks them by ascending id), so deadlocks
 * among them do not occur; the retry covers what remains (other lock orders, e.g. a pass and its
 * template, or an outside session). A transaction that still loses after
 * {@link CONTENTION_ATTEMPTS} attempts fails with the error, which the HTTP edge answers as 503
 * with `Retry-After` (src/http/errorHandler.ts), never 500.
 *
 * @module db/contention
 */

/** SQLSTATEs of a transaction aborted by a concurrent one (PostgreSQL docs, Appendix A, class 40). */
const CONTENTION_SQLSTATES = new Set(['40P01', '40001']);

/**
 * Prisma's code for "Transaction failed due to a write conflict or a deadlock" (Prisma docs,
 * error reference, P2034).
 */
const PRISMA_CONTENTION = 'P2034';

/** How many times a transaction runs at most before its contention error is let through. */
export const CONTENTION_ATTEMPTS = 6;

interface ErrorLike {
  code?: unknown;
  cause?: unknown;
  meta?: { code?: unknown; driverAdapterError?: { cause?: { originalCode?: unknown; kind?: unknown } } };
}

/**
 * True when `error` (anywhere in its `cause` chain) is a deadlock or serialization failure:
 * the driver's SQLSTATE `40P01`/`40001` (node-postgres, PGlite), Prisma's P2034, or Prisma's raw
 * query error P2010 whose driver adapter error carries one of those SQLSTATEs.
 */
export function isTransactionContention(error: unknown): boolean {
  const seen = new Set<unknown>();
  for (let current = error as ErrorLike | undefined; current && typeof current === 'object' && !seen.has(current); current = current.cause as ErrorLike) {
    seen.add(current);
    if (current.code === PRISMA_CONTENTION) return true;
    if (typeof current.code === 'string' && CONTENTION_SQLSTATES.has(current.code)) return true;
    const original = current.meta?.driverAdapterError?.cause?.originalCode;
    if (typeof original === 'string' && CONTENTION_SQLSTATES.has(original)) return true;
    if (typeof current.meta?.code === 'string' && CONTENTION_SQLSTATES.has(current.meta.code)) return true;
  }
  return false;
}

/**
 * Runs `attempt` and runs it again while it fails with {@link isTransactionContention}, at most
 * {@link CONTENTION_ATTEMPTS} times in all, waiting a random 5–20 ms × 2^(tries − 1) between
 * tries (jitter, so that the transactions that collided do not collide again in step).
 *
 * `attempt` must be a whole transaction (or one autocommit statement): everything it did in the
 * database was rolled back when it failed, so running it again is safe. Work outside the database
 * must not happen inside it.
 * @throws The last attempt's error, or any other error at once.
 */
export async function retryingContention<T>(attempt: () => Promise<T>): Promise<T> {
  for (let tries = 1; ; tries++) {
    try {
      return await attempt();
    } catch (error) {
      if (tries >= CONTENTION_ATTEMPTS || !isTransactionContention(error)) throw error;
      const waitMs = (5 + Math.random() * 15) * 2 ** (tries - 1);
      await new Promise((resolve) => setTimeout(resolve, waitMs));
    }
  }
}
