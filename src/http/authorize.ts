/**
 * Authorization from the contract: the one middleware that checks what an authenticated API key,
 * or a person signed in to the console (the scopes of their role, src/security/roles.ts), may do. The scopes an operation needs are those its `security` requirement names on the
 * `bearerAuth` scheme in the loaded contract (OpenAPI 3.1 Security Requirement Object,
 * https://spec.openapis.org/oas/v3.1.0#security-requirement-object) — no table beside it. A key
 * lacking one gets 403 `insufficient_scope` with
 * `WWW-Authenticate: Bearer error="insufficient_scope", scope="…"` (RFC 6750 §3.1,
 * https://www.rfc-editor.org/rfc/rfc6750#section-3.1).
 *
 * Beyond scopes (src/security/principal.ts):
 * - a key limited to some pass templates or entities may only call operations that name one of
 *   them in the request (`passTemplate` query, the `id` of `/pass-templates/{id}`, an
 *   `entity_id`, the `id` of `/entities/{id}`); an operation that names none is refused, so a
 *   limited key never reads or changes what it was not given;
 * - a publishable key may only call `createPass`, for a template it names, with an
 *   `Idempotency-Key` (its origins and its rate limit: src/http/publishableKeys.ts).
 *
 * Runs after authentication and before the body is read, so a refused request costs no parsing.
 * The requirement of each operation is read once and kept (the request hot path).
 *
 * @module http/authorize
 */
import type { RequestHandler } from 'express';
import { ValidationError } from '../errors.ts';
import { missingScopes, PUBLISHABLE_OPERATION, type ApiKeyPrincipal } from '../security/principal.ts';
import { HttpError } from './errors.ts';
import type { OpenApiDocument, PathMatch } from './routes.ts';

/** 403: the key lacks a scope or is limited to other templates or entities (RFC 6750 §3.1). */
export class InsufficientScopeError extends HttpError {
  override name = 'InsufficientScopeError';
  /**
   * @param required The scopes named in `WWW-Authenticate`.
   * @param source What the error object points at: the `Authorization` header unless a body member is at fault.
   */
  constructor(detail: string, required: readonly string[], source: { pointer: string } | { header: string } = { header: 'Authorization' }) {
    super(403, 'insufficient_scope', 'Insufficient scope', [{ detail, source }], {
      'WWW-Authenticate': `Bearer realm="wallet-pass-service", error="insufficient_scope", scope="${required.join(' ')}"`,
    });
  }
}

/** What the contract says of one operation's authorization. */
interface Requirement {
  operationId: string;
  /** The scopes its `bearerAuth` requirement names (all required). */
  scopes: string[];
  /** Its path template's segments, to read path parameters. */
  segments: string[];
}

/**
 * The scopes an API key needs for an operation: those its `bearerAuth` security requirement names,
 * all of them (`security: [{ bearerAuth: ['passes:read'] }]`; the operation's own `security`, else
 * the document's; OpenAPI 3.1 Security Requirement Object,
 * https://spec.openapis.org/oas/v3.1.0#security-requirement-object). The one reader of them: this
 * middleware refuses a key that lacks one, and the MCP server lists only the tools a key's scopes
 * allow (src/mcp/tools.ts). The contract gives an operation at most one `bearerAuth` requirement
 * (test/mcp.test.ts checks it); were there several, the first would count.
 * @param document The contract (its root `security`).
 * @param operation An Operation Object of it.
 * @returns The scope names (`[]`: any key, no scope needed), or undefined when the operation is
 *   not secured by `bearerAuth` (another scheme, or none).
 */
export function requiredScopes(document: OpenApiDocument, operation: Record<string, unknown>): string[] | undefined {
  const security = (operation.security ?? document.security ?? []) as Record<string, string[]>[];
  const bearer = security.find((requirement) => 'bearerAuth' in requirement);
  return bearer ? [...(bearer.bearerAuth ?? [])] : undefined;
}

/** The value of path parameter `name` in `path` for a template split in `segments`. */
function pathParameter(segments: string[], path: string, name: string): string | undefined {
  const index = segments.indexOf(`{${name}}`);
  if (index < 0) return undefined;
  const value = path.split('/')[index];
  return value === undefined ? undefined : decodeURIComponent(value);
}

