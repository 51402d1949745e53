/**
 * Roles of people in an account, each a named set of the contract's scopes, enforced by
 * the same middleware as API keys (src/http/authorize.ts). The contract states the same table in
 * the `sessionCookie` scheme's description (openapi/components/securitySchemes/sessionCookie.yaml);
 * test/people.test.ts holds the two together.
 *
 * - `owner`: every scope; the only role that makes, changes or removes owners.
 * - `admin`: every scope, but not owners.
 * - `designer`: templates and their previews.
 * - `support`: passes, messages, scans; no template changes, keys or webhooks.
 * - `viewer`: reading, but not members or the audit log.
 *
 * @module security/roles
 */
import { ROLES, type Role, SCOPES, type Scope } from './principal.ts';

export { ROLES, type Role };

const EVERY: readonly Scope[] = SCOPES;

/** The scopes of each role (see the module comment). */
export const ROLE_SCOPES: Readonly<Record<Role, readonly Scope[]>> = {
  owner: EVERY,
  admin: EVERY,
  designer: ['templates:read', 'templates:write', 'entities:read', 'passes:read'],
  support: [
    'passes:read',
    'passes:write',
    'passes:message',
    'scans:read',
    'scans:write',
    'batches:read',
    'batches:write',
    'entities:read',
    'templates:read',
    'readers:read',
    'stats:read',
  ],
  viewer: EVERY.filter((scope) => scope.endsWith(':read') && scope !== 'members:read' && scope !== 'audit:read'),
};

const SETS = Object.fromEntries(ROLES.map((role) => [role, new Set<string>(ROLE_SCOPES[role])])) as unknown as Record<Role, ReadonlySet<string>>;

/** The scopes of `role` (a shared set; never changed). */
export function scopesOfRole(role: Role): ReadonlySet<string> {
  return SETS[role];
}

/** Whether a person of `role` must have a second factor when signing in with a password (owners and admins). */
export function needsSecondFactor(role: Role): boolean {
  return role === 'owner' || role === 'admin';
}
