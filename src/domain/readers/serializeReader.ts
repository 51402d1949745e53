/**
 * Turns reader rows into `reader` resource objects (PassEntry API reference: the reader resource). The password hash never leaves
 * this module's input: no serializer reads it.
 *
 * @module domain/readers/serializeReader
 */
import type { components } from '../../../generated/api.d.ts';
import { toNullableTimestamp } from '../serialize.ts';
import type { ReaderRow } from './readerStore.ts';

export type ReaderResource = components['schemas']['Reader'];
export type ReaderCreatedResource = components['schemas']['ReaderCreated'];

/** Serialises a reader as `createReader` returns it: without `lastSeenAt` (PassEntry API reference: the reader resource; Create a reader). */
export function serializeCreatedReader(row: ReaderRow): ReaderCreatedResource {
  return {
    id: row.publicId,
    type: 'reader',
    attributes: {
      name: row.name,
      readerType: row.readerType,
      loggedIn: row.loggedIn,
      qrEnabled: row.qrEnabled,
      mifareClassicNfcEnabled: row.mifareClassicNfcEnabled,
      scanEnabled: row.scanEnabled,
      redeemEnabled: row.redeemEnabled,
      addPointsEnabled: row.addPointsEnabled,
      ndefTagScanningEnabled: row.ndefTagScanningEnabled,
    },
  };
}

/**
 * Serialises a reader as `getReader` and `updateReader` return it (PassEntry API reference: Show a reader; Update a reader):
 * `lastSeenAt` is always present, null until the reader has been seen.
 */
export function serializeReader(row: ReaderRow): ReaderResource {
  const created = serializeCreatedReader(row);
  return { ...created, attributes: { ...created.attributes, lastSeenAt: toNullableTimestamp(row.lastSeenAt) } };
}
