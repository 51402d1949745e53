/**
 * The operator's administration token: where it comes from and how it is checked.
 *
 * @module security/adminToken
 */
import { timingSafeEqual } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Config } from '../config.ts';
import type { Logger } from '../logger.ts';
import { UnauthorizedError } from '../http/errors.ts';
import { bearerCredential, sha256Hex } from './apiTokens.ts';

/** File name of the generated token inside the data directory. */
export const ADMIN_TOKEN_FILE = 'admin-token';

/** Path of the generated admin token file. */
export function adminTokenPath(dataDir: string): string {
  return join(dataDir, ADMIN_TOKEN_FILE);
}

/**
 * Decides the admin token: `ADMIN_TOKEN` when set; otherwise, on the embedded default, the one
 * in `<DATA_DIR>/admin-token`, generated (mode 0600) at first start. With PostgreSQL and no
 * `ADMIN_TOKEN` there is none and the administration API answers 401.
 * @returns The token, or undefined when the administration API is disabled.
 */
export async function resolveAdminToken(config: Config, logger: Logger): Promise<string | undefined> {
  if (config.adminToken) return config.adminToken;
  if (config.databaseUrl) {
    logger.warn('ADMIN_TOKEN is not set: the administration API (/admin/v1) is disabled.');
    return undefined;
  }
  const path = adminTokenPath(config.dataDir);
  await mkdir(config.dataDir, { recursive: true });
  try {
    const token = `wpa_${randomBytes(32).toString('base64url')}`;
    await writeFile(path, `${token}\n`, { mode: 0o600, flag: 'wx' });
    logger.info({ path }, 'generated an administration token; read it from this file');
    return token;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    logger.info({ path }, 'using the administration token from this file');
    return (await readFile(path, 'utf8')).trim();
  }
}

/**
 * Checks a request's admin credential in constant time.
 * @throws UnauthorizedError when the API is disabled or the credential is missing or wrong.
 */
export function verifyAdminToken(expected: string | undefined, authorization: string | undefined): void {
  if (!expected) {
    throw new UnauthorizedError('The administration API is disabled: the operator has not set ADMIN_TOKEN.');
  }
  const presented = bearerCredential(authorization);
  if (!timingSafeEqual(Buffer.from(sha256Hex(presented), 'hex'), Buffer.from(sha256Hex(expected), 'hex'))) {
    throw new UnauthorizedError('The administration token is wrong.');
  }
}
