/**
 * No key wider than its maker: what a caller with `keys:manage` may create
 * (openapi/paths/api_v1_api-keys.yaml, `createApiKey`):
 * - a secret key only by who may manage owners (an owner, a secret key: `managesOwners`), since a
 *   secret key may make owners — else an admin, or a restricted key holding every scope, could
 *   make one and through it an owner;
 * - every scope of the new key is one of the caller's (a publishable key holds `passes:write`:
 *   src/security/principal.ts `scopesOfKind`);
 * - a caller that expires creates keys that expire no later;
 * - a caller limited to client address ranges creates keys limited to ranges inside them
 *   (compared with ipaddr.js, https://github.com/whitequark/ipaddr.js `match`).
 * A key limited to pass templates or entities never gets here: it is refused every operation
 * that names neither (src/http/authorize.ts), the keys operations included.
 * Without these a leaked restricted key could mint a secret one, which would make scopes moot
 * (OWASP API Security Top 10 2023, API5 Broken Function Level Authorization,
 * https://owasp.org/API-Security/editions/2023/en/0xa5-broken-function-level-authorization/).
 *
 * @module domain/apiKeys/apiKeyCeiling
 */
import ipaddr from 'ipaddr.js';
import { type Principal, scopesOfKind } from '../../security/principal.ts';
import { managesOwners } from '../people/invitations.ts';
import type { ApiKeyOptions } from './apiKeyOptions.ts';

/** Why a caller may not create a key: the request member at fault and the scopes it lacks. */
export interface CeilingBreach {
  /** The `apiToken` member that makes the new key wider. */
  member: 'kind' | 'scopes' | 'expiresAt' | 'allowedCidrs';
  detail: string;
  /** The scopes the caller would need (for `WWW-Authenticate`); `keys:manage` when none is missing. */
  scopes: string[];
}

/** Whether `inner` (CIDR) lies inside `outer` (CIDR); false for ranges of different IP versions. */
function rangeInside(inner: string, outer: string): boolean {
  const [innerAddress, innerBits] = ipaddr.parseCIDR(inner);
  const [outerAddress, outerBits] = ipaddr.parseCIDR(outer);
  if (innerAddress.kind() !== outerAddress.kind() || innerBits < outerBits) return false;
  return innerAddress.match(outerAddress, outerBits);
}

/**
 * The first way in which a key with `options` would be wider than `caller`, or null when the caller may create it.
 * @param options A new key's options, already checked by `apiKeyOptionsOf`.
 */
export function ceilingBreach(caller: Principal, options: ApiKeyOptions): CeilingBreach | null {
  if (caller.type === 'administrator') return null;
  if (options.kind === 'secret' && !managesOwners(caller))
    return {
      member: 'kind',
      detail: 'A secret key may do everything, owners included: only an owner (or a secret key) creates one. Create a restricted key with the scopes it needs.',
      scopes: ['keys:manage'],
    };
  const lacking = missing(caller.scopes, options);
  if (lacking || caller.type === 'person') return lacking;
  if (caller.expiresAt !== null && (options.expiresAt === null || options.expiresAt.getTime() > caller.expiresAt))
    return {
      member: 'expiresAt',
      detail: `This key expires at ${new Date(caller.expiresAt).toISOString()}; a key it creates must expire no later.`,
      scopes: ['keys:manage'],
    };
  if (
    caller.allowedCidrs.length &&
    (!options.allowedCidrs.length || options.allowedCidrs.some((cidr) => !caller.allowedCidrs.some((outer) => rangeInside(cidr, outer))))
  )
    return {
      member: 'allowedCidrs',
      detail: `This key is accepted from ${caller.allowedCidrs.join(', ')} only; a key it creates must be limited to ranges inside them.`,
      scopes: ['keys:manage'],
    };
  return null;
}

/** The scopes a new key would hold that `held` lacks, as a breach; null when it lacks none. */
function missing(held: ReadonlySet<string>, options: ApiKeyOptions): CeilingBreach | null {
  const wanted = [...scopesOfKind(options.kind, options.scopes)];
  const lacking = wanted.filter((scope) => !held.has(scope));
  if (!lacking.length) return null;
  // A publishable key holds passes:write; a secret key was settled by `managesOwners`.
  return options.kind === 'restricted'
    ? { member: 'scopes', detail: `A key cannot give scopes it does not hold: ${lacking.join(', ')}.`, scopes: lacking }
    : { member: 'kind', detail: 'A publishable key issues passes (passes:write), which this caller does not hold.', scopes: lacking };
}
