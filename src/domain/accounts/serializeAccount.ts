/**
 * Turns account and API key rows into `account` and `apiToken` resource objects.
 *
 * @module domain/accounts/serializeAccount
 */
import type { components } from '../../../generated/api.d.ts';
import type { Account, ApiToken } from '../../../generated/prisma/client.ts';
import { toNullableTimestamp, toTimestamp } from '../serialize.ts';
import { type ApiKeyKind, scopesOfKind } from '../../security/principal.ts';

export type AccountResource = components['schemas']['Account'];
export type ApiTokenResource = components['schemas']['ApiToken'];

/** Serialises an account. */
export function serializeAccount(row: Account): AccountResource {
  return { id: row.id, type: 'account', attributes: { name: row.name, createdAt: toTimestamp(row.createdAt) } };
}

/** Serialises an API key; `token` is given only by the operation that created it. */
export function serializeApiToken(row: ApiToken, token?: string): ApiTokenResource {
  return {
    id: row.id,
    type: 'apiToken',
    attributes: {
      name: row.name,
      prefix: row.prefix,
      ...(token ? { token } : {}),
      createdAt: toTimestamp(row.createdAt),
      lastUsedAt: toNullableTimestamp(row.lastUsedAt),
      revokedAt: toNullableTimestamp(row.revokedAt),
      kind: row.kind as ApiTokenResource['attributes']['kind'] & string,
      scopes: [...scopesOfKind(row.kind as ApiKeyKind, row.scopes)] as ApiTokenResource['attributes']['scopes'] & string[],
      passTemplates: row.templateIds,
      entities: row.entityIds,
      expiresAt: toNullableTimestamp(row.expiresAt),
      allowedCidrs: row.allowedCidrs,
      allowedOrigins: row.allowedOrigins,
    },
    relationships: { account: { data: { id: row.accountId, type: 'account' } } },
  };
}
