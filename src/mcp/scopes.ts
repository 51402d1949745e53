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
 * The scopes of the caller of an MCP request. The one place the tools learn what a caller may
 * do: API keys carry no scopes yet, every key is a secret key of its account and may call every
 * `/api/v1` operation, so this is `'all'`. When keys carry scopes, this reads them from the
 * request's authenticated principal (`ctx`), and the tool list follows (the list is a function
 * of the contract and this value only, src/mcp/tools.ts).
 */
export function callerScopes(_ctx: RequestContext): CallerScopes {
  return 'all';
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
