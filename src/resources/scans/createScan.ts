import type { OperationHandler } from '../../http/operation.ts';
import { accountOf } from '../../http/operation.ts';
import { idempotencyKeyOf, runIdempotent } from '../../http/idempotency.ts';
import { validateScan } from './scanService.ts';
import { serializeScanInfo } from './serializeScan.ts';

/**
 * `POST /api/v1/scans` (internal validation): validates the scan, records it either way with its
 * balance change and the reader's visit in one transaction (with the `Idempotency-Key`'s row
 * when one is sent), and answers 200 `{ validationResponse, scanInfo }` — also for a refused scan.
 * @throws NotFoundError for an unknown reader or pass.
 */
export const createScan: OperationHandler<'createScan'> = async ({ body, headers, url, ctx }) => {
  const accountId = accountOf(ctx);
  const now = ctx.clock.now();
  const request = { key: idempotencyKeyOf(headers), accountId, operationId: 'createScan' as const, url, body };
  return runIdempotent(ctx.db, request, now, async (tx) => {
    const { validation, scan } = await validateScan(tx, accountId, body.scan, now);
    ctx.log.info({ scanId: scan.id, status: scan.status }, 'scan validated');
    return { status: 200 as const, body: { validationResponse: validation, scanInfo: serializeScanInfo(scan) } };
  });
};
