/**
 * Sign-ins in progress (`sign_in_challenges`): a WebAuthn challenge, the state, nonce and PKCE
 * verifier of an OpenID Connect sign-in, or a TOTP secret waiting for its first code (sealed). Each is taken once (deleted as it is read) and
 * only before it expires, so an answer cannot be replayed.
 *
 * @module domain/people/signInChallengeStore
 */
import { Prisma } from '../../../generated/prisma/client.ts';
import { queryRow } from '../../db/rows.ts';
import type { PrismaExecutor, SqlExecutor } from '../../db/database.ts';

/** What a challenge is for. */
export type ChallengePurpose = 'passkey_sign_in' | 'passkey_registration' | 'invitation_passkey' | 'oidc' | 'totp_enrollment';

/** A challenge as stored. */
export interface SignInChallenge {
  id: string;
  purpose: ChallengePurpose;
  challenge: string;
  data: Record<string, unknown>;
  expiresAt: Date;
}

/** Stores a challenge; returns its id. Expired ones are deleted on the way (there are few). */
export async function insertChallenge(
  tx: PrismaExecutor,
  challenge: { purpose: ChallengePurpose; challenge: string; data?: Record<string, unknown>; expiresAt: Date },
  now: Date,
): Promise<string> {
  await tx.signInChallenge.deleteMany({ where: { expiresAt: { lt: now } } });
  const row = await tx.signInChallenge.create({
    data: { purpose: challenge.purpose, challenge: challenge.challenge, data: (challenge.data ?? {}) as object, expiresAt: challenge.expiresAt },
    select: { id: true },
  });
  return row.id;
}

/**
 * Takes a challenge of `purpose` that has not expired: deleted as it is read, so only one request
 * gets it.
 * @returns The challenge, or undefined when it is unknown, used, expired or of another purpose.
 */
export async function takeChallenge(db: SqlExecutor, id: string, purpose: ChallengePurpose, now: Date): Promise<SignInChallenge | undefined> {
  return queryRow<SignInChallenge>(
    db,
    Prisma.sql`
    DELETE FROM sign_in_challenges WHERE id = ${id}::uuid AND purpose = ${purpose} AND expires_at > ${now}
    RETURNING id::text AS id, purpose, challenge, data, expires_at`,
  );
}

/** Takes the OpenID Connect sign-in whose `state` is `state` (see {@link takeChallenge}). */
export async function takeChallengeByValue(db: SqlExecutor, challenge: string, purpose: ChallengePurpose, now: Date): Promise<SignInChallenge | undefined> {
  return queryRow<SignInChallenge>(
    db,
    Prisma.sql`
    DELETE FROM sign_in_challenges WHERE id = (
      SELECT id FROM sign_in_challenges WHERE challenge = ${challenge} AND purpose = ${purpose} AND expires_at > ${now} LIMIT 1)
    RETURNING id::text AS id, purpose, challenge, data, expires_at`,
  );
}

/** Takes the newest challenge of `purpose` made for `personId` (`data.personId`), see {@link takeChallenge}. */
export async function takePersonChallenge(db: SqlExecutor, personId: string, purpose: ChallengePurpose, now: Date): Promise<SignInChallenge | undefined> {
  return queryRow<SignInChallenge>(
    db,
    Prisma.sql`
    DELETE FROM sign_in_challenges WHERE id = (
      SELECT id FROM sign_in_challenges WHERE data->>'personId' = ${personId} AND purpose = ${purpose} AND expires_at > ${now}
      ORDER BY id DESC LIMIT 1)
    RETURNING id::text AS id, purpose, challenge, data, expires_at`,
  );
}
