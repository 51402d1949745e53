/**
 * Console sessions as stored (`person_sessions`; src/security/sessions.ts for the cookie). Only
 * the SHA-256 of a session's token is kept. Ending a session deletes its row, so every process
 * refuses it at its next request; a session past its idle or absolute timeout is deleted by the
 * request that finds it so.
 *
 * @module domain/people/personSessionStore
 */
import { Prisma } from '../../../generated/prisma/client.ts';
import { queryRow } from '../../db/rows.ts';
import type { PrismaExecutor, SqlExecutor } from '../../db/database.ts';
import { NotFoundError } from '../../errors.ts';
import type { Role } from '../../security/roles.ts';

/** How a session was signed in. */
export type SignInMethod = 'password' | 'passkey' | 'oidc';

/** What authentication reads of a session, with its person and their role in its account. */
export interface ActiveSession {
  id: string;
  personId: string;
  accountId: string | null;
  method: SignInMethod;
  createdAt: Date;
  lastSeenAt: Date;
  expiresAt: Date;
  email: string;
  name: string;
  /** Whether the person confirmed a TOTP second factor. */
  secondFactor: boolean;
  /** Their role in `accountId`, or null when they are no longer a member of it. */
  role: Role | null;
}

/** A session of a person, as `listSessions` shows it. */
export interface PersonSessionRow {
  id: string;
  method: SignInMethod;
  createdAt: Date;
  lastSeenAt: Date;
  expiresAt: Date;
  clientAddress: string | null;
  userAgent: string | null;
}

/** `lastSeenAt` is written at most this often, in ms: the idle timeout is counted in minutes. */
export const LAST_SEEN_RESOLUTION_MS = 30_000;

/** Stores a new session; returns its id. */
export async function insertSession(
  tx: PrismaExecutor,
  session: {
    personId: string;
    tokenHash: string;
    accountId: string | null;
    method: SignInMethod;
    createdAt: Date;
    lastSeenAt: Date;
    expiresAt: Date;
    clientAddress: string | null;
    userAgent: string | null;
  },
): Promise<string> {
  const row = await tx.personSession.create({ data: session, select: { id: true } });
  return row.id;
}

/** The session whose token hashes to `tokenHash`, with its person and role, or undefined. */
export async function findSession(db: SqlExecutor, tokenHash: string): Promise<ActiveSession | undefined> {
  return queryRow<ActiveSession>(
    db,
    Prisma.sql`
    SELECT s.id::text AS id, s.person_id::text AS person_id, s.account_id::text AS account_id, s.method,
           s.created_at, s.last_seen_at, s.expires_at,
           p.email, p.name, p.totp_confirmed_at IS NOT NULL AS second_factor, m.role
    FROM person_sessions s
    JOIN people p ON p.id = s.person_id
    LEFT JOIN memberships m ON m.person_id = s.person_id AND m.account_id = s.account_id
    WHERE s.token_hash = ${tokenHash}`,
  );
}

/** Records that the session was used at `now` (authentication calls it at most every {@link LAST_SEEN_RESOLUTION_MS}). */
export async function touchSession(db: SqlExecutor, id: string, now: Date): Promise<void> {
  await db.$executeRaw`UPDATE person_sessions SET last_seen_at = ${now} WHERE id = ${id}::uuid`;
}

/** Deletes a session (it has ended or timed out). */
export async function deleteSession(db: SqlExecutor, id: string): Promise<void> {
  await db.$executeRaw`DELETE FROM person_sessions WHERE id = ${id}::uuid`;
}

/**
 * Ends one of the person's sessions.
 * @throws NotFoundError for another person's or an unknown session.
 */
export async function endPersonSession(tx: PrismaExecutor, personId: string, id: string): Promise<void> {
  const { count } = await tx.personSession.deleteMany({ where: { id, personId } });
  if (count === 0) throw new NotFoundError(`You have no session ${id}.`, { parameter: 'id' });
}

/** Ends every session of the person but `keepId`; returns how many ended. */
export async function endOtherSessions(tx: PrismaExecutor, personId: string, keepId: string): Promise<number> {
  const { count } = await tx.personSession.deleteMany({ where: { personId, id: { not: keepId } } });
  return count;
}

/** Moves a session to another account. */
export async function setSessionAccount(tx: PrismaExecutor, id: string, accountId: string | null): Promise<void> {
  await tx.personSession.update({ where: { id }, data: { accountId } });
}

/** The person's sessions that have not timed out, newest first. */
export function listPersonSessions(db: PrismaExecutor, personId: string, idleSince: Date, now: Date): Promise<PersonSessionRow[]> {
  return db.personSession.findMany({
    where: { personId, lastSeenAt: { gt: idleSince }, expiresAt: { gt: now } },
    select: { id: true, method: true, createdAt: true, lastSeenAt: true, expiresAt: true, clientAddress: true, userAgent: true },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
  }) as Promise<PersonSessionRow[]>;
}
