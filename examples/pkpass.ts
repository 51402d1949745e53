/**
 * Opening and checking an Apple Wallet pass file (`.pkpass`) the way Wallet does before it accepts
 * one, with no tool beyond Node, fflate and pkijs (so that the example, and anything else, can use
 * it without the test set-up):
 *
 * - the file is a zip; `manifest.json` maps every other file to its SHA-1 (hex), and no file may
 *   be missing from it or extra in it;
 * - `signature` is a detached CMS (PKCS #7) SignedData over the bytes of `manifest.json`, whose
 *   signer chains to a given root certificate; its subject UID is the pass type identifier
 *   (Apple, "Building a pass",
 *   https://developer.apple.com/documentation/walletpasses/building-a-pass, and "Creating the
 *   source for a pass", https://developer.apple.com/documentation/walletpasses/creating-the-source-for-a-pass).
 *
 * @module examples/pkpass
 */
import { createHash, webcrypto, X509Certificate } from 'node:crypto';
import { unzipSync } from 'fflate';
import * as pkijs from 'pkijs';

/** A pass file, opened and checked. */
export interface CheckedPkpass {
  /** Every file of the zip, by path (`pass.json`, `icon.png`, `de.lproj/pass.strings`, …). */
  files: Record<string, Uint8Array>;
  /** `pass.json`, parsed. */
  passJson: PassJson;
  /** Files whose SHA-1 differs from `manifest.json`, and files it misses or lists extra; empty when it is right. */
  manifestMismatches: string[];
  /** The signature verifies over `manifest.json` and its signer chains to the root given. */
  signatureVerified: boolean;
  /** The signer certificate's subject UID (the pass type identifier it may sign), when there is one. */
  signerUid: string | undefined;
}

/** The members of `pass.json` a device needs to keep a pass up to date, and the rest as it is. */
export interface PassJson extends Record<string, unknown> {
  serialNumber: string;
  passTypeIdentifier: string;
  /** Present on passes that a web service updates. */
  authenticationToken?: string;
  webServiceURL?: string;
}

/** Reads `pass.json` from `.pkpass` bytes. */
export function passJsonOf(bytes: Uint8Array): PassJson {
  return parsePassJson(unzipSync(bytes));
}

function parsePassJson(files: Record<string, Uint8Array>): PassJson {
  const raw = files['pass.json'];
  if (!raw) throw new Error('The pass file has no pass.json.');
  return JSON.parse(Buffer.from(raw).toString('utf8')) as PassJson;
}

/**
 * The value of a field of `pass.json` by its key, in any field area (`headerFields`,
 * `primaryFields`, `secondaryFields`, `auxiliaryFields`, `backFields`) of the pass's style.
 */
export function passFieldValue(passJson: PassJson, key: string): unknown {
  for (const style of ['boardingPass', 'coupon', 'eventTicket', 'generic', 'storeCard']) {
    const areas = passJson[style] as Record<string, { key: string; value: unknown }[] | unknown> | undefined;
    if (!areas) continue;
    for (const fields of Object.values(areas)) {
      if (!Array.isArray(fields)) continue;
      const field = (fields as { key: string; value: unknown }[]).find((f) => f.key === key);
      if (field) return field.value;
    }
  }
  return undefined;
}

/**
 * Opens a pass file and checks its manifest and signature.
 * @param rootPem The root certificate (PEM) the signer must chain to.
 * @throws Error when the bytes are not a zip or lack `pass.json`, `manifest.json` or `signature`.
 */
export async function checkPkpass(bytes: Uint8Array, rootPem: string): Promise<CheckedPkpass> {
  const files = unzipSync(bytes);
  const manifestBytes = files['manifest.json'];
  const signature = files.signature;
  if (!manifestBytes || !signature) throw new Error('The pass file has no manifest.json or no signature.');
  const manifest = JSON.parse(Buffer.from(manifestBytes).toString('utf8')) as Record<string, string>;
  const hashed = Object.keys(files).filter((file) => file !== 'manifest.json' && file !== 'signature');
  const manifestMismatches = [
    ...hashed.filter((file) => manifest[file] !== createHash('sha1').update(files[file]!).digest('hex')),
    ...Object.keys(manifest).filter((file) => !hashed.includes(file)),
  ];
  const { verified, signerUid } = await verifySignature(signature, manifestBytes, rootPem);
  return { files, passJson: parsePassJson(files), manifestMismatches, signatureVerified: verified, signerUid };
}

const toArrayBuffer = (bytes: Uint8Array) => bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;

/**
 * Verifies a detached CMS signature over `content`, and that the signer chains to the root
 * (pkijs with Node's WebCrypto); reads the signer certificate's subject UID.
 */
async function verifySignature(signature: Uint8Array, content: Uint8Array, rootPem: string): Promise<{ verified: boolean; signerUid: string | undefined }> {
  pkijs.setEngine('node', new pkijs.CryptoEngine({ name: 'node', crypto: webcrypto as never }));
  const root = pkijs.Certificate.fromBER(toArrayBuffer(Buffer.from(rootPem.replace(/-----[^-]+-----|\s/g, ''), 'base64')));
  let signedData: pkijs.SignedData;
  try {
    signedData = new pkijs.SignedData({ schema: pkijs.ContentInfo.fromBER(toArrayBuffer(signature)).content });
  } catch {
    return { verified: false, signerUid: undefined };
  }
  const sid = signedData.signerInfos[0]?.sid;
  const signer = signedData.certificates?.find(
    (cert): cert is pkijs.Certificate =>
      cert instanceof pkijs.Certificate && sid instanceof pkijs.IssuerAndSerialNumber && cert.serialNumber.isEqual(sid.serialNumber),
  );
  const subject = signer ? new X509Certificate(Buffer.from(signer.toSchema().toBER())).subject : '';
  const signerUid = /^UID=(.*)$/m.exec(subject)?.[1];
  try {
    const verified = await signedData.verify({ signer: 0, data: toArrayBuffer(content), trustedCerts: [root], checkChain: true });
    return { verified, signerUid };
  } catch {
    return { verified: false, signerUid };
  }
}
