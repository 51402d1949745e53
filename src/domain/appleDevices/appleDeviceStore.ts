/**
 * Database access for Apple Wallet's web service: devices and their registrations for passes
 * (Apple's suggested model: devices, passes, and registrations between them,
 * https://developer.apple.com/documentation/walletpasses/adding-a-web-service-to-update-passes),
 * what a registration does to its pass's life (PassEntry's `addedAt`, `removedAt`,
 * `deviceType`, statuses `active` and `removed`), and the messages devices log.
 *
 * Registrations never change the pass's `updated_at`: that column is when the pass's content last
 * changed, which is what a device asks about (a serial listed as updated whose pass did not
 * change makes Wallet log an error).
 *
 * @module domain/appleDevices/appleDeviceStore
 */
import type { PrismaExecutor } from '../../db/database.ts';
import { Prisma } from '../../../generated/prisma/client.ts';
import { queryRows } from '../../db/rows.ts';

/** The newest device messages kept, and for how long. */
export const DEVICE_LOG_LIMIT = 10_000;
export const DEVICE_LOG_DAYS = 30;

/**
 * Registers a device for a pass, or renews its registration with a new push token. The first
 * current registration of a pass marks it added to a wallet: `addedAt`, `deviceType` `iphone`,
 * and `active` unless it is deactivated or nullified.
 * @returns Whether the registration is new (201) or existed (200), and whether it is the pass's
 *   first (the pass was just added to a wallet).
 */
export async function registerDeviceForPass(
  tx: PrismaExecutor,
  registration: { accountId: string; passId: string; passTypeIdentifier: string; deviceLibraryIdentifier: string; pushToken: string; now: Date },
): Promise<{ created: boolean; first: boolean }> {
  const { accountId, passId, passTypeIdentifier, deviceLibraryIdentifier, pushToken, now } = registration;
  const [device] = await tx.$queryRaw<{ id: string }[]>`
    INSERT INTO apple_devices (id, account_id, device_library_identifier, push_token, created_at, updated_at)
    VALUES (gen_random_uuid(), ${accountId}::uuid, ${deviceLibraryIdentifier}, ${pushToken}, ${now}, ${now})
    ON CONFLICT (account_id, device_library_identifier) DO UPDATE SET push_token = EXCLUDED.push_token, updated_at = EXCLUDED.updated_at
    RETURNING id::text AS id`;
  // Locks the pass so that concurrent registrations agree on which one is the first.
  const [pass] = await tx.$queryRaw<{ devices: number }[]>`
    SELECT (SELECT count(*)::int FROM apple_registrations WHERE pass_id = ${passId}::uuid) AS devices
      FROM passes WHERE id = ${passId}::uuid FOR NO KEY UPDATE`;
  const [inserted] = await tx.$queryRaw<{ created: boolean }[]>`
    INSERT INTO apple_registrations (device_id, pass_id, account_id, pass_type_identifier, created_at, renewed_at)
    VALUES (${device!.id}::uuid, ${passId}::uuid, ${accountId}::uuid, ${passTypeIdentifier}, ${now}, ${now})
    ON CONFLICT (device_id, pass_id) DO UPDATE SET renewed_at = EXCLUDED.renewed_at
    RETURNING (xmax = 0) AS created`;
  if (!pass!.devices) {
    await tx.$executeRaw`
      UPDATE passes SET added_at = ${now}, device_type = 'iphone',
             status = CASE WHEN status IN ('issued', 'removed') THEN 'active'::pass_status ELSE status END
       WHERE id = ${passId}::uuid`;
  }
  return { created: inserted!.created, first: !pass!.devices };
}

/**
 * Ends a device's registration for a pass. When no device holds the pass any more — no Apple
 * device, and its Google Wallet object not saved (Google's save callbacks,
 * src/domain/googleCallbacks/googleCallbackStore.ts) — it is marked removed:
 * `removedAt`, and `removed` if it was `active`.
 * @returns Whether this was the pass's last registration (the pass was just removed from its last wallet).
 */
