import type { OperationHandler } from '../../http/operation.ts';
import { accountOf } from '../../http/operation.ts';
import { NotFoundError } from '../../errors.ts';
import { selectAccountReader } from '../../domain/readers/readerStore.ts';
import { serializeReader } from '../../domain/readers/serializeReader.ts';

/** `GET /api/v1/readers/{id}` (PassEntry API reference: Show a reader). Another account's reader is a 404. */
export const getReader: OperationHandler<'getReader'> = async ({ params, ctx }) => {
  const row = await selectAccountReader(ctx.db.prisma, accountOf(ctx), params.id);
  if (!row) throw new NotFoundError(`No reader with id ${params.id} exists.`, { parameter: 'id' });
  return { status: 200, body: { data: serializeReader(row) } };
};
