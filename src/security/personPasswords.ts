/**
 * Passwords of people: Argon2id (RFC 9106, https://www.rfc-editor.org/rfc/rfc9106)
 * through `@node-rs/argon2`, with OWASP's parameters for Argon2id — 19 MiB of memory, 2
 * iterations, 1 lane (Password Storage Cheat Sheet,
 * https://cheatsheetseries.owasp.org/cheatsheets/Password_Storage_Cheat_Sheet.html#argon2id).
 * The stored form is the PHC string (`$argon2id$v=19$m=19456,t=2,p=1$…`), which carries its
 * parameters, so they can be raised later. Passwords are never logged.
 *
 * @module security/personPasswords
 */
import { hash, verify } from '@node-rs/argon2';

/** `Algorithm.Argon2id` of the package (a const enum, which this build cannot import). */
const ARGON2ID = 2;

/** Argon2id parameters of new hashes (see the module comment). */
export const ARGON2_OPTIONS = { algorithm: ARGON2ID, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

/** A hash of nothing anyone knows: verified against when the address is unknown, so that the answer takes as long. */
let decoy: Promise<string> | undefined;

/** The Argon2id PHC string of `password`. */
export function hashPersonPassword(password: string): Promise<string> {
  return hash(password, ARGON2_OPTIONS);
}

/**
 * Whether `password` matches `stored`. With no stored hash (an unknown address, a person without
 * a password) a decoy hash is verified and false returned, in about the same time.
 */
export async function verifyPersonPassword(stored: string | null | undefined, password: string): Promise<boolean> {
  if (!stored) {
    decoy ??= hash('decoy password that matches nothing', ARGON2_OPTIONS);
    await verify(await decoy, password).catch(() => false);
    return false;
  }
  return verify(stored, password).catch(() => false);
}
