import type { OperationHandler } from '../../http/operation.ts';
import { accountOf } from '../../http/operation.ts';
import { validateScan } from './scanService.ts';
import { recordPassEvent } from '../passes/passWebhooks.ts';
import { serializeScanInfo } from './serializeScan.ts';

/**
 * `POST /api/v1/scans` (PassEntry API reference, "Create scan", internal validation): validates
 * the scan, records it either way with its balance change and the reader's visit in one
 * transaction, and answers 200 `{ validationResponse, scanInfo }` — also for a refused scan.
 * @throws NotFoundError for an unknown reader or pass.
 */
export const createScan: OperationHandler<'createScan'> = async ({ body, write, ctx }) => {
  const accountId = accountOf(ctx);
  const now = ctx.clock.now();
  const { validation, scan } = await write(async (tx) => {
    const validated = await validateScan(tx, ctx.jobs, accountId, body.scan, now);
    await recordPassEvent(tx, ctx, { type: 'passScanned', accountId, pass: validated.scan.passId, entityId: validated.scan.reader.entityId, at: now });
    return validated;
  });
  ctx.log.info({ scanId: scan.id, status: scan.status }, 'scan validated');
  return { status: 200, body: { validationResponse: validation, scanInfo: serializeScanInfo(scan) } };
};
