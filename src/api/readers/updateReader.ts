import type { OperationHandler } from '../../http/operation.ts';
import { accountOf } from '../../http/operation.ts';
import { NotFoundError } from '../../errors.ts';
import { hashPassword } from '../../security/passwords.ts';
import { updateAccountReader, type ReaderChanges } from '../../domain/readers/readerStore.ts';
import { serializeReader } from '../../domain/readers/serializeReader.ts';

/**
 * `PATCH /api/v1/readers/{id}` (PassEntry API reference: Update a reader): only the members given change. `id` renames the
 * reader (its internal id, and so its scans, stay); a new `password` is hashed and signs the
 * reader out (`loggedIn` false).
 * @throws NotFoundError for an unknown reader or another account's; ConflictError for a taken id.
 */
export const updateReader: OperationHandler<'updateReader'> = async ({ params, body, ctx, write }) => {
  const { id, password, ...rest } = body.reader;
  const changes: ReaderChanges = { ...rest, ...(id === undefined ? {} : { publicId: id }) };
  if (password !== undefined) Object.assign(changes, { passwordHash: await hashPassword(password), loggedIn: false });
  const row = await write((tx) => updateAccountReader(tx, accountOf(ctx), params.id, changes));
  if (!row) throw new NotFoundError(`No reader with id ${params.id} exists.`, { parameter: 'id' });
  ctx.log.info({ readerId: row.id, renamed: id !== undefined && id !== params.id, passwordChanged: password !== undefined }, 'reader updated');
  return { status: 200, body: { data: serializeReader(row) } };
};
