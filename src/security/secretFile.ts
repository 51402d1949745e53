/**
 * Secrets the service generates for itself on the embedded default (the administration token,
 * the secrets key), kept in files of the data directory that only the service user can read.
 *
 * @module security/secretFile
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';

/** The secret read from, or just written to, its file. */
export interface SecretFileValue {
  /** The file's content without surrounding whitespace. */
  value: string;
  /** True when this call generated the file. */
  created: boolean;
}

/**
 * Reads a secret file, creating it first (mode 0600, exclusive create) when it does not exist.
 * Two processes starting at once agree on one value: the loser of the exclusive create reads the
 * winner's file.
 * @param path The file.
 * @param generate Makes a new secret (called only when the file is missing).
 * @throws The filesystem error when the directory or file cannot be created or read.
 */
export async function readOrCreateSecretFile(path: string, generate: () => string): Promise<SecretFileValue> {
  await mkdir(dirname(path), { recursive: true });
  const value = generate();
  try {
    await writeFile(path, `${value}\n`, { mode: 0o600, flag: 'wx' });
    return { value, created: true };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return { value: (await readFile(path, 'utf8')).trim(), created: false };
  }
}
