import type { OperationHandler } from '../../http/operation.ts';
import { authenticatedApplePass, checkRegistrableDevice } from '../../domain/appleDevices/applePassAuthentication.ts';
import { registerPassDevice } from '../../domain/appleDevices/appleDeviceService.ts';

/**
 * `POST /wallet/apple/v1/devices/{deviceLibraryIdentifier}/registrations/{passTypeIdentifier}/{serialNumber}`
 * (Apple, "Register a pass for update notifications"): keeps the device's push token; 201 for a
 * new registration, 200 for a renewed one.
 * @throws AuthenticationError (401) unless the token is this pass's and the device library
 *   identifier of the registrable form.
 */
export const registerDevice: OperationHandler<'registerDevice'> = async ({ params, body, headers, write, ctx }) => {
  checkRegistrableDevice(params.deviceLibraryIdentifier);
  const pass = await authenticatedApplePass(ctx, headers, params.passTypeIdentifier, params.serialNumber);
  const now = ctx.clock.now();
  const { created } = await write((tx) =>
    registerPassDevice(tx, {
      accountId: pass.accountId,
      passId: pass.id,
      passTypeIdentifier: params.passTypeIdentifier,
      deviceLibraryIdentifier: params.deviceLibraryIdentifier,
      pushToken: body.pushToken,
      now,
    }),
  );
  ctx.log.info({ passId: pass.id, created }, 'Apple device registered for a pass');
  return { status: created ? 201 : 200, body: undefined };
};
