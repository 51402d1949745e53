import type { OperationHandler } from '../../http/operation.ts';
import { accountOf } from '../../http/operation.ts';
import { hashPassword } from '../../security/passwords.ts';
import { requireAccountEntity } from '../../domain/entities/entityStore.ts';
import { insertReader, READER_TYPE_OF_INPUT } from '../../domain/readers/readerStore.ts';
import { serializeCreatedReader } from '../../domain/readers/serializeReader.ts';

/**
 * `POST /api/v1/entities/{entity_id}/readers` (PassEntry API reference: Create a reader): 201 with `Location`. The password is
 * hashed before it reaches the store; the flags the contract defaults (scanEnabled true, the
 * others false) arrive filled in by the validator.
 * @throws NotFoundError for an unknown entity or another account's; ConflictError for a taken id.
 */
export const createReader: OperationHandler<'createReader'> = async ({ params, body, ctx, write }) => {
  const entity = await requireAccountEntity(ctx.db.prisma, accountOf(ctx), params.entity_id, 'entity_id');
  const { id, name, type, password, ...flags } = body.reader;
  const passwordHash = await hashPassword(password);
  const row = await write((tx) =>
    insertReader(tx, entity, {
      ...flags,
      publicId: id,
      name,
      readerType: READER_TYPE_OF_INPUT[type],
      passwordHash,
    }),
  );
  ctx.log.info({ entityId: entity.id, readerId: row.id }, 'reader created');
  return {
    status: 201,
    headers: { Location: `${ctx.baseUrl}/api/v1/readers/${encodeURIComponent(row.publicId)}` },
    body: { data: serializeCreatedReader(row) },
  };
};
