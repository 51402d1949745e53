/**
 * The kinds of API key and what each takes (openapi/components/schemas/ApiTokenCreateRequest.yaml):
 * a `secret` key holds every scope and takes no limit; a `restricted` key takes at least one
 * scope and, optionally, pass templates, entities, an expiry and client address ranges; a
 * `publishable` key (`wps_pk_…`) takes the pass templates it may issue passes from and the web
 * origins it is used from, at least one of each. Shared by the administration API and
 * `npm run admin -- token create`.
 *
 * @module domain/apiKeys/apiKeyOptions
 */
import ipaddr from 'ipaddr.js';
import { ValidationError, type Problem } from '../../errors.ts';
import { type ApiKeyKind, API_KEY_KINDS, isScope } from '../../security/principal.ts';

/** What a caller asks of a new key. */
export interface ApiKeyRequest {
  name?: string | null;
  kind?: ApiKeyKind;
  scopes?: string[];
  passTemplates?: string[];
  entities?: string[];
  expiresAt?: string;
  allowedCidrs?: string[];
  allowedOrigins?: string[];
}

/** The columns of a new key other than its secret. */
export interface ApiKeyOptions {
  name: string | null;
  kind: ApiKeyKind;
  scopes: string[];
  templateIds: string[];
  entityIds: string[];
  expiresAt: Date | null;
  allowedCidrs: string[];
  allowedOrigins: string[];
}

const MEMBERS_OF_KIND: Record<ApiKeyKind, (keyof ApiKeyRequest)[]> = {
  secret: ['name', 'kind'],
  restricted: ['name', 'kind', 'scopes', 'passTemplates', 'entities', 'expiresAt', 'allowedCidrs'],
  publishable: ['name', 'kind', 'passTemplates', 'allowedOrigins'],
};

/**
 * Checks a request for a new key against its kind's rules.
 * @param pointer JSON Pointer of the request's object in the body (errors name members under it).
 * @param now For the expiry, which must be in the future.
 * @throws ValidationError naming every member at fault.
 */
export function apiKeyOptionsOf(request: ApiKeyRequest, now: Date, pointer = '/apiToken'): ApiKeyOptions {
  const kind = request.kind ?? 'secret';
  const problems: Problem[] = [];
  const at = (member: string) => ({ pointer: `${pointer}/${member}` });
  if (!API_KEY_KINDS.includes(kind)) problems.push({ detail: `kind must be one of ${API_KEY_KINDS.join(', ')}.`, source: at('kind') });
  const allowed = MEMBERS_OF_KIND[kind] ?? [];
  for (const member of Object.keys(request) as (keyof ApiKeyRequest)[]) {
    if (request[member] !== undefined && !allowed.includes(member)) problems.push({ detail: `A ${kind} key takes no ${member}.`, source: at(member) });
  }
  const scopes = request.scopes ?? [];
  for (const scope of scopes) if (!isScope(scope)) problems.push({ detail: `${scope} is not a scope.`, source: at('scopes') });
  if (kind === 'restricted' && !scopes.length) problems.push({ detail: 'A restricted key needs at least one scope.', source: at('scopes') });
  if (kind === 'publishable' && !request.passTemplates?.length)
    problems.push({ detail: 'A publishable key needs the pass templates it may issue passes from.', source: at('passTemplates') });
  if (kind === 'publishable' && !request.allowedOrigins?.length)
    problems.push({ detail: 'A publishable key needs the web origins it is used from.', source: at('allowedOrigins') });
  for (const cidr of request.allowedCidrs ?? []) {
    if (!ipaddr.isValidCIDR(cidr)) problems.push({ detail: `${cidr} is not an address range in CIDR notation.`, source: at('allowedCidrs') });
  }
  const expiresAt = request.expiresAt === undefined ? null : new Date(request.expiresAt);
  if (expiresAt && !(expiresAt.getTime() > now.getTime())) problems.push({ detail: 'expiresAt must be in the future.', source: at('expiresAt') });
  if (problems.length) throw new ValidationError(problems);
  return {
    name: request.name ?? null,
    kind,
    scopes: kind === 'restricted' ? scopes : [],
    templateIds: request.passTemplates ?? [],
    entityIds: request.entities ?? [],
    expiresAt,
    allowedCidrs: request.allowedCidrs ?? [],
    allowedOrigins: request.allowedOrigins ?? [],
  };
}
