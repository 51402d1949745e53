/**
 * Passkeys (WebAuthn Level 3, https://www.w3.org/TR/webauthn-3/) through
 * `@simplewebauthn/server`: registration and authentication options, and verification of the
 * browser's answers.
 *
 * - The relying party id is the host of the service's base URL (`PUBLIC_BASE_URL`, or the
 *   request's host on the embedded default), the expected origin its origin: a passkey made for
 *   `wallet.example.com` works nowhere else (WebAuthn Level 3, sections 5.1.3 and 7.1).
 * - Passkeys are discoverable credentials (`residentKey: required`): signing in asks for no
 *   address. User verification is preferred: a passkey is possession, and with verification
 *   (a PIN or biometrics) a second factor by itself.
 * - Challenges live 5 minutes and are used once (src/domain/people/signInChallengeStore.ts).
 *
 * @module security/passkeys
 */
import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type AuthenticationResponseJSON,
  type RegistrationResponseJSON,
} from '@simplewebauthn/server';

/** How long a challenge may be answered, in ms. */
export const CHALLENGE_TTL_MS = 5 * 60_000;
/** The name browsers show for this relying party. */
const RP_NAME = 'Wallet Pass Service';

/** The relying party of a base URL: its host name as the RP id, its origin as the expected origin. */
export function relyingParty(baseUrl: string): { rpID: string; origin: string } {
  const url = new URL(baseUrl);
  return { rpID: url.hostname, origin: url.origin };
}

/** Registration options for a person (`excluded`: the credential ids they have already). */
export function registrationOptions(
  baseUrl: string,
  person: { id: string; email: string; name: string },
  excluded: { credentialId: string; transports: string[] }[],
) {
  return generateRegistrationOptions({
    rpName: RP_NAME,
    rpID: relyingParty(baseUrl).rpID,
    userName: person.email,
    userDisplayName: person.name,
    userID: Buffer.from(person.id.replaceAll('-', ''), 'hex'),
    timeout: CHALLENGE_TTL_MS,
    attestationType: 'none',
    excludeCredentials: excluded.map((c) => ({ id: c.credentialId, transports: c.transports as never })),
    authenticatorSelection: { residentKey: 'required', userVerification: 'preferred' },
  });
}

/** Authentication options for a sign-in by any of the relying party's passkeys. */
export function authenticationOptions(baseUrl: string) {
  return generateAuthenticationOptions({ rpID: relyingParty(baseUrl).rpID, timeout: CHALLENGE_TTL_MS, userVerification: 'preferred', allowCredentials: [] });
}

/** A verified new passkey. */
export interface VerifiedPasskey {
  credentialId: string;
  publicKey: Uint8Array<ArrayBuffer>;
  counter: number;
  transports: string[];
}

/**
 * Verifies the browser's answer to a registration challenge.
 * @returns The credential, or undefined when the answer does not verify (wrong challenge, origin
 *   or RP id, malformed attestation).
 */
export async function verifyRegistration(baseUrl: string, challenge: string, response: unknown): Promise<VerifiedPasskey | undefined> {
  const { rpID, origin } = relyingParty(baseUrl);
  try {
    const result = await verifyRegistrationResponse({
      response: response as RegistrationResponseJSON,
      expectedChallenge: challenge,
      expectedOrigin: origin,
      expectedRPID: rpID,
      requireUserVerification: false,
    });
    if (!result.verified) return undefined;
    const { credential } = result.registrationInfo;
    return {
      credentialId: credential.id,
      publicKey: new Uint8Array(credential.publicKey),
      counter: credential.counter,
      transports: (credential.transports ?? (response as RegistrationResponseJSON).response?.transports ?? []) as string[],
    };
  } catch {
    return undefined;
  }
}

/**
 * Verifies the browser's answer to a sign-in challenge against a stored passkey.
 * @returns The passkey's new signature counter, or undefined when the answer does not verify.
 */
export async function verifyAuthentication(
  baseUrl: string,
  challenge: string,
  response: unknown,
  passkey: { credentialId: string; publicKey: Uint8Array; counter: bigint; transports: string[] },
): Promise<number | undefined> {
  const { rpID, origin } = relyingParty(baseUrl);
  try {
    const result = await verifyAuthenticationResponse({
      response: response as AuthenticationResponseJSON,
      expectedChallenge: challenge,
      expectedOrigin: origin,
      expectedRPID: rpID,
      requireUserVerification: false,
      credential: {
        id: passkey.credentialId,
        publicKey: new Uint8Array(passkey.publicKey),
        counter: Number(passkey.counter),
        transports: passkey.transports as never,
      },
    });
    return result.verified ? result.authenticationInfo.newCounter : undefined;
  } catch {
    return undefined;
  }
}
