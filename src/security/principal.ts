/**
 * Who is calling: the principal of an authenticated request: an API key (its id, name, kind,
 * scopes and limits), a person signed in to the console (their role's scopes), or the administrator.
 *
 * Scopes are `resource:action` strings named by each operation's `security` requirement in the
 * contract (openapi/components/securitySchemes/bearerAuth.yaml lists them); a secret key holds
 * every scope. src/http/authorize.ts checks them.
 *
 * @module security/principal
 */

/** The kinds of API key (openapi/components/securitySchemes/bearerAuth.yaml). */
export const API_KEY_KINDS = ['secret', 'restricted', 'publishable'] as const;
/** A kind of API key. */
export type ApiKeyKind = (typeof API_KEY_KINDS)[number];

/** Every scope an operation of the contract can require; a secret key holds them all. */
export const SCOPES = [
  'passes:read',
  'passes:write',
  'passes:message',
  'templates:read',
  'templates:write',
  'entities:read',
  'readers:read',
  'readers:write',
  'scans:read',
  'scans:write',
  'batches:read',
  'batches:write',
  'webhooks:read',
  'webhooks:manage',
  'stats:read',
  'audit:read',
  'members:read',
  'members:write',
  'keys:manage',
] as const;
/** A scope (`resource:action`). */
export type Scope = (typeof SCOPES)[number];

/** The roles of people in an account, most powerful first (their scopes: src/security/roles.ts). */
export const ROLES = ['owner', 'admin', 'designer', 'support', 'viewer'] as const;
/** A role. */
export type Role = (typeof ROLES)[number];

/** The only operation a publishable key may call, and the scope it carries for it. */
export const PUBLISHABLE_OPERATION = 'createPass';
export const PUBLISHABLE_SCOPES: readonly Scope[] = ['passes:write'];

/** An API key as a caller. */
export interface ApiKeyPrincipal {
  type: 'api_key';
  /** The key's id (`api_tokens.id`), never the key. */
  id: string;
  accountId: string;
  name: string | null;
  kind: ApiKeyKind;
  /** Its scopes: every scope for a secret key. */
  scopes: ReadonlySet<string>;
  /** Pass templates it is limited to; empty = every template. */
  templateIds: readonly string[];
  /** Entities it is limited to; empty = every entity. */
  entityIds: readonly string[];
  /** When it stops being accepted (ms since the epoch), or null. */
  expiresAt: number | null;
  /** Client address ranges (CIDR) it is accepted from; empty = any. */
  allowedCidrs: readonly string[];
  /** Web origins of a publishable key. */
  allowedOrigins: readonly string[];
}

/** A person signed in to the console (src/security/sessions.ts), in the session's account. */
export interface PersonPrincipal {
  type: 'person';
  /** The person's id. */
  id: string;
  /** The session's id (`person_sessions.id`). */
  sessionId: string;
  /** The session's current account; null for a person in no account (every scoped operation is refused). */
  accountId: string | null;
  email: string;
  name: string;
  /** Their role in `accountId` (src/security/roles.ts). */
  role: Role | null;
  /** The scopes of the role. */
  scopes: ReadonlySet<string>;
  /** An owner or admin signed in with a password alone: may only enrol a second factor. */
  secondFactorRequired: boolean;
  /**
   * Signed in through the account's single sign-on: confined to that account, and unable to
   * change the person's own credentials (src/domain/people/singleSignOn.ts says why).
   */
  singleSignOn: boolean;
}

/** The administrator (the administration token). */
export interface AdministratorPrincipal {
  type: 'administrator';
}

/** A caller. */
export type Principal = ApiKeyPrincipal | PersonPrincipal | AdministratorPrincipal;

const ALL_SCOPES: ReadonlySet<string> = new Set(SCOPES);

/** The scopes a key of `kind` holds, given the scopes stored with it. */
export function scopesOfKind(kind: ApiKeyKind, stored: readonly string[]): ReadonlySet<string> {
  if (kind === 'secret') return ALL_SCOPES;
  if (kind === 'publishable') return new Set(PUBLISHABLE_SCOPES);
  return new Set(stored);
}

/** Whether `value` is a scope of the contract. */
export function isScope(value: string): value is Scope {
  return ALL_SCOPES.has(value);
}

/** The scopes of `required` that `principal` lacks (none for the administrator). */
export function missingScopes(principal: Principal, required: readonly string[]): string[] {
  if (principal.type === 'administrator') return [];
  return required.filter((scope) => !principal.scopes.has(scope));
}
