/**
 * Database access for Google Wallet's save and delete callbacks: the nonces already applied,
 * the object a callback names, and what a save or a deletion does to its pass's life
 * (PassEntry's `addedAt`, `removedAt`, `deviceType`, statuses `active` and `removed`), as Apple
 * Wallet's registrations do (src/domain/appleDevices/appleDeviceStore.ts). Like them,
 * these writes never change the pass's `updated_at` (its content did not change).
 *
 * @module domain/googleCallbacks/googleCallbackStore
 */
import type { PrismaExecutor } from '../../db/database.ts';
import { Prisma } from '../../../generated/prisma/client.ts';
import { queryRow } from '../../db/rows.ts';

/** How long a nonce is kept after its message expired, in ms (a day: a late retry is refused as expired anyway). */
export const NONCE_RETENTION_AFTER_EXPIRY_MS = 86_400_000;
/** The most expired nonces one callback removes (the pruning stays a small, bounded statement). */
const PRUNED_PER_CALLBACK = 100;

/** Whether some account's Google configuration has this issuer id. */
export async function issuerConfigured(prisma: PrismaExecutor, issuerId: string): Promise<boolean> {
  const [row] = await prisma.$queryRaw<{ yes: boolean }[]>`SELECT EXISTS (SELECT 1 FROM google_configurations WHERE issuer_id = ${issuerId}) AS yes`;
  return row?.yes ?? false;
}

/**
 * Records a callback's nonce, and removes nonces whose message expired more than
 * {@link NONCE_RETENTION_AFTER_EXPIRY_MS} ago (at most {@link PRUNED_PER_CALLBACK}).
 * @returns false when the nonce was recorded already (a duplicate delivery).
 */
export async function recordNonce(tx: PrismaExecutor, nonce: string, expiresAt: Date, now: Date): Promise<boolean> {
  const cutoff = new Date(now.getTime() - NONCE_RETENTION_AFTER_EXPIRY_MS);
  await tx.$executeRaw`
    DELETE FROM google_wallet_callback_nonces WHERE nonce IN (
      SELECT nonce FROM google_wallet_callback_nonces WHERE expires_at < ${cutoff} ORDER BY expires_at LIMIT ${PRUNED_PER_CALLBACK})`;
  const inserted = await tx.$executeRaw`
    INSERT INTO google_wallet_callback_nonces (nonce, expires_at, received_at) VALUES (${nonce}, ${expiresAt}, ${now})
    ON CONFLICT (nonce) DO NOTHING`;
  return inserted > 0;
}

/** The object a callback names, locked with its pass. */
export interface CallbackObject {
  passId: string;
  accountId: string;
  /** When it was saved to a Google Wallet; null when it is in none. */
  savedAt: Date | null;
}

/**
 * The object with this id of an account whose issuer id is `issuerId`, its pass locked (so that
 * concurrent callbacks and Apple registrations agree on whether a wallet still holds the pass).
 * @returns null when no such object was written by this service.
 */
export async function lockCallbackObject(tx: PrismaExecutor, issuerId: string, objectId: string): Promise<CallbackObject | null> {
  const row = await queryRow<CallbackObject>(
    tx,
    Prisma.sql`
    SELECT o.pass_id::text AS pass_id, o.account_id::text AS account_id, o.saved_at
      FROM google_wallet_objects o
      JOIN google_configurations g ON g.account_id = o.account_id AND g.issuer_id = ${issuerId}
      JOIN passes p ON p.id = o.pass_id
     WHERE o.object_id = ${objectId}
       FOR NO KEY UPDATE OF p, o`,
  );
  return row ?? null;
}

/**
 * A save: the object is in a Google Wallet, and the pass was added to a wallet — `addedAt`,
 * `deviceType` `android`, and `active` unless it is deactivated or nullified.
 * @returns false when the object was saved already (nothing changed).
 */
export async function markObjectSaved(tx: PrismaExecutor, object: CallbackObject, now: Date): Promise<boolean> {
  if (object.savedAt) return false;
  await tx.$executeRaw`UPDATE google_wallet_objects SET saved_at = ${now} WHERE pass_id = ${object.passId}::uuid`;
  await tx.$executeRaw`
    UPDATE passes SET added_at = ${now}, device_type = 'android',
           status = CASE WHEN status IN ('issued', 'removed') THEN 'active'::pass_status ELSE status END
     WHERE id = ${object.passId}::uuid`;
  return true;
}

/**
 * A deletion: the object is in no Google Wallet. When no Apple device holds the pass either, it
 * left its last wallet: `removedAt`, and `removed` if it was `active`.
 * @returns Whether the pass left its last wallet (false too when the object was not saved: nothing changed).
 */
export async function markObjectDeleted(tx: PrismaExecutor, object: CallbackObject, now: Date): Promise<boolean> {
  if (!object.savedAt) return false;
  await tx.$executeRaw`UPDATE google_wallet_objects SET saved_at = NULL WHERE pass_id = ${object.passId}::uuid`;
  const removed = await tx.$executeRaw`
    UPDATE passes SET removed_at = ${now}, status = CASE WHEN status = 'active' THEN 'removed'::pass_status ELSE status END
     WHERE id = ${object.passId}::uuid AND NOT EXISTS (SELECT 1 FROM apple_registrations WHERE pass_id = ${object.passId}::uuid)`;
  return removed > 0;
}
