/**
 * Invitations to an account (`invitations`): a single-use link whose token only the SHA-256 of is
 * kept. An invitation is `pending` until accepted, revoked or past `expiresAt`.
 *
 * @module domain/people/invitationStore
 */
import { Prisma } from '../../../generated/prisma/client.ts';
import { queryRow } from '../../db/rows.ts';
import type { PrismaExecutor, SqlExecutor } from '../../db/database.ts';
import { ConflictError, NotFoundError } from '../../errors.ts';
import type { Role } from '../../security/roles.ts';

/** An invitation as stored. */
export interface InvitationRow {
  id: string;
  accountId: string;
  email: string | null;
  role: string;
  createdBy: string | null;
  createdAt: Date;
  expiresAt: Date;
  acceptedAt: Date | null;
  revokedAt: Date | null;
}

/** An invitation's state at `now`. */
export function invitationStatus(row: InvitationRow, now: Date): 'pending' | 'accepted' | 'expired' | 'revoked' {
  if (row.acceptedAt) return 'accepted';
  if (row.revokedAt) return 'revoked';
  return row.expiresAt <= now ? 'expired' : 'pending';
}

const COLUMNS = {
  id: true,
  accountId: true,
  email: true,
  role: true,
  createdBy: true,
  createdAt: true,
  expiresAt: true,
  acceptedAt: true,
  revokedAt: true,
} as const;

/** Stores an invitation. */
export function insertInvitation(
  tx: PrismaExecutor,
  invitation: { accountId: string; email: string | null; role: Role; tokenHash: string; createdBy: string | null; expiresAt: Date },
): Promise<InvitationRow> {
  return tx.invitation.create({ data: invitation, select: COLUMNS });
}

/** The account's invitations, newest first. */
export function listInvitations(db: PrismaExecutor, accountId: string): Promise<InvitationRow[]> {
  return db.invitation.findMany({ where: { accountId }, select: COLUMNS, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }] });
}

/**
 * Revokes a pending (or expired) invitation.
 * @throws NotFoundError for another account's or an unknown invitation; ConflictError when it was accepted.
 */
export async function revokeInvitation(tx: PrismaExecutor, accountId: string, id: string, now: Date): Promise<InvitationRow> {
  const row = await tx.invitation.findFirst({ where: { id, accountId }, select: COLUMNS });
  if (!row) throw new NotFoundError(`No invitation ${id} in this account.`, { parameter: 'id' });
  if (row.acceptedAt) throw new ConflictError('The invitation was accepted: remove the member instead.');
  if (row.revokedAt) return row;
  return tx.invitation.update({ where: { id }, data: { revokedAt: now }, select: COLUMNS });
}

/** The pending invitation whose token hashes to `tokenHash`, with its account's name, or undefined. */
export async function findPendingInvitation(db: SqlExecutor, tokenHash: string, now: Date): Promise<(InvitationRow & { accountName: string }) | undefined> {
  return queryRow<InvitationRow & { accountName: string }>(
    db,
    Prisma.sql`
    SELECT i.id::text AS id, i.account_id::text AS account_id, i.email, i.role, i.created_by,
           i.created_at, i.expires_at, i.accepted_at, i.revoked_at, a.name AS account_name
    FROM invitations i JOIN accounts a ON a.id = i.account_id
    WHERE i.token_hash = ${tokenHash} AND i.accepted_at IS NULL AND i.revoked_at IS NULL AND i.expires_at > ${now}`,
  );
}

/**
 * Marks the pending invitation accepted by `personId`, once: of two requests with one token,
 * one wins.
 * @returns Whether this call accepted it.
 */
export async function markInvitationAccepted(db: SqlExecutor, id: string, personId: string, now: Date): Promise<boolean> {
  const changed = await db.$executeRaw`
    UPDATE invitations SET accepted_at = ${now}, accepted_by = ${personId}::uuid
    WHERE id = ${id}::uuid AND accepted_at IS NULL AND revoked_at IS NULL AND expires_at > ${now}`;
  return changed === 1;
}
