import type { OperationHandler } from '../../http/operation.ts';
import { authenticatedApplePass } from '../../domain/appleDevices/applePassAuthentication.ts';
import { unregisterPassDevice } from '../../domain/appleDevices/appleDeviceService.ts';

/**
 * `DELETE /wallet/apple/v1/devices/{deviceLibraryIdentifier}/registrations/{passTypeIdentifier}/{serialNumber}`
 * (Apple, "Unregister a pass for update notifications"): 200, registered or not; the last device
 * leaving marks the pass removed.
 * @throws AuthenticationError (401) unless the token is this pass's.
 */
export const unregisterDevice: OperationHandler<'unregisterDevice'> = async ({ params, headers, write, ctx }) => {
  const pass = await authenticatedApplePass(ctx, headers, params.passTypeIdentifier, params.serialNumber);
  const now = ctx.clock.now();
  await write((tx) => unregisterPassDevice(tx, { accountId: pass.accountId, passId: pass.id, deviceLibraryIdentifier: params.deviceLibraryIdentifier, now }));
  ctx.log.info({ passId: pass.id }, 'Apple device unregistered from a pass');
  return { status: 200, body: undefined };
};
