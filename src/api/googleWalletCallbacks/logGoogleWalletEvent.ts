import type { OperationHandler } from '../../http/operation.ts';
import { applyGoogleCallback } from '../../domain/googleCallbacks/googleCallbackService.ts';
import { verifyGoogleCallback } from '../../domain/googleCallbacks/verifyGoogleCallback.ts';

/**
 * `POST /wallet/google/v1/callbacks` (Google, "Add and delete callbacks",
 * https://developers.google.com/wallet/generic/use-cases/use-callbacks-for-saves-and-deletions):
 * verifies the message, then applies it once per nonce (src/domain/googleCallbacks/googleCallbackService.ts) —
 * a save marks the pass added to a wallet (`android`, `passInstalled`), a deletion from its last
 * wallet marks it removed (`passRemoved`).
 * 200 also for a repeated nonce and an object this service does not know (Google stops retrying).
 * @throws ValidationError (400), UnprocessableError (422), UnavailableError (503): see verifyGoogleCallback.
 */
export const logGoogleWalletEvent: OperationHandler<'logGoogleWalletEvent'> = async ({ body, write, ctx }) => {
  const now = ctx.clock.now();
  const message = await verifyGoogleCallback({ prisma: ctx.db.prisma, keys: ctx.googleCallbackKeys }, body, now);
  const outcome = await write((tx) => applyGoogleCallback(tx, message, now));
  const log = { objectId: message.objectId, eventType: message.eventType, outcome };
  if (outcome === 'unknownObject') ctx.log.warn(log, 'Google Wallet callback for an object this service does not know; acknowledged');
  else ctx.log.info(log, 'Google Wallet callback applied');
  return { status: 200, body: undefined };
};
