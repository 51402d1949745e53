/**
 * People and their memberships of accounts: `people`, `memberships`.
 *
 * E-mail addresses are kept lower-cased and unique: one person, however many accounts. A
 * membership gives the person one role in one account (src/security/roles.ts).
 *
 * @module domain/people/peopleStore
 */
import type { PrismaExecutor } from '../../db/database.ts';
import { ConflictError, NotFoundError } from '../../errors.ts';
import type { Role } from '../../security/roles.ts';

/** A person as stored. */
export interface PersonRow {
  id: string;
  email: string;
  name: string;
  passwordHash: string | null;
  totpSecret: Uint8Array | null;
  totpConfirmedAt: Date | null;
  createdAt: Date;
}

/** One account of a person, with the account's name. */
export interface MembershipView {
  membershipId: string;
  accountId: string;
  accountName: string;
  role: Role;
}

/** A member of an account as `listMembers` shows them. */
export interface MemberRow {
  id: string;
  personId: string;
  email: string;
  name: string;
  role: Role;
  createdAt: Date;
  hasPassword: boolean;
  passkeys: number;
  secondFactor: boolean;
}

/** The address as stored: trimmed and lower-cased. */
export function normalEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** The person with `email` (any case), or null. */
export function findPersonByEmail(db: PrismaExecutor, email: string): Promise<PersonRow | null> {
  return db.person.findUnique({ where: { email: normalEmail(email) } });
}

/** The person `id`, or null. */
export function findPerson(db: PrismaExecutor, id: string): Promise<PersonRow | null> {
  return db.person.findUnique({ where: { id } });
}

/**
 * Creates a person.
 * @throws ConflictError (409, pointer `/email`) when the address belongs to a person already.
 */
export async function createPerson(tx: PrismaExecutor, input: { id?: string; email: string; name: string; passwordHash?: string | null }): Promise<PersonRow> {
  const email = normalEmail(input.email);
  if (await tx.person.findUnique({ where: { email }, select: { id: true } }))
    throw new ConflictError('A person with this e-mail address exists already: sign in as them to accept.', { pointer: '/email' });
  return tx.person.create({ data: { ...(input.id ? { id: input.id } : {}), email, name: input.name, passwordHash: input.passwordHash ?? null } });
}

/** Sets a person's password hash (null removes it). */
export async function setPasswordHash(tx: PrismaExecutor, personId: string, passwordHash: string | null): Promise<void> {
  await tx.person.update({ where: { id: personId }, data: { passwordHash } });
}

/** Stores a TOTP secret (sealed), unconfirmed or confirmed at `confirmedAt`. */
export async function setTotpSecret(tx: PrismaExecutor, personId: string, sealed: Uint8Array<ArrayBuffer>, confirmedAt: Date | null): Promise<void> {
  await tx.person.update({ where: { id: personId }, data: { totpSecret: sealed, totpConfirmedAt: confirmedAt } });
}

/** The accounts of a person, by account name. */
export async function listMemberships(db: PrismaExecutor, personId: string): Promise<MembershipView[]> {
  const rows = await db.membership.findMany({
    where: { personId },
    select: { id: true, accountId: true, role: true, account: { select: { name: true } } },
    orderBy: [{ account: { name: 'asc' } }, { accountId: 'asc' }],
  });
  return rows.map((row) => ({ membershipId: row.id, accountId: row.accountId, accountName: row.account.name, role: row.role as Role }));
}

/** The person's role in the account, or null when they are not a member. */
export async function roleIn(db: PrismaExecutor, personId: string, accountId: string): Promise<Role | null> {
  const row = await db.membership.findUnique({ where: { accountId_personId: { accountId, personId } }, select: { role: true } });
  return (row?.role as Role | undefined) ?? null;
}

/**
 * Makes the person a member of the account with `role`, or gives them `role` when they are one.
 * @returns The membership's id.
 */
export async function upsertMembership(tx: PrismaExecutor, accountId: string, personId: string, role: Role): Promise<string> {
  const row = await tx.membership.upsert({
    where: { accountId_personId: { accountId, personId } },
    create: { accountId, personId, role },
    update: { role },
    select: { id: true },
  });
  return row.id;
}

/** Every member of the account, by name. */
export async function listMembers(db: PrismaExecutor, accountId: string): Promise<MemberRow[]> {
  const rows = await db.membership.findMany({
    where: { accountId },
    select: {
      id: true,
      role: true,
      createdAt: true,
      person: { select: { id: true, email: true, name: true, passwordHash: true, totpConfirmedAt: true, _count: { select: { passkeys: true } } } },
    },
    orderBy: [{ person: { name: 'asc' } }, { id: 'asc' }],
  });
  return rows.map(memberOf);
}

function memberOf(row: {
  id: string;
  role: string;
  createdAt: Date;
  person: { id: string; email: string; name: string; passwordHash: string | null; totpConfirmedAt: Date | null; _count: { passkeys: number } };
}): MemberRow {
  return {
    id: row.id,
    personId: row.person.id,
    email: row.person.email,
    name: row.person.name,
    role: row.role as Role,
    createdAt: row.createdAt,
    hasPassword: row.person.passwordHash !== null,
    passkeys: row.person._count.passkeys,
    secondFactor: row.person.totpConfirmedAt !== null,
  };
}

/**
 * A member of the account, locked for the change about to be made (`FOR UPDATE`), and how many
 * owners the account has.
 * @throws NotFoundError for another account's or an unknown membership.
 */
export async function lockMember(tx: PrismaExecutor, accountId: string, membershipId: string): Promise<{ member: MemberRow; owners: number }> {
  const locked = await tx.$queryRaw<{ id: string }[]>`
    SELECT id FROM memberships WHERE account_id = ${accountId}::uuid FOR UPDATE`;
  if (!locked.some((row) => row.id === membershipId)) throw new NotFoundError(`No member ${membershipId} in this account.`, { parameter: 'id' });
  const members = await listMembers(tx, accountId);
  return { member: members.find((m) => m.id === membershipId)!, owners: members.filter((m) => m.role === 'owner').length };
}

/** Gives a membership another role; returns the member as changed. */
export async function setMemberRole(tx: PrismaExecutor, membershipId: string, role: Role): Promise<void> {
  await tx.membership.update({ where: { id: membershipId }, data: { role } });
}

/** Deletes a membership and the person's sessions working in that account. */
export async function deleteMembership(tx: PrismaExecutor, member: MemberRow, accountId: string): Promise<void> {
  await tx.membership.delete({ where: { id: member.id } });
  await tx.personSession.deleteMany({ where: { personId: member.personId, accountId } });
}
