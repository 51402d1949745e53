/**
 * Which tools a caller may see: the scopes the caller's key holds, against those an operation
 * requires (read from the contract by src/http/authorize.ts `requiredScopes`, the reader the
 * HTTP authorization uses).
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
 * Whether a caller holding `scopes` may call an operation that needs `required`
 * (src/http/authorize.ts `requiredScopes`: undefined when no key may call it).
 */
export function allowed(required: readonly string[] | undefined, scopes: CallerScopes): boolean {
  if (!required) return false;
  return scopes === 'all' || required.every((scope) => scopes.has(scope));
}

/** A stable key of a scope set, for caches. */
export function scopesKey(scopes: CallerScopes): string {
  return scopes === 'all' ? '*' : [...scopes].sort().join(' ');
}
