/**
 * API keys: generation, storage form and verification.
 *
 * A key is `wps_` + 43 base64url characters (32 random bytes), so leaked keys are greppable. The
 * database keeps only its SHA-256 hash (hex) and the first 12 characters as a non-secret prefix.
 * Verification looks candidates up by prefix and compares hashes in constant time.
 *
 * @module security/apiTokens
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { selectApiTokensByPrefix, touchApiToken } from '../db/apiTokenStore.ts';
import type { PrismaClient } from '../db/database.ts';
import { AuthenticationError } from '../errors.ts';
import type { ApiTokenCache } from './apiTokenCache.ts';
import { type ApiKeyKind, type ApiKeyPrincipal, scopesOfKind } from './principal.ts';

/**
 * Shape of every API key: `wps_` and 43 base64url characters — 32 random bytes for secret and
 * restricted keys, `pk_` and 30 random bytes (40 characters) for publishable keys.
 */
export const API_TOKEN_PATTERN = /^wps_[A-Za-z0-9_-]{43}$/;
/** Length of the stored, displayable prefix. */
export const API_TOKEN_PREFIX_LENGTH = 12;
/** `lastUsedAt` is refreshed at most this often, in ms, to keep authentication read-mostly. */
export const LAST_USED_RESOLUTION_MS = 60_000;

/** A freshly generated key and what is stored of it. */
export interface GeneratedApiToken {
  token: string;
  prefix: string;
  tokenHash: string;
}

/** Lowercase hex SHA-256 of a string. */
export function sha256Hex(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex');
}

/** Generates a new API key; a publishable one starts with `wps_pk_`. */
export function generateApiToken(kind: ApiKeyKind = 'secret'): GeneratedApiToken {
  const token = kind === 'publishable' ? `wps_pk_${randomBytes(30).toString('base64url')}` : `wps_${randomBytes(32).toString('base64url')}`;
  return { token, prefix: token.slice(0, API_TOKEN_PREFIX_LENGTH), tokenHash: sha256Hex(token) };
}

/**
 * Extracts the credential of an `Authorization: Bearer <credential>` header (RFC 6750 §2.1).
 * @param credential What the operation takes, named in the error detail: `API key` (`/api/v1`)
 *   or `administration token` (`/admin/v1`, `/metrics`).
 * @throws UnauthorizedError when the header is missing or not a bearer credential.
 */
export function bearerCredential(header: string | undefined, credential: 'API key' | 'administration token' = 'API key'): string {
  if (!header) throw new AuthenticationError(`The Authorization header is missing; send "Authorization: Bearer <${credential}>".`, 'invalid_request');
  const match = /^Bearer[ ]+([A-Za-z0-9._~+/-]+=*)\s*$/i.exec(header);
  if (!match?.[1]) throw new AuthenticationError(`The Authorization header must be "Bearer <${credential}>".`, 'invalid_request');
  return match[1];
}

/**
 * Resolves the account of an API key, from `cache` when it holds the key (no database read; see
 * src/security/apiTokenCache.ts for why that stays correct after a revocation), else from the
 * database (and then kept in `cache`).
 * @param prisma Database client.
 * @param token The presented key.
 * @param now Current time (refreshes `lastUsedAt` when older than a minute).
 * @param cache Verified keys of this process; omit to always read the database.
 * @returns The key as a caller (src/security/principal.ts): its account, kind, scopes and limits.
 * @throws UnauthorizedError when the key is malformed, unknown, revoked or expired.
 */
export async function authenticateApiToken(prisma: PrismaClient, token: string, now: Date, cache?: ApiTokenCache): Promise<ApiKeyPrincipal> {
  if (!API_TOKEN_PATTERN.test(token)) throw new AuthenticationError('The API key is malformed.');
  const tokenHash = sha256Hex(token);
  const cached = cache?.get(tokenHash);
  if (cached) {
    if (usedLongAgo(cached.lastUsedAt, now)) {
      cached.lastUsedAt = now.getTime();
      await touchApiToken(prisma, cached.id, now);
    }
    refuseExpired(cached.principal, now);
    return cached.principal;
  }
  const generation = cache?.currentGeneration() ?? 0;
  const presented = Buffer.from(tokenHash, 'hex');
  const candidates = await selectApiTokensByPrefix(prisma, token.slice(0, API_TOKEN_PREFIX_LENGTH));
  const match = candidates.find((c) => timingSafeEqual(Buffer.from(c.tokenHash, 'hex'), presented));
  if (!match) throw new AuthenticationError('The API key is unknown.');
  if (match.revokedAt) throw new AuthenticationError('The API key has been revoked.');
  let lastUsedAt = match.lastUsedAt?.getTime() ?? null;
  if (usedLongAgo(lastUsedAt, now)) {
    lastUsedAt = now.getTime();
    await prisma.apiToken.update({ where: { id: match.id }, data: { lastUsedAt: now } });
  }
  const kind = match.kind as ApiKeyKind;
  const principal: ApiKeyPrincipal = {
    type: 'api_key',
    id: match.id,
    accountId: match.accountId,
    name: match.name,
    kind,
    scopes: scopesOfKind(kind, match.scopes ?? []),
    templateIds: match.templateIds ?? [],
    entityIds: match.entityIds ?? [],
    expiresAt: match.expiresAt?.getTime() ?? null,
    allowedCidrs: match.allowedCidrs ?? [],
    allowedOrigins: match.allowedOrigins ?? [],
  };
  cache?.remember(tokenHash, { id: match.id, accountId: match.accountId, principal, lastUsedAt }, generation);
  refuseExpired(principal, now);
  return principal;
}

/** @throws AuthenticationError when the key's expiry has passed at `now`. */
function refuseExpired(principal: ApiKeyPrincipal, now: Date): void {
  if (principal.expiresAt !== null && principal.expiresAt <= now.getTime()) throw new AuthenticationError('The API key has expired.');
}

/** Whether `lastUsedAt` (ms, or null: never) is due a refresh at `now`. */
function usedLongAgo(lastUsedAt: number | null, now: Date): boolean {
  return lastUsedAt === null || now.getTime() - lastUsedAt >= LAST_USED_RESOLUTION_MS;
}
