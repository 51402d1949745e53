/**
 * Passkeys (WebAuthn, https://www.w3.org/TR/webauthn-3/) through `@simplewebauthn/browser`
 * (https://simplewebauthn.dev/docs/packages/browser): the server's options go to the browser's
 * authenticator as they are, and what it answers goes back as the contract's `credential`.
 */
import { startAuthentication, startRegistration, WebAuthnError } from '@simplewebauthn/browser';
import { ApiError, api, ok, type Schemas } from './api.ts';

type Options = Schemas['WebAuthnOptions'];
type Credential = Schemas['WebAuthnCredential'];

/**
 * Turns the browser's refusal (the person cancelled, no passkey on this device, a timeout) into
 * an {@link ApiError} shown at `pointer`, so that forms show it at their field.
 */
function refusal(error: unknown, pointer: string): unknown {
  if (error instanceof WebAuthnError || (error instanceof Error && error.name === 'NotAllowedError'))
    return new ApiError(400, [
      { detail: 'The passkey was not used (cancelled, timed out or none on this device). Try again, or use another way below.', source: { pointer } },
    ]);
  return error;
}

/** Asks the authenticator to sign the server's challenge (`navigator.credentials.get`). @throws ApiError at `pointer` when the person does not. */
export async function authenticate(publicKey: Options, pointer = '/credential'): Promise<Credential> {
  try {
    return (await startAuthentication({ optionsJSON: publicKey as never })) as unknown as Credential;
  } catch (error) {
    throw refusal(error, pointer);
  }
}

/** Asks the authenticator to create a passkey for the server's registration options (`navigator.credentials.create`). @throws ApiError at `pointer` when it does not. */
export async function register(publicKey: Options, pointer = '/credential'): Promise<Credential> {
  try {
    return (await startRegistration({ optionsJSON: publicKey as never })) as unknown as Credential;
  } catch (error) {
    throw refusal(error, pointer);
  }
}

/** Signs in with a passkey: createPasskeySignInOptions, the authenticator, signInWithPasskey. @returns The new session. */
export async function signInWithPasskey(): Promise<Schemas['SessionDocument']> {
  const options = await ok(api.POST('/api/v1/sign-in/passkey-options'));
  const credential = await authenticate(options.data.attributes.publicKey);
  return ok(api.POST('/api/v1/sign-in/passkey', { body: { challengeId: options.data.id, credential } }));
}

/** Adds a passkey named `name` to the signed-in person: createPasskeyRegistrationOptions, the authenticator, registerPasskey. */
export async function addPasskey(name: string): Promise<void> {
  const options = await ok(api.POST('/api/v1/me/passkey-options'));
  const credential = await register(options.data.attributes.publicKey);
  await ok(api.POST('/api/v1/me/passkeys', { body: { challengeId: options.data.id, name, credential } }));
}

/** A default name of a new passkey: the device's platform, e.g. "Passkey on Linux". */
export function defaultPasskeyName(): string {
  const platform = (navigator as Navigator & { userAgentData?: { platform?: string } }).userAgentData?.platform || navigator.platform || 'this device';
  return `Passkey on ${platform}`.slice(0, 100);
}
