import type { OperationHandler } from '../../http/operation.ts';
import { accountOf } from '../../http/operation.ts';
import { validateScan } from '../../domain/scans/scanService.ts';
import { serializeScanInfo } from '../../domain/scans/serializeScan.ts';

/**
 * `POST /api/v1/scans` (PassEntry API reference, "Create scan", internal validation): validates
 * the scan, records it either way with its balance change and the reader's visit in one
 * transaction, and answers 200 `{ validationResponse, scanInfo }` — also for a refused scan.
 * @throws NotFoundError for an unknown reader or pass.
 */
export const createScan: OperationHandler<'createScan'> = async ({ body, write, ctx }) => {
  const accountId = accountOf(ctx);
  const now = ctx.clock.now();
  const { validation, scan } = await write((tx) => validateScan(tx, accountId, body.scan, now));
  ctx.log.info({ scanId: scan.id, status: scan.status }, 'scan validated');
  return { status: 200, body: { validationResponse: validation, scanInfo: serializeScanInfo(scan) } };
};
