/**
 * The loyalty document (PassEntry API reference: Show loyalty): a pass with its balance in `meta.loyalty.balance`.
 *
 * @module domain/loyalty/serializeLoyalty
 */
import type { components } from '../../../generated/api.d.ts';
import type { PassRow } from '../passes/passStore.ts';
import { serializePass, type PassExtras } from '../passes/serializePass.ts';

/** Serialises a pass with its balance (the pass's loyalty field shows the same balance). */
export function serializeLoyalty(row: PassRow, baseUrl: string, extras: PassExtras = {}): components['schemas']['LoyaltyDocument'] {
  return { data: serializePass(row, baseUrl, extras), meta: { loyalty: { balance: row.balance } } };
}
