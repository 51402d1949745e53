/**
 * The roles of people in an account as the console names them. What each may do is
 * its set of scopes (src/security/roles.ts on the server; the session lists them as `scopes`).
 */
import type { Schemas } from './api.ts';

export type Role = Schemas['Role'];

/** The roles, most powerful first. */
export const ROLES: readonly Role[] = ['owner', 'admin', 'designer', 'support', 'viewer'];

/** Each role's name in the console. */
export const ROLE_LABELS: Record<Role, string> = {
  owner: 'Owner',
  admin: 'Admin',
  designer: 'Designer',
  support: 'Support',
  viewer: 'Viewer',
};

/** What each role may do, in a sentence. */
export const ROLE_HINTS: Record<Role, string> = {
  owner: 'everything, members and keys included',
  admin: 'everything but owners',
  designer: 'templates and previews',
  support: 'passes, messages and scans',
  viewer: 'reads everything, changes nothing',
};
