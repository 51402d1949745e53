/**
 * Verification of Google Wallet's save and delete callbacks (Google, "Add and delete callbacks",
 * https://developers.google.com/wallet/generic/use-cases/use-callbacks-for-saves-and-deletions).
 * Google signs them with the `ECv2SigningOnly` protocol of its payment method tokens, which it
 * verifies with Tink's `PaymentMethodTokenRecipient` (sender id `GooglePayPasses`, recipient id
 * the issuer id, root keys from `https://pay.google.com/gp/m/issuer/keys`). The steps are those of
 * Google's "Payment data cryptography for merchants"
 * (https://developers.google.com/pay/api/web/guides/resources/payment-data-cryptography,
 * "Signature verification") and of Tink's `PaymentMethodTokenRecipient.unsealECV2SigningOnly`
 * (https://github.com/tink-crypto/tink, apps/paymentmethodtoken), done here with node:crypto:
 *
 * 1. one of `intermediateSigningKey.signatures` (base64 DER ECDSA P-256 / SHA-256) verifies with
 *    a root key of protocol `ECv2SigningOnly` that has not expired, over
 *    `lengthPrefixed("GooglePayPasses", "ECv2SigningOnly", signedKey)`;
 * 2. `signedKey` is JSON `{ keyValue, keyExpiration }` (base64 DER SubjectPublicKeyInfo; ms as a
 *    string) and has not expired;
 * 3. `signature` verifies with that intermediate key over
 *    `lengthPrefixed("GooglePayPasses", recipientId, "ECv2SigningOnly", signedMessage)`;
 * 4. the message's `expTimeMillis` is in the future.
 *
 * `lengthPrefixed` is Tink's `PaymentMethodTokenUtil.toLengthValue`: each chunk as its UTF-8
 * byte length in 4 bytes little-endian, then the bytes. Pure: root keys and time are given.
 *
 * @module wallet/google/callbackSignature
 */
import { createPublicKey, verify, type KeyObject } from 'node:crypto';
import { UnprocessableError, ValidationError } from '../../errors.ts';

/** Tink's sender id of Google Wallet callbacks. */
export const GOOGLE_CALLBACK_SENDER_ID = 'GooglePayPasses';
/** The protocol of Google Wallet callbacks. */
export const GOOGLE_CALLBACK_PROTOCOL = 'ECv2SigningOnly';

/** A callback body as Google POSTs it (the contract's GoogleWalletCallback). */
export interface GoogleCallbackBody {
  protocolVersion: string;
  signature: string;
  intermediateSigningKey: { signedKey: string; signatures: string[] };
  signedMessage: string;
}

/** The signed message of a callback (Google, "Add and delete callbacks", expected message format). */
export interface GoogleCallbackMessage {
  classId: string;
  objectId: string;
  /** When the message expires, in ms since the epoch. */
  expTimeMillis: number;
  eventType: 'save' | 'del';
  nonce: string;
  /** The issuer id: the prefix of `objectId` and `classId` (`<issuerId>.<suffix>`), the recipient id of the signature. */
  issuerId: string;
}

/** A root signing key of Google's key list, usable until `expiresAt` (ms since the epoch). */
export interface GoogleRootKey {
  key: KeyObject;
  expiresAt: number;
}

/**
 * Tink's `toLengthValue`: each chunk's UTF-8 byte length as 4 bytes little-endian, then its bytes.
 * @returns The concatenation, the bytes that are signed.
 */
export function lengthPrefixed(...chunks: string[]): Buffer {
  return Buffer.concat(
    chunks.flatMap((chunk) => {
      const bytes = Buffer.from(chunk, 'utf8');
      const length = Buffer.alloc(4);
      length.writeUInt32LE(bytes.length);
      return [length, bytes];
    }),
  );
}

/**
 * An EC P-256 public key from base64 DER SubjectPublicKeyInfo (the form of `keyValue`).
 * @returns null when the text is not such a key.
 */
export function ecPublicKeyOf(base64Der: string): KeyObject | null {
  try {
    const key = createPublicKey({ key: Buffer.from(base64Der, 'base64'), format: 'der', type: 'spki' });
    return key.asymmetricKeyType === 'ec' && key.asymmetricKeyDetails?.namedCurve === 'prime256v1' ? key : null;
  } catch {
    return null;
  }
}

/** Whether a base64 DER ECDSA signature verifies with `key` over `data` (SHA-256). */
function verifies(key: KeyObject, data: Buffer, base64Signature: string): boolean {
  try {
    return verify('sha256', data, { key, dsaEncoding: 'der' }, Buffer.from(base64Signature, 'base64'));
  } catch {
    return false;
  }
}

const SIGNED_MESSAGE = { pointer: '/signedMessage' };

/** A Google id `<issuerId>.<suffix>`: the issuer id (digits) and the suffix. */
const GOOGLE_ID = /^(\d{1,32})\.([\w.-]{1,200})$/;

/**
 * Reads the signed message of a callback (before its signature is checked: the recipient id the
 * signature covers is the issuer id the message names).
 * @throws ValidationError (400, `source.pointer` `/signedMessage`) when it is not JSON with
 *   `classId` and `objectId` of one issuer, `eventType` `save` or `del`, a `nonce` and a numeric
 *   `expTimeMillis`.
 */
