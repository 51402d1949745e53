/**
 * "Save to Google Wallet" links (https://developers.google.com/wallet/reference/rest/v1/Jwt):
 * `https://pay.google.com/gp/v/save/<jwt>`, the JWT signed RS256 with the service account's key,
 * `iss` its `client_email`, `aud` "google", `typ` "savetowallet", `origins` the web pages
 * allowed to show the button, and a payload that names the already-inserted object by id only
 * (a "skinny" JWT: browsers cut links past about 1,800 characters, Google's "Typical API flows",
 * https://developers.google.com/wallet/generic/use-cases/jwt).
 *
 * @module wallet/google/saveLink
 */
import { createPrivateKey } from 'node:crypto';
import { SignJWT } from 'jose';

/** The base of save links. */
export const SAVE_URL_BASE = 'https://pay.google.com/gp/v/save/';
/** The longest JWT that survives as a link. */
export const MAX_SAVE_JWT_LENGTH = 1800;

/** What a link is signed with and for. */
export interface SaveLinkInput {
  clientEmail: string;
  /** PKCS#8 PEM. */
  privateKey: string;
  privateKeyId: string | null;
  origins: string[];
  /** The object's type, e.g. `loyaltyObject`. */
  objectType: string;
  objectId: string;
  now: Date;
}

/**
 * Signs a save link.
 * @returns `https://pay.google.com/gp/v/save/<jwt>`.
 * @throws RangeError when the JWT would exceed {@link MAX_SAVE_JWT_LENGTH} (an id too long).
 */
export async function signSaveLink(input: SaveLinkInput): Promise<string> {
  const jwt = await new SignJWT({ typ: 'savetowallet', origins: input.origins, payload: { [`${input.objectType}s`]: [{ id: input.objectId }] } })
    .setProtectedHeader({ alg: 'RS256', typ: 'JWT', ...(input.privateKeyId ? { kid: input.privateKeyId } : {}) })
    .setIssuer(input.clientEmail)
    .setAudience('google')
    .setIssuedAt(Math.floor(input.now.getTime() / 1000))
    .sign(createPrivateKey(input.privateKey));
  if (jwt.length > MAX_SAVE_JWT_LENGTH) throw new RangeError(`The save link's JWT has ${jwt.length} characters, more than ${MAX_SAVE_JWT_LENGTH}.`);
  return `${SAVE_URL_BASE}${jwt}`;
}
