/**
 * Turns entity rows into `entity` resource objects (PassEntry API reference: the entity resource).
 *
 * @module domain/entities/serializeEntity
 */
import type { components } from '../../../generated/api.d.ts';
import type { EntityRow } from './entityStore.ts';

export type EntityResource = components['schemas']['Entity'];

/**
 * Serialises an entity. Deeplink templates the administrator did not set point at this
 * service's holder page, `<baseUrl>/passes/{passId}/<wallet>`.
 */
export function serializeEntity(row: EntityRow, baseUrl: string): EntityResource {
  return {
    id: row.id,
    type: 'entity',
    attributes: {
      name: row.name,
      passDeeplinks: {
        apple: row.appleDeeplinkTemplate ?? `${baseUrl}/passes/{passId}/apple`,
        google: row.googleDeeplinkTemplate ?? `${baseUrl}/passes/{passId}/google`,
      },
    },
  };
}
