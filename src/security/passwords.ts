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

/** Cost parameters of new hashes: N = 2^15, r = 8, p = 1 (about 32 MiB and tens of ms per hash). */
export const SCRYPT_COST = { N: 32768, r: 8, p: 1 } as const;
const SALT_BYTES = 16;
const HASH_BYTES = 32;
const STORED = /^scrypt\$(\d+)\$(\d+)\$(\d+)\$([A-Za-z0-9_-]+)\$([A-Za-z0-9_-]+)$/;

function derive(password: string, salt: Buffer, length: number, cost: { N: number; r: number; p: number }): Promise<Buffer> {
  const options: ScryptOptions = { ...cost, maxmem: 256 * cost.N * cost.r + 1024 * 1024 };
  return new Promise((resolve, reject) =>
    scrypt(password.normalize('NFC'), salt, length, options, (error, key) => (error ? reject(error) : resolve(key))),
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