/** The template and entity a request names (see the module comment), as far as it names them. */
function namedTargets(requirement: Requirement, path: string, query: Record<string, unknown>) {
  const isTemplatePath = requirement.segments[3] === 'pass-templates' || requirement.segments[3] === 'pass_templates';
  const isEntityPath = requirement.segments[3] === 'entities';
  const templateId =
    (typeof query.passTemplate === 'string' ? query.passTemplate : undefined) ??
    (isTemplatePath ? (pathParameter(requirement.segments, path, 'id') ?? pathParameter(requirement.segments, path, 'pass_template_uuid')) : undefined);
  const entityId = pathParameter(requirement.segments, path, 'entity_id') ?? (isEntityPath ? pathParameter(requirement.segments, path, 'id') : undefined);
  return { templateId, entityId };
}

/** @throws InsufficientScopeError when `principal`'s template or entity limits refuse the request. */
function checkLimits(principal: ApiKeyPrincipal, requirement: Requirement, path: string, query: Record<string, unknown>): void {
  if (!principal.templateIds.length && !principal.entityIds.length) return;
  const { templateId, entityId } = namedTargets(requirement, path, query);
  if (principal.templateIds.length) {
    if (templateId === undefined && entityId === undefined)
      throw new InsufficientScopeError(`The API key is limited to some pass templates; ${requirement.operationId} names none.`, requirement.scopes);
    if (templateId !== undefined && !principal.templateIds.includes(templateId))
      throw new InsufficientScopeError(`The API key is not allowed pass template ${templateId}.`, requirement.scopes);
  }
  if (principal.entityIds.length) {
    if (entityId === undefined && templateId === undefined)
      throw new InsufficientScopeError(`The API key is limited to some entities; ${requirement.operationId} names none.`, requirement.scopes);
    if (entityId !== undefined && !principal.entityIds.includes(entityId))
      throw new InsufficientScopeError(`The API key is not allowed entity ${entityId}.`, requirement.scopes);
  }
}

/**
 * Express middleware, after src/http/authenticate.ts. Requests the contract does not serve, and
 * operations not secured by `bearerAuth`, pass untouched.
 * @throws (through `next`) InsufficientScopeError (403), or ValidationError (400) for a
 *   publishable key's request without `Idempotency-Key`.
 */
export function authorize(document: OpenApiDocument, match: (path: string) => PathMatch | undefined): RequestHandler {
  const requirements = new WeakMap<object, Requirement | null>();
  const requirementOf = (served: { path: string; operation: Record<string, unknown> & { operationId?: string } }) => {
    let known = requirements.get(served.operation);
    if (known === undefined) {
      const scopes = requiredScopes(document, served.operation);
      known = scopes ? { operationId: served.operation.operationId ?? '', scopes, segments: served.path.split('/') } : null;
      requirements.set(served.operation, known);
    }
    return known;
  };
  return (req, _res, next) => {
    const principal = req.ctx.principal;
    if (principal?.type !== 'api_key' && principal?.type !== 'person') return next();
    const served = match(req.path)?.operation(req.method);
    const requirement = served && requirementOf(served);
    if (!requirement) return next();
    try {
      const missing = missingScopes(principal, requirement.scopes);
      if (missing.length)
        throw new InsufficientScopeError(
          principal.type === 'person'
            ? `Your role (${principal.role ?? 'no role in this account'}) lacks the scope${missing.length > 1 ? 's' : ''} ${missing.join(', ')} this operation requires.`
            : `The API key lacks the scope${missing.length > 1 ? 's' : ''} ${missing.join(', ')} this operation requires.`,
          requirement.scopes,
        );
      if (principal.type === 'person') return next();
      if (principal.kind === 'publishable') {
        if (requirement.operationId !== PUBLISHABLE_OPERATION)
          throw new InsufficientScopeError(`A publishable key may only issue passes (${PUBLISHABLE_OPERATION}).`, requirement.scopes);
        if (!req.headers['idempotency-key'])
          throw new ValidationError({ detail: 'A publishable key must send an Idempotency-Key header.', source: { header: 'Idempotency-Key' } });
        const { templateId } = namedTargets(requirement, req.path, req.query as Record<string, unknown>);
        if (templateId === undefined || !principal.templateIds.includes(templateId))
          throw new InsufficientScopeError(`The publishable key is not allowed pass template ${templateId ?? '(none named)'}.`, requirement.scopes);
      } else checkLimits(principal, requirement, req.path, req.query as Record<string, unknown>);
      next();
    } catch (error) {
      next(error);
    }
  };
}
