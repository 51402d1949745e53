import type { OperationHandler } from '../../http/operation.ts';
import { accountOf } from '../../http/operation.ts';
import { idempotencyKeyOf, runIdempotent } from '../../http/idempotency.ts';
import { logScan as recordLoggedScan } from './scanService.ts';
import { serializeScanInfo } from './serializeScan.ts';

/**
 * `POST /api/v1/scans/log` (spec §4.12): records a scan validated elsewhere, its balance change
 * and the reader's visit in one transaction (with the `Idempotency-Key`'s row when one is sent),
 * and answers `{ scanInfo }`.
 * @throws NotFoundError for an unknown reader or pass; ConflictError for a refused balance change.
 */
export const logScan: OperationHandler<'logScan'> = async ({ body, headers, url, ctx }) => {
  const accountId = accountOf(ctx);
  const now = ctx.clock.now();
  const request = { key: idempotencyKeyOf(headers), accountId, operationId: 'logScan' as const, url, body };
  return runIdempotent(ctx.db, request, now, async (tx) => {
    const row = await recordLoggedScan(tx, accountId, body.scan, now);
    ctx.log.info({ scanId: row.id, status: row.status }, 'scan logged');
    return { status: 200 as const, body: { scanInfo: serializeScanInfo(row) } };
  });
};
