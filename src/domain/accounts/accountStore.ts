/**
 * Database access for accounts and their API keys (administration only).
 *
 * @module domain/accounts/accountStore
 */
import type { PrismaClient, PrismaExecutor } from '../../db/database.ts';
import { pageWindow, type PageRequest } from '../../db/pagination.ts';
import { generateApiToken } from '../../security/apiTokens.ts';
import { NotFoundError } from '../../errors.ts';
import type { ApiKeyOptions } from '../apiKeys/apiKeyOptions.ts';

/**
 * Creates an account and its first API key, in the caller's transaction.
 * @returns The account row, the key row and the key itself (never stored).
 */
export async function insertAccountWithToken(tx: PrismaExecutor, name: string) {
  const generated = generateApiToken();
  const account = await tx.account.create({ data: { name } });
  const apiToken = await tx.apiToken.create({
    data: { accountId: account.id, name: 'Initial key', prefix: generated.prefix, tokenHash: generated.tokenHash },
  });
  return { account, apiToken, token: generated.token };
}

/** A page of accounts, oldest first. */
export async function selectAccountPage(prisma: PrismaClient, page: PageRequest) {
  const [rows, total] = await Promise.all([
    prisma.account.findMany({ orderBy: [{ createdAt: 'asc' }, { id: 'asc' }], ...pageWindow(page) }),
    prisma.account.count(),
  ]);
  return { rows, total };
}

/**
 * Checks that an account exists.
 * @throws NotFoundError naming the `accountId` path parameter when it does not.
 */
export async function requireAccount(prisma: PrismaClient, id: string): Promise<void> {
  if ((await prisma.account.count({ where: { id } })) === 0) {
    throw new NotFoundError(`No account with id ${id} exists.`, { parameter: 'accountId' });
  }
}

/** Creates an API key of the given kind, scopes and limits (src/domain/apiKeys/apiKeyOptions.ts) for an existing account. */
export async function insertApiToken(prisma: PrismaExecutor, accountId: string, options: ApiKeyOptions) {
  const generated = generateApiToken(options.kind);
  const apiToken = await prisma.apiToken.create({
    data: { accountId, ...options, prefix: generated.prefix, tokenHash: generated.tokenHash },
  });
  return { apiToken, token: generated.token };
}

/** A page of an account's API keys, oldest first. */
export async function selectApiTokenPage(prisma: PrismaClient, accountId: string, page: PageRequest) {
  const where = { accountId };
  const [rows, total] = await Promise.all([
    prisma.apiToken.findMany({ where, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }], ...pageWindow(page) }),
    prisma.apiToken.count({ where }),
  ]);
  return { rows, total };
}

/**
 * Revokes a key (keeping the first revocation time).
 * @param accountId When given, only a key of that account is revoked (another account's is as missing).
 * @returns The key, or null when it does not exist (in that account).
 */
export async function revokeApiTokenById(prisma: PrismaExecutor, id: string, now: Date, accountId?: string) {
  await prisma.apiToken.updateMany({ where: { id, accountId, revokedAt: null }, data: { revokedAt: now } });
  return prisma.apiToken.findFirst({ where: { id, accountId } });
}
