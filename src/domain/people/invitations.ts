/**
 * Inviting people: making an invitation link and reading one back. The token is 32
 * random bytes (base64url); the database keeps only its SHA-256, the link carries it after `#`
 * (`<base>/console/#invitation=<token>`), which browsers never send to a server, so it reaches
 * no access log.
 *
 * Who may invite whom: only an owner (a person, or a secret API key, which holds every power of
 * the account, or the administrator) makes or changes owners; an admin (or a restricted key with
 * `members:write`) invites and manages the other roles.
 *
 * @module domain/people/invitations
 */
import type { components } from '../../../generated/api.d.ts';
import type { PrismaExecutor } from '../../db/database.ts';
import type { Principal } from '../../security/principal.ts';
import type { Role } from '../../security/roles.ts';
import { generateSessionToken } from '../../security/sessions.ts';
import { toNullableTimestamp, toTimestamp } from '../serialize.ts';
import { type InvitationRow, insertInvitation, invitationStatus } from './invitationStore.ts';
import { normalEmail } from './peopleStore.ts';

/** The invitation resource (openapi/components/schemas/Invitation.yaml). */
export type InvitationResource = components['schemas']['Invitation'];

/** Whether `principal` may make, change or remove owners (see the module comment). */
export function managesOwners(principal: Principal): boolean {
  if (principal.type === 'administrator') return true;
  if (principal.type === 'api_key') return principal.kind === 'secret';
  return principal.role === 'owner';
}

/** The name of who made an invitation, for the list. */
export function actorName(principal: Principal): string | null {
  if (principal.type === 'administrator') return 'administrator';
  if (principal.type === 'api_key') return principal.name ? `API key ${principal.name}` : 'API key';
  return principal.name;
}

/** The link of an invitation token. */
export function invitationUrl(baseUrl: string, token: string): string {
  return `${baseUrl}/console/#invitation=${token}`;
}

/** Makes an invitation; returns it and its token (shown once). */
export async function createInvitationLink(
  tx: PrismaExecutor,
  input: { accountId: string; role: Role; email: string | undefined; expiresInHours: number; createdBy: string | null },
  now: Date,
): Promise<{ row: InvitationRow; token: string }> {
  const { token, tokenHash } = generateSessionToken();
  const row = await insertInvitation(tx, {
    accountId: input.accountId,
    role: input.role,
    email: input.email === undefined ? null : normalEmail(input.email),
    tokenHash,
    createdBy: input.createdBy,
    expiresAt: new Date(now.getTime() + input.expiresInHours * 3_600_000),
  });
  return { row, token };
}

/** An invitation as the API shows it (`url` only when the token is given: at creation). */
export function serializeInvitation(row: InvitationRow, now: Date, url?: string): InvitationResource {
  return {
    id: row.id,
    type: 'invitation',
    attributes: {
      email: row.email,
      role: row.role as Role,
      status: invitationStatus(row, now),
      createdBy: row.createdBy,
      createdAt: toTimestamp(row.createdAt),
      expiresAt: toTimestamp(row.expiresAt),
      acceptedAt: toNullableTimestamp(row.acceptedAt),
      revokedAt: toNullableTimestamp(row.revokedAt),
      ...(url ? { url } : {}),
    },
  };
}
