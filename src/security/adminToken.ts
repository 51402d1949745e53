/**
 * The operator's administration token: where it comes from and how it is checked.
 *
 * @module security/adminToken
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { join } from 'node:path';
import type { Config } from '../config.ts';
import type { Logger } from '../logger.ts';
import { AuthenticationError } from '../errors.ts';
import { bearerCredential, sha256Hex } from './apiTokens.ts';
import { readOrCreateSecretFile } from './secretFile.ts';

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
  const { value, created } = await readOrCreateSecretFile(path, () => `wpa_${randomBytes(32).toString('base64url')}`);
  logger.info({ path }, created ? 'generated an administration token; read it from this file' : 'using the administration token from this file');
  return value;
}

/**
 * Checks a request's admin credential in constant time. The error details name the
 * administration token (never an API key, which is refused here) and where it comes from.
 * @throws UnauthorizedError when the API is disabled or the credential is missing or wrong.
 */
export function verifyAdminToken(expected: string | undefined, authorization: string | undefined): void {
  if (!expected) {
    throw new AuthenticationError('The administration API is disabled: the operator has not set ADMIN_TOKEN.');
  }
  const presented = bearerCredential(authorization, 'administration token');
  if (!timingSafeEqual(Buffer.from(sha256Hex(presented), 'hex'), Buffer.from(sha256Hex(expected), 'hex'))) {
    // An account's API key (`wps_…`, src/security/apiTokens.ts) is the likely mistake: say so.
    if (presented.startsWith('wps_')) {
      throw new AuthenticationError(
        `An account's API key is not accepted here; send "Authorization: Bearer <administration token>" (ADMIN_TOKEN, or the file <DATA_DIR>/${ADMIN_TOKEN_FILE}).`,
      );
    }
    throw new AuthenticationError('The administration token is wrong.');
  }
}
