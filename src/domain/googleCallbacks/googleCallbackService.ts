/**
 * What a verified Google Wallet callback does (Google, "Add and delete callbacks",
 * https://developers.google.com/wallet/generic/use-cases/use-callbacks-for-saves-and-deletions):
 * applied once per nonce, a save marks the pass added to a wallet and announces it `installed`; a
 * deletion from its last wallet marks it removed and announces it `removed`
 * (src/domain/passes/passChanges.ts), in the caller's transaction.
 *
 * @module domain/googleCallbacks/googleCallbackService
 */
import type { PrismaExecutor } from '../../db/database.ts';
import type { GoogleCallbackMessage } from '../../wallet/google/callbackSignature.ts';
import { announcePassChange } from '../passes/passChanges.ts';
import { lockCallbackObject, markObjectDeleted, markObjectSaved, recordNonce } from './googleCallbackStore.ts';

/**
 * What applying a callback did: `duplicate` (its nonce was seen), `unknownObject` (not an object
 * of this service), `installed` / `alreadySaved` for a save, `removed` (left its last wallet),
 * `deletedFromGoogle` (deleted, another wallet holds it) or `notSaved` (deleted, never saved).
 */
export type GoogleCallbackOutcome = 'duplicate' | 'unknownObject' | 'installed' | 'alreadySaved' | 'removed' | 'deletedFromGoogle' | 'notSaved';

/**
 * Applies a verified callback message once per nonce.
 * @param message As src/domain/googleCallbacks/verifyGoogleCallback.ts returns it.
 * @returns What it did.
 */
export async function applyGoogleCallback(tx: PrismaExecutor, message: GoogleCallbackMessage, now: Date): Promise<GoogleCallbackOutcome> {
  if (!(await recordNonce(tx, message.nonce, new Date(message.expTimeMillis), now))) return 'duplicate';
  const object = await lockCallbackObject(tx, message.issuerId, message.objectId);
  if (!object) return 'unknownObject';
  if (message.eventType === 'save') {
    if (!(await markObjectSaved(tx, object, now))) return 'alreadySaved';
    await announcePassChange(tx, { accountId: object.accountId, passId: object.passId, kind: 'installed', at: now });
    return 'installed';
  }
  const wasSaved = object.savedAt !== null;
  if (await markObjectDeleted(tx, object, now)) {
    await announcePassChange(tx, { accountId: object.accountId, passId: object.passId, kind: 'removed', at: now });
    return 'removed';
  }
  return wasSaved ? 'deletedFromGoogle' : 'notSaved';
}
