/**
 * Checks that a Google Wallet callback is Google's and meant for one of this service's issuers
 * (src/wallet/google/callbackSignature.ts), with the root keys of the process
 * (src/wallet/google/callbackKeys.ts): when no root key verifies the intermediate signing key,
 * Google may have rotated its keys, so the list is fetched again (at most once a minute) and the
 * check repeated once.
 *
 * @module domain/googleCallbacks/verifyGoogleCallback
 */
import { UnavailableError, UnprocessableError } from '../../errors.ts';
import { GoogleKeysUnavailableError, type GoogleCallbackKeys } from '../../wallet/google/callbackKeys.ts';
import {
  parseCallbackMessage,
  UnknownRootKeyError,
  verifyIntermediateKey,
  verifySignedMessage,
  type GoogleCallbackBody,
  type GoogleCallbackMessage,
} from '../../wallet/google/callbackSignature.ts';
import type { PrismaExecutor } from '../../db/database.ts';
import { issuerConfigured } from './googleCallbackStore.ts';

/** Seconds Google is asked to wait when the key list cannot be had. */
const KEYS_RETRY_AFTER_S = 60;

/**
 * The verified message of a callback.
 * @throws ValidationError (400) for a signed message that is not a callback message;
 *   UnprocessableError (422) `callback_issuer_unknown` when no account has its issuer id, and the
 *   codes of src/wallet/google/callbackSignature.ts for a signature, key or message that fails;
 *   UnavailableError (503) when Google's key list cannot be fetched and none is at hand.
 */
export async function verifyGoogleCallback(
  deps: { prisma: PrismaExecutor; keys: GoogleCallbackKeys },
  body: GoogleCallbackBody,
  now: Date,
): Promise<GoogleCallbackMessage> {
  const message = parseCallbackMessage(body.signedMessage);
  if (!(await issuerConfigured(deps.prisma, message.issuerId))) {
    throw new UnprocessableError('callback_issuer_unknown', `No account has the Google issuer id ${message.issuerId} of objectId and classId.`, {
      pointer: '/signedMessage',
    });
  }
  const at = now.getTime();
  let rootKeys: Awaited<ReturnType<GoogleCallbackKeys['current']>>;
  try {
    rootKeys = await deps.keys.current();
  } catch (error) {
    if (error instanceof GoogleKeysUnavailableError) {
      throw new UnavailableError(`Google's signing keys of Wallet callbacks are unavailable: ${error.message} Retry later.`, KEYS_RETRY_AFTER_S);
    }
    throw error;
  }
  let intermediateKey: ReturnType<typeof verifyIntermediateKey>;
  try {
    intermediateKey = verifyIntermediateKey(body, rootKeys, at);
  } catch (error) {
    if (!(error instanceof UnknownRootKeyError)) throw error;
    const refreshed = await deps.keys.refresh();
    if (!refreshed) throw error;
    intermediateKey = verifyIntermediateKey(body, refreshed, at);
  }
  verifySignedMessage(body, intermediateKey, message.issuerId, message, at);
  return message;
}
