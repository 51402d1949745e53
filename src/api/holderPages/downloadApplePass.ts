import { create as createContentDisposition } from 'content-disposition';
import type { OperationHandler } from '../../http/operation.ts';
import { GoneError, NotFoundError } from '../../errors.ts';
import { PKPASS_MEDIA_TYPE } from '../../wallet/apple/pkpass.ts';
import { buildApplePassFile } from '../../delivery/applePassFile.ts';
import { findPassByUuid } from '../../domain/passes/passStore.ts';
import { notModified } from '../../http/conditionalRequests.ts';

/**
 * `Content-Disposition: attachment` for the file name (RFC 6266, with the name in `filename*`,
 * RFC 8187, when it is not ASCII): a header value may hold ASCII only, so a template named
 * 星珈琲 gets the ASCII `filename=pass.pkpass` and its own name in `filename*`, which browsers prefer.
 */
function attachment(fileName: string): string {
  return createContentDisposition(fileName, { fallback: /^[\x20-\x7e]*$/.test(fileName) ? true : 'pass.pkpass' });
}

/**
 * `GET /passes/{id}/apple`: the pass's signed `.pkpass`, for the holder (no API key: the UUID is
 * the capability). `304` for a matching `If-None-Match` or a current `If-Modified-Since`.
 * @throws NotFoundError for an unknown UUID; GoneError (410) for a nullified pass; ConflictError
 *   when the account cannot sign it yet (no Apple configuration).
 */
export const downloadApplePass: OperationHandler<'downloadApplePass'> = async ({ params, headers, ctx }) => {
  const pass = await findPassByUuid(ctx.db.prisma, params.id);
  if (!pass) throw new NotFoundError(`No pass with id ${params.id} exists.`, { parameter: 'id' });
  if (pass.status === 'nullified') throw new GoneError('pass_nullified', `The pass ${pass.id} was nullified and is no longer valid.`, { parameter: 'id' });
  const file = await buildApplePassFile({ ...ctx, logger: ctx.log }, pass, ctx.baseUrl);
  const validators = { ETag: file.etag, 'Last-Modified': file.lastModified.toUTCString(), 'Cache-Control': 'no-store' };
  if (notModified(headers, file)) return { status: 304, headers: validators, body: undefined };
  return {
    status: 200,
    headers: {
      ...validators,
      'Content-Type': PKPASS_MEDIA_TYPE,
      'Content-Disposition': attachment(file.fileName),
    },
    body: file.bytes,
  };
};
