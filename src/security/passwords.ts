/**
 * Password hashing for readers (PassEntry API reference: the reader resource: the password is write-only). Passwords are stored only
 * as salted scrypt hashes (RFC 7914, Node's `crypto.scrypt`) and never logged.
 *
 * Stored form: `scrypt$<N>$<r>$<p>$<salt base64url>$<hash base64url>` — the cost parameters are
 * kept with each hash, so they can be raised later without invalidating stored passwords.
 *
 * @module security/passwords
 */
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { availableParallelism } from 'node:os';

/**
 * Cost parameters of new hashes: N = 2^15, r = 8, p = 1 — 32 MiB of memory (128·N·r bytes,
 * RFC 7914 §2) and, measured on a 2-core Intel Xeon server, about 0.14 s of one core per hash
 * (0.25–0.4 s of wall time while the machine was busy with other work). Percival's scrypt paper gives N = 2^14
 * for interactive logins; this is twice that. The contract states the figures
 * (openapi/components/schemas/ReaderPassword.yaml).
 */
export const SCRYPT_COST = { N: 32768, r: 8, p: 1 } as const;
const SALT_BYTES = 16;
const HASH_BYTES = 32;
const STORED = /^scrypt\$(\d+)\$(\d+)\$(\d+)\$([A-Za-z0-9_-]+)\$([A-Za-z0-9_-]+)$/;

/**
 * Hashes that may run at once: one core fewer than the machine has, at least one. Each runs on a
 * thread of libuv's pool (4 threads unless UV_THREADPOOL_SIZE says otherwise), never on the event
 * loop; without this bound a burst of reader writes took every core (and the pool that file and
 * DNS work also wait on), and the event loop, starved of CPU, answered other requests late.
 */
export const HASH_CONCURRENCY = Math.max(1, availableParallelism() - 1);
let hashing = 0;
const waitingToHash: (() => void)[] = [];

/** Runs `work` when fewer than {@link HASH_CONCURRENCY} hashes are running, in arrival order. */
async function whenHashingFree<T>(work: () => Promise<T>): Promise<T> {
  if (hashing < HASH_CONCURRENCY) hashing++;
  else await new Promise<void>((resolve) => waitingToHash.push(resolve));
  try {
    return await work();
  } finally {
    // The slot passes straight to the next waiter, or is freed.
    const next = waitingToHash.shift();
    if (next) next();
    else hashing--;
  }
}

/** scrypt through Node's asynchronous `crypto.scrypt` (the pool thread), never `scryptSync`. */
function derive(password: string, salt: Buffer, length: number, cost: { N: number; r: number; p: number }): Promise<Buffer> {
  const options: ScryptOptions = { ...cost, maxmem: 256 * cost.N * cost.r + 1024 * 1024 };
  return whenHashingFree(
    () => new Promise((resolve, reject) => scrypt(password.normalize('NFC'), salt, length, options, (error, key) => (error ? reject(error) : resolve(key)))),
  );
}

/**
 * Hashes a password with a fresh 16-byte salt.
 * @param password The password (normalised to Unicode NFC before hashing).
 * @returns The stored form, about 100 characters.
 */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const hash = await derive(password, salt, HASH_BYTES, SCRYPT_COST);
  const { N, r, p } = SCRYPT_COST;
  return `scrypt$${N}$${r}$${p}$${salt.toString('base64url')}$${hash.toString('base64url')}`;
}

/**
 * Checks a password against a stored hash in constant time.
 * @returns False for a wrong password or a stored value that is not a scrypt hash of this form.
 */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const match = STORED.exec(stored);
  if (!match) return false;
  const [, N, r, p, salt, hash] = match as unknown as [string, string, string, string, string, string];
  const expected = Buffer.from(hash, 'base64url');
  const actual = await derive(password, Buffer.from(salt, 'base64url'), expected.length, { N: Number(N), r: Number(r), p: Number(p) });
  return timingSafeEqual(actual, expected);
}
