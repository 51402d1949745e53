/**
 * Turns member rows into `member` resource objects (openapi/components/schemas/Member.yaml).
 *
 * @module domain/people/serializeMember
 */
import type { components } from '../../../generated/api.d.ts';
import { toTimestamp } from '../serialize.ts';
import type { MemberRow } from './peopleStore.ts';

/** A member as the API shows them: no password, secret or credential, only which ways they sign in. */
export function serializeMember(row: MemberRow): components['schemas']['Member'] {
  return {
    id: row.id,
    type: 'member',
    attributes: {
      personId: row.personId,
      email: row.email,
      name: row.name,
      role: row.role,
      createdAt: toTimestamp(row.createdAt),
      signInMethods: [...(row.passkeys > 0 ? (['passkey'] as const) : []), ...(row.hasPassword ? (['password'] as const) : [])],
      secondFactor: row.secondFactor,
    },
  };
}
