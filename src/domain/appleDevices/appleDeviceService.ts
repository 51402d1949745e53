/**
 * Apple devices that register for a pass's updates and unregister (Apple, "Register a pass for
 * update notifications" and "Unregister a pass for update notifications",
 * https://developer.apple.com/documentation/walletpasses/register-a-pass-for-update-notifications):
 * the registration is stored (src/domain/appleDevices/appleDeviceStore.ts) and, when the pass
 * just entered its first wallet or left its last one, the change is announced
 * (src/domain/passes/passChanges.ts: `installed` / `removed`), in the caller's transaction.
 *
 * @module domain/appleDevices/appleDeviceService
 */
import type { PrismaExecutor } from '../../db/database.ts';
import { announcePassChange } from '../passes/passChanges.ts';
import { registerDeviceForPass, unregisterDeviceFromPass } from './appleDeviceStore.ts';

/** A device's registration for a pass, as Apple's web service call names it. */
export interface DeviceRegistration {
  accountId: string;
  passId: string;
  passTypeIdentifier: string;
  deviceLibraryIdentifier: string;
  /** The device's APNs push token. */
  pushToken: string;
  now: Date;
}

/**
 * Registers a device for a pass, or renews its registration; the pass's first registration
 * announces it `installed`.
 * @returns Whether the registration is new (201) or was renewed (200).
 */
export async function registerPassDevice(tx: PrismaExecutor, registration: DeviceRegistration): Promise<{ created: boolean }> {
  const { created, first } = await registerDeviceForPass(tx, registration);
  if (first) await announcePassChange(tx, { accountId: registration.accountId, passId: registration.passId, kind: 'installed', at: registration.now });
  return { created };
}

/**
 * Ends a device's registration for a pass (nothing when it has none); when the pass left its last
 * wallet, announces it `removed`.
 */
export async function unregisterPassDevice(
  tx: PrismaExecutor,
  registration: Pick<DeviceRegistration, 'accountId' | 'passId' | 'deviceLibraryIdentifier' | 'now'>,
): Promise<void> {
  if (await unregisterDeviceFromPass(tx, registration))
    await announcePassChange(tx, { accountId: registration.accountId, passId: registration.passId, kind: 'removed', at: registration.now });
}
