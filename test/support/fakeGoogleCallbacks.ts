/**
 * A stand-in for Google's side of Wallet save and delete callbacks (Google, "Add and delete
 * callbacks", https://developers.google.com/wallet/generic/use-cases/use-callbacks-for-saves-and-deletions),
 * for tests: it makes a root EC P-256 key pair, serves the root key list over plain HTTP on
 * 127.0.0.1 (or where `listen` says) as `https://pay.google.com/gp/m/issuer/keys` does (`{ keys: [{ keyValue,
 * protocolVersion: "ECv2SigningOnly", keyExpiration }] }`, `Cache-Control: max-age`), and signs
 * callback bodies exactly as Google's `ECv2SigningOnly` sender does
 * (https://developers.google.com/pay/api/web/guides/resources/payment-data-cryptography; Tink's
 * PaymentMethodTokenSender): a fresh intermediate key signed by the root key over
 * `lengthPrefixed("GooglePayPasses", "ECv2SigningOnly", signedKey)`, the message signed by the
 * intermediate key over `lengthPrefixed("GooglePayPasses", recipientId, "ECv2SigningOnly",
 * signedMessage)`, ECDSA SHA-256 in DER, base64.
 *
 * It does not reuse the service's code: `lengthPrefixed` is written again here, so a mistake in
 * one is not hidden by the other. Knobs make the bad callbacks an attacker or a broken clock
 * would: an expired intermediate key, another recipient, a message changed after signing, an
 * expired message, an intermediate key signed by a root key Google does not list. `rotateRootKey`
 * replaces the listed root key; `failKeys` answers the next key list requests with 500.
 */
import { generateKeyPairSync, randomUUID, sign, type KeyObject } from 'node:crypto';
import type { RequestListener } from 'node:http';
import { listenWith, type ListenOptions } from './listen.ts';

const SENDER_ID = 'GooglePayPasses';
const PROTOCOL = 'ECv2SigningOnly';
const YEAR_MS = 365 * 24 * 3600 * 1000;

/** What to sign. */
export interface CallbackOptions {
  issuerId: string;
  /** `<issuerId>.<suffix>`. */
  classId: string;
  objectId: string;
  eventType: 'save' | 'del';
  /** Default: a new UUID. */
  nonce?: string;
  /** Default: an hour from the fake's now. */
  expTimeMillis?: number;
  /** The recipient id signed for (default `issuerId`). */
  recipientId?: string;
  /** Intermediate key expiry (default: a day from the fake's now). */
  intermediateKeyExpiration?: number;
  /** Change the message after signing it (`eventType` flipped). */
  tamper?: boolean;
  /** Sign the intermediate key with a root key that is not in the list. */
  unknownRootKey?: boolean;
}

/** A callback body as Google POSTs it. */
export interface SignedCallback {
  signature: string;
  intermediateSigningKey: { signedKey: string; signatures: string[] };
  protocolVersion: string;
  signedMessage: string;
}

export interface FakeGoogleCallbacks {
  /** The key list (`GOOGLE_WALLET_CALLBACK_KEYS_URL`). */
  keysUrl: string;
  /** Requests for the key list so far. */
  keyRequests: number;
  /** Signs a callback as Google does. */
  callback(options: CallbackOptions): SignedCallback;
  /** A new root key replaces the listed one (callbacks are signed with the new one). */
  rotateRootKey(): void;
  /** Answers the next `count` key list requests with 500. */
  failKeys(count: number): void;
  close(): Promise<void>;
}

/** Tink's `toLengthValue`: each chunk's UTF-8 length, 4 bytes little-endian, then its bytes. */
function toLengthValue(...chunks: string[]): Buffer {
  const parts: Buffer[] = [];
  for (const chunk of chunks) {
    const bytes = Buffer.from(chunk, 'utf8');
    const length = Buffer.alloc(4);
    length.writeInt32LE(bytes.length, 0);
    parts.push(length, bytes);
  }
  return Buffer.concat(parts);
}

const ecKeyPair = () => generateKeyPairSync('ec', { namedCurve: 'P-256' });
const spkiBase64 = (key: KeyObject) => key.export({ format: 'der', type: 'spki' }).toString('base64');
const derSignature = (key: KeyObject, data: Buffer) => sign('sha256', data, { key, dsaEncoding: 'der' }).toString('base64');

/**
 * Starts the stand-in.
 * @param options.now The time keys and messages are made at (ms; default `Date.now`), so a test clock moves both.
 * @param options.maxAgeSeconds `Cache-Control: max-age` of the key list (default 3600).
 * @param options.listen Where it listens (default: HTTP on 127.0.0.1, a free port).
 */
export async function startFakeGoogleCallbacks(
  options: { now?: () => number; maxAgeSeconds?: number; listen?: ListenOptions } = {},
): Promise<FakeGoogleCallbacks> {
  const now = options.now ?? Date.now;
  let root = ecKeyPair();
  let rootExpiration = now() + YEAR_MS;
  let failing = 0;
  const state = { keyRequests: 0 };

  const handler: RequestListener = (req, res) => {
    state.keyRequests += 1;
    if (req.url !== '/gp/m/issuer/keys') return res.writeHead(404).end();
    if (failing > 0) {
      failing -= 1;
      return res.writeHead(500, { 'Content-Type': 'text/plain' }).end('Internal error');
    }
    const body = { keys: [{ keyValue: spkiBase64(root.publicKey), protocolVersion: PROTOCOL, keyExpiration: String(rootExpiration) }] };
    res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': `public, max-age=${options.maxAgeSeconds ?? 3600}` }).end(JSON.stringify(body));
  };
  const listening = await listenWith(handler, options.listen);

  return {
    keysUrl: `${listening.scheme}://${options.listen?.addresses?.[0] ?? '127.0.0.1'}:${listening.port}/gp/m/issuer/keys`,
    get keyRequests() {
      return state.keyRequests;
    },
    callback(o) {
      const intermediate = ecKeyPair();
      const signedKey = JSON.stringify({
        keyValue: spkiBase64(intermediate.publicKey),
        keyExpiration: String(o.intermediateKeyExpiration ?? now() + 24 * 3600 * 1000),
      });
      const rootPrivate = o.unknownRootKey ? ecKeyPair().privateKey : root.privateKey;
      const keySignature = derSignature(rootPrivate, toLengthValue(SENDER_ID, PROTOCOL, signedKey));
      const message = {
        classId: o.classId,
        objectId: o.objectId,
        expTimeMillis: o.expTimeMillis ?? now() + 3600 * 1000,
        eventType: o.eventType,
        nonce: o.nonce ?? randomUUID(),
      };
      const signedMessage = JSON.stringify(message);
      const signature = derSignature(intermediate.privateKey, toLengthValue(SENDER_ID, o.recipientId ?? o.issuerId, PROTOCOL, signedMessage));
      const sent = o.tamper ? JSON.stringify({ ...message, eventType: message.eventType === 'save' ? 'del' : 'save' }) : signedMessage;
      return { signature, intermediateSigningKey: { signedKey, signatures: [keySignature] }, protocolVersion: PROTOCOL, signedMessage: sent };
    },
    rotateRootKey() {
      root = ecKeyPair();
      rootExpiration = now() + YEAR_MS;
    },
    failKeys(count) {
      failing = count;
    },
    close: () => listening.close(),
  };
}