export function parseCallbackMessage(signedMessage: string): GoogleCallbackMessage {
  let parsed: unknown;
  try {
    parsed = JSON.parse(signedMessage);
  } catch {
    throw new ValidationError({ detail: 'signedMessage must be a JSON object as text.', source: SIGNED_MESSAGE });
  }
  const m = (parsed && typeof parsed === 'object' ? parsed : {}) as Record<string, unknown>;
  const problems: string[] = [];
  const objectId = typeof m.objectId === 'string' ? GOOGLE_ID.exec(m.objectId) : null;
  const classId = typeof m.classId === 'string' ? GOOGLE_ID.exec(m.classId) : null;
  if (!objectId) problems.push('objectId must be "<issuerId>.<suffix>"');
  if (!classId) problems.push('classId must be "<issuerId>.<suffix>"');
  if (objectId && classId && objectId[1] !== classId[1]) problems.push('classId and objectId must have the same issuer id');
  if (m.eventType !== 'save' && m.eventType !== 'del') problems.push('eventType must be "save" or "del"');
  if (typeof m.nonce !== 'string' || m.nonce.length === 0 || m.nonce.length > 255) problems.push('nonce must be text of 1 to 255 characters');
  const expTimeMillis =
    typeof m.expTimeMillis === 'number'
      ? m.expTimeMillis
      : typeof m.expTimeMillis === 'string' && /^\d{1,16}$/.test(m.expTimeMillis)
        ? Number(m.expTimeMillis)
        : NaN;
  if (!Number.isSafeInteger(expTimeMillis)) problems.push('expTimeMillis must be a time in milliseconds');
  if (problems.length)
    throw new ValidationError({ detail: `signedMessage is not a Google Wallet callback message: ${problems.join('; ')}.`, source: SIGNED_MESSAGE });
  return {
    classId: m.classId as string,
    objectId: m.objectId as string,
    expTimeMillis,
    eventType: m.eventType as 'save' | 'del',
    nonce: m.nonce as string,
    issuerId: objectId![1]!,
  };
}

/** Thrown when no root key verifies the intermediate signing key: the caller may fetch the key list again and retry. */
export class UnknownRootKeyError extends UnprocessableError {
  override name = 'UnknownRootKeyError';
  constructor() {
    super('callback_signature_invalid', 'No current Google root signing key verifies intermediateSigningKey.signatures.', {
      pointer: '/intermediateSigningKey/signatures',
    });
  }
}

/**
 * Steps 1 and 2: the intermediate signing key, verified by a root key and not expired.
 * @param rootKeys Google's root keys of protocol `ECv2SigningOnly`; expired ones are skipped.
 * @param now ms since the epoch.
 * @throws UnknownRootKeyError (422 `callback_signature_invalid`) when no current root key verifies it;
 *   UnprocessableError (422) `callback_key_invalid` when the signed key is not `{ keyValue, keyExpiration }`
 *   with an EC P-256 key, `callback_key_expired` when it has expired.
 */
export function verifyIntermediateKey(body: GoogleCallbackBody, rootKeys: GoogleRootKey[], now: number): KeyObject {
  const { signedKey, signatures } = body.intermediateSigningKey;
  const signed = lengthPrefixed(GOOGLE_CALLBACK_SENDER_ID, GOOGLE_CALLBACK_PROTOCOL, signedKey);
  const current = rootKeys.filter((root) => root.expiresAt > now);
  if (!current.some((root) => signatures.some((signature) => verifies(root.key, signed, signature)))) throw new UnknownRootKeyError();
  const source = { pointer: '/intermediateSigningKey/signedKey' };
  let parsed: { keyValue?: unknown; keyExpiration?: unknown } = {};
  try {
    parsed = JSON.parse(signedKey) as typeof parsed;
  } catch {
    // Reported below.
  }
  const key = typeof parsed?.keyValue === 'string' ? ecPublicKeyOf(parsed.keyValue) : null;
  const expiration = typeof parsed?.keyExpiration === 'string' && /^\d{1,16}$/.test(parsed.keyExpiration) ? Number(parsed.keyExpiration) : NaN;
  if (!key || Number.isNaN(expiration)) {
    throw new UnprocessableError(
      'callback_key_invalid',
      'intermediateSigningKey.signedKey must be JSON with an EC P-256 keyValue and a keyExpiration in ms.',
      source,
    );
  }
  if (expiration <= now) {
    throw new UnprocessableError('callback_key_expired', `The intermediate signing key expired at ${new Date(expiration).toISOString()}.`, source);
  }
  return key;
}

/**
 * Steps 3 and 4: the message's signature with the intermediate key, for this recipient, and its expiry.
 * @param recipientId The issuer id the message must be meant for.
 * @throws UnprocessableError (422) `callback_signature_invalid` when the signature does not verify
 *   (a changed message, another recipient, another key); `callback_message_expired` after `expTimeMillis`.
 */
export function verifySignedMessage(
  body: GoogleCallbackBody,
  intermediateKey: KeyObject,
  recipientId: string,
  message: Pick<GoogleCallbackMessage, 'expTimeMillis'>,
  now: number,
): void {
  const signed = lengthPrefixed(GOOGLE_CALLBACK_SENDER_ID, recipientId, GOOGLE_CALLBACK_PROTOCOL, body.signedMessage);
  if (!verifies(intermediateKey, signed, body.signature)) {
    throw new UnprocessableError('callback_signature_invalid', `signature does not verify for issuer ${recipientId} with the intermediate signing key.`, {
      pointer: '/signature',
    });
  }
  if (message.expTimeMillis <= now) {
    throw new UnprocessableError('callback_message_expired', `The message expired at ${new Date(message.expTimeMillis).toISOString()}.`, SIGNED_MESSAGE);
  }
}
