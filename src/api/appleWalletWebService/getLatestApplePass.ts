import type { OperationHandler } from '../../http/operation.ts';
import { notModified } from '../../http/conditionalRequests.ts';
import { PKPASS_MEDIA_TYPE } from '../../wallet/apple/pkpass.ts';
import { buildApplePassFile } from '../../delivery/applePassFile.ts';
import { authenticatedApplePass } from '../../domain/appleDevices/applePassAuthentication.ts';

/**
 * `GET /wallet/apple/v1/passes/{passTypeIdentifier}/{serialNumber}` (Apple, "Send an updated
 * pass"): the signed pass with `Last-Modified` the time it really last changed; 304 when
 * `If-Modified-Since` is not before it (whole seconds). Voided passes are served too.
 * @throws AuthenticationError (401) unless the token is this pass's.
 */
export const getLatestApplePass: OperationHandler<'getLatestApplePass'> = async ({ params, headers, ctx }) => {
  const pass = await authenticatedApplePass(ctx, headers, params.passTypeIdentifier, params.serialNumber);
  const file = await buildApplePassFile({ ...ctx, logger: ctx.log }, pass, ctx.baseUrl);
  const lastModified = file.lastModified.toUTCString();
  if (notModified(headers, { lastModified: file.lastModified })) {
    return { status: 304, headers: { 'Last-Modified': lastModified } satisfies Record<string, string>, body: undefined };
  }
  const sent: Record<string, string> = { 'Last-Modified': lastModified, 'Content-Type': PKPASS_MEDIA_TYPE, 'Cache-Control': 'no-store' };
  return { status: 200, headers: sent, body: file.bytes };
};