export async function unregisterDeviceFromPass(
  tx: PrismaExecutor,
  registration: { accountId: string; passId: string; deviceLibraryIdentifier: string; now: Date },
): Promise<boolean> {
  const { accountId, passId, deviceLibraryIdentifier, now } = registration;
  await tx.$queryRaw`SELECT id FROM passes WHERE id = ${passId}::uuid FOR NO KEY UPDATE`;
  const deleted = await tx.$executeRaw`
    DELETE FROM apple_registrations r USING apple_devices d
     WHERE r.device_id = d.id AND r.pass_id = ${passId}::uuid
       AND d.account_id = ${accountId}::uuid AND d.device_library_identifier = ${deviceLibraryIdentifier}`;
  if (!deleted) return false;
  const removed = await tx.$executeRaw`
    UPDATE passes SET removed_at = ${now}, status = CASE WHEN status = 'active' THEN 'removed'::pass_status ELSE status END
     WHERE id = ${passId}::uuid AND NOT EXISTS (SELECT 1 FROM apple_registrations WHERE pass_id = ${passId}::uuid)
       AND NOT EXISTS (SELECT 1 FROM google_wallet_objects WHERE pass_id = ${passId}::uuid AND saved_at IS NOT NULL)`;
  return removed > 0;
}

/**
 * The passes of a pass type registered to a device that changed after `since` (strictly), with
 * the time of the latest change in milliseconds (the next `lastUpdated` tag).
 */
export async function selectUpdatedSerialNumbers(
  prisma: PrismaExecutor,
  deviceLibraryIdentifier: string,
  passTypeIdentifier: string,
  since: Date | null,
): Promise<{ serialNumbers: string[]; lastUpdatedMs: number | null }> {
  const rows = await queryRows<{ id: string; updatedMs: number }>(
    prisma,
    Prisma.sql`
    SELECT p.id::text AS id, floor(extract(epoch FROM p.updated_at) * 1000)::float8 AS updated_ms
      FROM apple_devices d
      JOIN apple_registrations r ON r.device_id = d.id
      JOIN passes p ON p.id = r.pass_id
     WHERE d.device_library_identifier = ${deviceLibraryIdentifier} AND r.pass_type_identifier = ${passTypeIdentifier}
       AND (${since}::timestamptz IS NULL OR p.updated_at > ${since}::timestamptz)
     ORDER BY p.updated_at, p.id`,
  );
  return { serialNumbers: rows.map((r) => r.id), lastUpdatedMs: rows.length ? Math.max(...rows.map((r) => Number(r.updatedMs))) : null };
}

/** Stores device messages and prunes those past {@link DEVICE_LOG_LIMIT} or {@link DEVICE_LOG_DAYS}. */
export async function insertDeviceLogs(prisma: PrismaExecutor, messages: string[], now: Date): Promise<void> {
  if (messages.length) {
    await prisma.$executeRaw`
      INSERT INTO apple_device_logs (message, created_at)
      SELECT m, ${now} FROM unnest(${messages.map((m) => m.slice(0, 2000))}::varchar[]) AS m`;
  }
  const cutoff = new Date(now.getTime() - DEVICE_LOG_DAYS * 24 * 3600 * 1000);
  await prisma.$executeRaw`
    DELETE FROM apple_device_logs
     WHERE created_at < ${cutoff} OR id <= (SELECT max(id) - ${DEVICE_LOG_LIMIT} FROM apple_device_logs)`;
}

/** A page of device messages, newest first, and the total. */
export async function selectDeviceLogPage(prisma: PrismaExecutor, page: { skip: number; take: number }) {
  const [rows, total] = await Promise.all([
    prisma.appleDeviceLog.findMany({ orderBy: { id: 'desc' }, skip: page.skip, take: page.take }),
    prisma.appleDeviceLog.count(),
  ]);
  return { rows, total };
}

/** A pass's registrations with the latest push to each device, newest first. */
export function selectPassRegistrations(prisma: PrismaExecutor, passId: string) {
  return queryRows<{
    deviceLibraryIdentifier: string;
    passTypeIdentifier: string;
    pushToken: string;
    createdAt: Date;
    renewedAt: Date;
    pushAt: Date | null;
    pushOutcome: string | null;
    pushStatus: number | null;
    pushReason: string | null;
  }>(
    prisma,
    Prisma.sql`
    SELECT d.device_library_identifier, r.pass_type_identifier,
           d.push_token, r.created_at, r.renewed_at,
           a.created_at AS push_at, a.outcome AS push_outcome, a.status AS push_status, a.reason AS push_reason
      FROM apple_registrations r
      JOIN apple_devices d ON d.id = r.device_id
      LEFT JOIN LATERAL (
        SELECT created_at, outcome, status, reason FROM delivery_attempts
         WHERE pass_id = r.pass_id AND channel = 'apns' AND target = d.device_library_identifier
         ORDER BY created_at DESC, id DESC LIMIT 1) a ON true
     WHERE r.pass_id = ${passId}::uuid
     ORDER BY r.created_at DESC`,
  );
}
