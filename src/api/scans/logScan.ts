import type { OperationHandler } from '../../http/operation.ts';
import { accountOf } from '../../http/operation.ts';
import { recordExternalScan } from '../../domain/scans/scanService.ts';
import { serializeScanInfo } from '../../domain/scans/serializeScan.ts';

/**
 * `POST /api/v1/scans/log` (PassEntry API reference, "Log scan"): records a scan validated
 * elsewhere, its balance change and the reader's visit in one transaction, and answers
 * `{ scanInfo }`.
 * @throws NotFoundError for an unknown reader or pass; ConflictError for a refused balance change.
 */
export const logScan: OperationHandler<'logScan'> = async ({ body, write, ctx }) => {
  const accountId = accountOf(ctx);
  const now = ctx.clock.now();
  const row = await write((tx) => recordExternalScan(tx, accountId, body.scan, now));
  ctx.log.info({ scanId: row.id, status: row.status }, 'scan logged');
  return { status: 200, body: { scanInfo: serializeScanInfo(row) } };
};
