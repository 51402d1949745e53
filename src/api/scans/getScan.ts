import type { OperationHandler } from '../../http/operation.ts';
import { accountOf } from '../../http/operation.ts';
import { NotFoundError } from '../../errors.ts';
import { selectAccountScan } from '../../domain/scans/scanStore.ts';
import { includedOf, serializeScan } from '../../domain/scans/serializeScan.ts';

/** `GET /api/v1/scans/{id}` (PassEntry API reference: Show a scan): the scan with `included: [pass, reader]`. Another account's scan is a 404. */
export const getScan: OperationHandler<'getScan'> = async ({ params, ctx }) => {
  const row = await selectAccountScan(ctx.db.prisma, accountOf(ctx), params.id);
  if (!row) throw new NotFoundError(`No scan with id ${params.id} exists.`, { parameter: 'id' });
  return { status: 200, body: { data: serializeScan(row), included: includedOf([row], ctx.baseUrl) } };
};
