/**
 * Which tools a caller may see: the scopes an operation requires, read from its `security`
 * requirement in the contract (`security: [{ bearerAuth: ['passes:read'] }]`; OpenAPI 3.1,
 * https://spec.openapis.org/oas/v3.1.0#security-requirement-object: the listed names are the
 * scopes the requirement needs, all of them; any one requirement of the list is enough), and
 * the scopes the caller's key holds.
 *
 * @module mcp/scopes
 */
import type { RequestContext } from '../http/operation.ts';

/** The scopes a caller holds: a set of scope names, or `'all'` (a secret key: every operation). */
export type CallerScopes = ReadonlySet<string> | 'all';

/**
 * The scopes of the caller of an MCP request, from its authenticated principal
 * (src/security/principal.ts): a secret key holds `'all'`; a restricted key the scopes it was
 * given, so it sees exactly the operations they allow; a publishable key none (it is made for a
 * web page that creates and downloads passes, not for an agent: its two operations stay HTTP).
 * The tool list is a function of the contract and this value only (src/mcp/tools.ts).
 */
export function callerScopes(ctx: RequestContext): CallerScopes {
  const principal = ctx.principal;
  if (principal?.type !== 'api_key') return new Set();
  if (principal.kind === 'secret') return 'all';
  if (principal.kind === 'publishable') return new Set();
  return principal.scopes;
}

/**
 * The requirements of an operation: each an array of the scopes it needs (`[]` for a bearer
 * requirement without scopes). Only `bearerAuth` requirements count: a tool is always called
 * with the caller's API key.
 */
export function requiredScopes(operation: { security?: unknown }, documentSecurity: unknown): string[][] {
  const security = (operation.security ?? documentSecurity ?? []) as Record<string, string[]>[];
  return security.filter((requirement) => 'bearerAuth' in requirement).map((requirement) => [...(requirement.bearerAuth ?? [])]);
}

/** Whether `scopes` satisfy one of `requirements` (none: the operation is not callable with a key). */
export function allowed(requirements: string[][], scopes: CallerScopes): boolean {
  if (!requirements.length) return false;
  if (scopes === 'all') return true;
  return requirements.some((needed) => needed.every((scope) => scopes.has(scope)));
}

/** A stable key of a scope set, for caches. */
export function scopesKey(scopes: CallerScopes): string {
  return scopes === 'all' ? '*' : [...scopes].sort().join(' ');
}
