/**
 * Turns scan rows into what the scan operations answer: the `scanInfo` of PassEntry API reference: Log a scan, and scan
 * resource objects with their `included` pass and reader (PassEntry API reference: the scan resource; Show a scan), serialised by the
 * passes and readers modules' own serializers.
 *
 * @module domain/scans/serializeScan
 */
import type { components } from '../../../generated/api.d.ts';
import { toTimestamp } from '../serialize.ts';
import { serializePass } from '../passes/serializePass.ts';
import { serializeReader } from '../readers/serializeReader.ts';
import type { ScanRow } from './scanStore.ts';

type Schemas = components['schemas'];
export type ScanInfo = Schemas['ScanInfo'];
export type ScanResource = Schemas['Scan'];
export type ScanIncluded = Schemas['ScanIncluded'];

/** The attributes of a scan (PassEntry API reference: the scan resource), in the order `scanInfo` lists them too. */
function attributesOf(row: ScanRow): ScanResource['attributes'] {
  return {
    scanType: row.scanType,
    scanValue: row.scanValue,
    validationType: row.validationType,
    status: row.status,
    statusDetail: row.statusDetail,
    scannedAt: toTimestamp(row.scannedAt),
  };
}

/** The `scanInfo` of a stored scan (PassEntry API reference: Log a scan): the reader under its current id. */
export function serializeScanInfo(row: ScanRow): ScanInfo {
  return { scanId: row.id, ...attributesOf(row), passId: row.passId, passExtId: row.pass.extId, readerId: row.reader.publicId };
}

/** A scan resource object with relationships to its pass and reader (PassEntry API reference: the scan resource). */
export function serializeScan(row: ScanRow): ScanResource {
  return {
    id: row.id,
    type: 'scan',
    attributes: attributesOf(row),
    relationships: {
      pass: { data: { id: row.passId, type: 'pass' } },
      reader: { data: { id: row.reader.publicId, type: 'reader' } },
    },
  };
}

/**
 * The `included` of scans: each related pass once (in order of first appearance), then each
 * reader once — for one scan exactly `[pass, reader]` (PassEntry API reference: Show a scan).
 * @param baseUrl Absolute base of the passes' links.
 */
export function includedOf(rows: ScanRow[], baseUrl: string): ScanIncluded[] {
  const passes = new Map(rows.map((r) => [r.pass.id, r.pass]));
  const readers = new Map(rows.map((r) => [r.reader.id, r.reader]));
  return [...[...passes.values()].map((p) => serializePass(p, baseUrl)), ...[...readers.values()].map(serializeReader)];
}
