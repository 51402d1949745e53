/**
 * The OpenID Connect issuer each account trusts (`single_sign_on_providers`, one row per account,
 * keyed by it); the client secret is sealed (src/security/secrets.ts,
 * `singleSignOnClientSecretContext`).
 *
 * @module domain/people/singleSignOnStore
 */
import type { PrismaExecutor } from '../../db/database.ts';
import { NotFoundError } from '../../errors.ts';
import type { Role } from '../../security/roles.ts';

/** An account's single sign-on as stored. */
export interface SingleSignOnRow {
  accountId: string;
  issuer: string;
  clientId: string;
  clientSecret: Uint8Array;
  roleClaim: string;
  roleMapping: Record<string, Role>;
  defaultRole: Role | null;
  createdAt: Date;
  updatedAt: Date;
}

/** The account's single sign-on, or null. */
export async function findSingleSignOn(db: PrismaExecutor, accountId: string): Promise<SingleSignOnRow | null> {
  return (await db.singleSignOnProvider.findUnique({ where: { accountId } })) as SingleSignOnRow | null;
}

/** The account's single sign-on. @throws NotFoundError when it has none. */
export async function getSingleSignOn(db: PrismaExecutor, accountId: string): Promise<SingleSignOnRow> {
  const row = await findSingleSignOn(db, accountId);
  if (!row) throw new NotFoundError('The account has no single sign-on.');
  return row;
}

/** Creates or replaces the account's single sign-on. */
export async function upsertSingleSignOn(
  tx: PrismaExecutor,
  accountId: string,
  value: {
    issuer: string;
    clientId: string;
    clientSecret: Uint8Array<ArrayBuffer>;
    roleClaim: string;
    roleMapping: Record<string, Role>;
    defaultRole: Role | null;
  },
  now: Date,
): Promise<SingleSignOnRow> {
  return (await tx.singleSignOnProvider.upsert({
    where: { accountId },
    create: { accountId, ...value, createdAt: now, updatedAt: now },
    update: { ...value, updatedAt: now },
  })) as SingleSignOnRow;
}

/** Removes the account's single sign-on. @throws NotFoundError when it has none. */
export async function deleteSingleSignOn(tx: PrismaExecutor, accountId: string): Promise<void> {
  const { count } = await tx.singleSignOnProvider.deleteMany({ where: { accountId } });
  if (count === 0) throw new NotFoundError('The account has no single sign-on.');
}
