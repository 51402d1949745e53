import type { OperationHandler } from '../../http/operation.ts';
import { accountOf } from '../../http/operation.ts';
import { pageEnvelope, pageRequest } from '../../http/pagination.ts';
import { findPass } from '../../domain/passes/passStore.ts';
import { selectAccountReader } from '../../domain/readers/readerStore.ts';
import { selectScanPage, type ScanFilters } from '../../domain/scans/scanStore.ts';
import { includedOf, serializeScan } from '../../domain/scans/serializeScan.ts';

/** Default page size of scan lists (PassEntry API reference: limits: 25 for lists other than templates). */
export const SCANS_PER_PAGE = 25;

/**
 * `GET /api/v1/scans`: the caller's scans, newest first, filtered by reader (current public id),
 * pass (UUID or extId), status and time window, with their passes and readers in `included`,
 * each once. A reader or pass the account does not have matches nothing (an empty page).
 */
export const listScans: OperationHandler<'listScans'> = async ({ query, url, ctx }) => {
  const accountId = accountOf(ctx);
  const page = pageRequest(query, SCANS_PER_PAGE);
  const filters: ScanFilters = {
    status: query.status,
    ...(query.scannedAfter ? { scannedAfter: new Date(query.scannedAfter) } : {}),
    ...(query.scannedBefore ? { scannedBefore: new Date(query.scannedBefore) } : {}),
  };
  let unmatched = false;
  if (query.reader !== undefined) {
    const reader = await selectAccountReader(ctx.db.prisma, accountId, query.reader);
    if (reader) filters.readerId = reader.id;
    else unmatched = true;
  }
  if (query.pass !== undefined) {
    const pass = await findPass(ctx.db.prisma, accountId, query.pass);
    if (pass) filters.passId = pass.id;
    else unmatched = true;
  }
  const { rows, total } = unmatched ? { rows: [], total: 0 } : await selectScanPage(ctx.db.prisma, accountId, filters, page);
  return {
    status: 200,
    body: { data: rows.map(serializeScan), included: includedOf(rows, ctx.baseUrl), ...pageEnvelope(page, total, ctx.baseUrl, url) },
  };
};
