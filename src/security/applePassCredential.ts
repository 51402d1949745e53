/**
 * The credential of Apple Wallet's web service calls: `Authorization: ApplePass
 * <authenticationToken>` (Apple, "Adding a web service to update passes",
 * https://developer.apple.com/documentation/walletpasses/adding-a-web-service-to-update-passes).
 *
 * @module security/applePassCredential
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { AuthenticationError } from '../errors.ts';

/**
 * The token of an `ApplePass` authorization header.
 * @throws AuthenticationError (scheme `ApplePass`) when the header is missing or of another form.
 */
export function applePassCredential(header: string | undefined): string {
  const match = /^ApplePass (\S{16,512})$/.exec(header ?? '');
  if (!match)
    throw new AuthenticationError(
      'Send "Authorization: ApplePass <authenticationToken>" with the pass\'s token.',
      'invalid_request',
      { header: 'Authorization' },
      'ApplePass',
    );
  return match[1]!;
}

/** Compares a presented token with the pass's own in constant time (SHA-256 of both, so lengths do not leak). */
export function sameToken(presented: string, expected: string): boolean {
  const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();
  return timingSafeEqual(digest(presented), digest(expected));
}
