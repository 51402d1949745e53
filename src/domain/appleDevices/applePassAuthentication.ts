/**
 * Authenticates a call of Apple Wallet's web service for one pass: the `ApplePass` token must be
 * that pass's own `authenticationToken` (compared in constant time), and the pass type in the path
 * the one the pass is signed for. Apple expects `401` for a wrong token and for an unknown serial
 * number alike
 * (https://developer.apple.com/documentation/walletpasses/register-a-pass-for-update-notifications).
 *
 * @module domain/appleDevices/applePassAuthentication
 */
import type { IncomingHttpHeaders } from 'node:http';
import { AuthenticationError } from '../../errors.ts';
import type { Runtime } from '../../deps.ts';
import { appleAuthenticationTokenContext } from '../../security/secretContexts.ts';
import { applePassCredential, sameToken } from '../../security/applePassCredential.ts';
import { findPassByUuid, type PassRow } from '../passes/passStore.ts';
import { selectSigningPassTypeIdentifier } from '../passTemplates/passTemplateStore.ts';

/**
 * The device library identifiers a device is registered with: 1 to 128 letters, digits, `.`,
 * `_` or `-` (the contract's `DeviceLibraryIdentifier`; Apple's are 32 hex digits, and the
 * column holds 128 characters).
 */
const DEVICE_LIBRARY_IDENTIFIER = /^[A-Za-z0-9._-]{1,128}$/;

/**
 * Refuses to register a device under an identifier of another form. Apple documents only `201`,
 * `200` and `401` for a registration
 * (https://developer.apple.com/documentation/walletpasses/register-a-pass-for-update-notifications),
 * so such a request is not authorized rather than invalid.
 * @throws AuthenticationError (scheme `ApplePass`) for an identifier of another form.
 */
export function checkRegistrableDevice(deviceLibraryIdentifier: string): void {
  if (!DEVICE_LIBRARY_IDENTIFIER.test(deviceLibraryIdentifier)) {
    throw new AuthenticationError(
      'A device is registered with a device library identifier of 1 to 128 letters, digits, ".", "_" or "-".',
      'invalid_token',
      { header: 'Authorization' },
      'ApplePass',
    );
  }
}

const refused = () =>
  new AuthenticationError('The ApplePass authentication token is not the one of this pass.', 'invalid_token', { header: 'Authorization' }, 'ApplePass');

/**
 * The pass a web service call is for.
 * @returns The pass (any status: voided passes are still served).
 * @throws AuthenticationError (scheme `ApplePass`) for a malformed header, an unknown serial
 *   number, a pass of another pass type, or a wrong token.
 */
export async function authenticatedApplePass(
  ctx: Pick<Runtime, 'db' | 'secrets'>,
  headers: IncomingHttpHeaders,
  passTypeIdentifier: string,
  serialNumber: string,
): Promise<PassRow> {
  const presented = applePassCredential(headers.authorization);
  const pass = await findPassByUuid(ctx.db.prisma, serialNumber);
  if (!pass?.appleAuthenticationToken) throw refused();
  if ((await selectSigningPassTypeIdentifier(ctx.db.prisma, pass.templateId)) !== passTypeIdentifier) throw refused();
  const expected = ctx.secrets.decrypt(pass.appleAuthenticationToken, appleAuthenticationTokenContext(pass.id));
  if (!sameToken(presented, expected)) throw refused();
  return pass;
}
