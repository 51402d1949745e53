/**
 * TOTP second factor (RFC 6238, https://www.rfc-editor.org/rfc/rfc6238) through `otplib`: SHA-1,
 * 6 digits, 30-second steps — what every authenticator app reads from an `otpauth://` URI (Key
 * Uri Format, https://github.com/google/google-authenticator/wiki/Key-Uri-Format). A code of the
 * step before or after is accepted too (RFC 6238 §5.2 allows one step of drift).
 *
 * @module security/totp
 */
import { generateSecret, generateURI, verify } from 'otplib';

/** The issuer shown in authenticator apps. */
export const TOTP_ISSUER = 'Wallet Pass Service';

/** A new secret (20 random bytes, base32) and its `otpauth://` URI for `label` (the person's address). */
export function newTotpSecret(label: string): { secret: string; uri: string } {
  const secret = generateSecret();
  return { secret, uri: generateURI({ issuer: TOTP_ISSUER, label, secret }) };
}

/** Whether `code` is a current code of `secret` (one step of drift either way). */
export async function totpCodeMatches(secret: string, code: string | undefined): Promise<boolean> {
  if (!code || !/^[0-9]{6}$/.test(code)) return false;
  try {
    const result = await verify({ secret, token: code, epochTolerance: 30 });
    return result.valid;
  } catch {
    return false;
  }
}
