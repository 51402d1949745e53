/**
 * An account's single sign-on: the resource, how a claim maps to a role, and the
 * person a verified sign-in stands for.
 *
 * An account's issuer is trusted by that account only, and any account's owner may configure one:
 * so a sign-in through it (1) finds an existing person only when they are already a member of that
 * account (a new address makes a new person), and (2) gives a session confined to that account,
 * which cannot switch to the person's other accounts, list or end their sessions, or change their
 * password, passkeys or second factor (src/http/authenticate.ts). Otherwise an issuer that
 * claimed someone else's address would take over that person everywhere.
 *
 * The role follows the issuer at every sign-in: the claim's value (a string, or an array of
 * strings such as `groups`) is looked up in `roleMapping`; of several matches the most powerful
 * role wins (src/security/roles.ts order); none → `defaultRole`, or the sign-in is refused. The
 * person is found by the `email` claim, which the issuer must mark `email_verified` (OpenID
 * Connect Core, section 5.1), so an issuer cannot take over another person's address unchecked.
 *
 * @module domain/people/singleSignOn
 */
import type { components } from '../../../generated/api.d.ts';
import type { PrismaExecutor } from '../../db/database.ts';
import { SignInFailedError } from '../../errors.ts';
import { ROLES, type Role } from '../../security/roles.ts';
import { toTimestamp } from '../serialize.ts';
import { createPerson, findPersonByEmail, normalEmail, roleIn, upsertMembership } from './peopleStore.ts';
import type { SingleSignOnRow } from './singleSignOnStore.ts';

/** The callback every issuer sends the browser back to. */
export function singleSignOnRedirectUri(baseUrl: string): string {
  return `${baseUrl}/api/v1/sign-in/oidc/callback`;
}

/** The single sign-on resource (never the client secret). */
export function serializeSingleSignOn(row: SingleSignOnRow, baseUrl: string): components['schemas']['SingleSignOn'] {
  return {
    id: row.accountId,
    type: 'singleSignOn',
    attributes: {
      issuer: row.issuer,
      clientId: row.clientId,
      roleClaim: row.roleClaim,
      roleMapping: row.roleMapping,
      defaultRole: row.defaultRole,
      redirectUri: singleSignOnRedirectUri(baseUrl),
      signInUrl: `${baseUrl}/api/v1/sign-in/oidc?account=${row.accountId}`,
      createdAt: toTimestamp(row.createdAt),
      updatedAt: toTimestamp(row.updatedAt),
    },
  };
}

/** The role `claims` map to (see the module comment), or null. */
export function roleOfClaims(row: Pick<SingleSignOnRow, 'roleClaim' | 'roleMapping' | 'defaultRole'>, claims: Record<string, unknown>): Role | null {
  const value = claims[row.roleClaim];
  const values = Array.isArray(value) ? value : value === undefined ? [] : [value];
  const matched = values.flatMap((v) => (typeof v === 'string' && Object.hasOwn(row.roleMapping, v) ? [row.roleMapping[v]!] : []));
  return ROLES.find((role) => matched.includes(role)) ?? row.defaultRole;
}

/**
 * The person a verified sign-in stands for, made a member of the account with the role the
 * claims map to (made a person first when the address is new).
 * @throws SignInFailedError when the address is missing or unverified, or no role maps.
 */
export async function signInMember(tx: PrismaExecutor, row: SingleSignOnRow, claims: Record<string, unknown>): Promise<{ personId: string; role: Role }> {
  if (typeof claims.email !== 'string' || claims.email_verified !== true)
    throw new SignInFailedError('The issuer gave no verified e-mail address (email, email_verified).');
  const role = roleOfClaims(row, claims);
  if (!role) throw new SignInFailedError(`Your ${row.roleClaim} give you no role in this account.`);
  const email = normalEmail(claims.email);
  const name = typeof claims.name === 'string' && claims.name.trim() ? claims.name.trim().slice(0, 200) : email;
  const existing = await findPersonByEmail(tx, email);
  if (existing && !(await roleIn(tx, existing.id, row.accountId)))
    throw new SignInFailedError('This address belongs to a person who is not a member of this account: they join by invitation first.');
  const person = existing ?? (await createPerson(tx, { email, name }));
  await upsertMembership(tx, row.accountId, person.id, role);
  return { personId: person.id, role };
}
