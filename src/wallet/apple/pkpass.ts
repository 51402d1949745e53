/**
 * The `.pkpass` file: a zip of the pass's files plus `manifest.json` — every other file's path
 * mapped to the lowercase hex SHA-1 of its bytes — and `signature`, the detached CMS signature
 * of the manifest (src/wallet/apple/passSigner.ts). Apple, "Building a Pass"
 * (https://developer.apple.com/documentation/walletpasses/building-a-pass) and the PassKit
 * Package Format Reference. Served as `application/vnd.apple.pkpass`.
 *
 * Zipped with fflate (https://github.com/101arrowz/fflate), files stored without compression: the
 * images are PNG already, the JSON is small, and storing keeps building well under a
 * millisecond.
 *
 * @module wallet/apple/pkpass
 */
import { createHash } from 'node:crypto';
import { zipSync, type Zippable } from 'fflate';
import type { PassSigner } from './passSigner.ts';

/** The media type of a signed pass (IANA registration `application/vnd.apple.pkpass`). */
export const PKPASS_MEDIA_TYPE = 'application/vnd.apple.pkpass';

/** A fixed modification time for every zip entry, so that the same files give the same bytes. */
const ENTRY_TIME = new Date('2000-01-01T00:00:00Z');

/**
 * Builds a signed pass.
 * @param files Bundle paths (`pass.json`, `icon@2x.png`, `de.lproj/pass.strings`, …) and their
 *   bytes; must not contain `manifest.json` or `signature`.
 * @param signer The signer of the pass type's credentials.
 * @param signingTime The signing-time attribute of the signature.
 * @returns The `.pkpass` bytes.
 * @throws Error when `files` holds `manifest.json` or `signature`.
 */
export function buildPkpass(files: ReadonlyMap<string, Uint8Array>, signer: PassSigner, signingTime: Date): Uint8Array {
  const manifest: Record<string, string> = {};
  const zippable: Zippable = {};
  for (const [path, bytes] of files) {
    if (path === 'manifest.json' || path === 'signature') throw new Error(`${path} is made by buildPkpass and cannot be given.`);
    manifest[path] = createHash('sha1').update(bytes).digest('hex');
    zippable[path] = [bytes, { level: 0, mtime: ENTRY_TIME }];
  }
  const manifestBytes = Buffer.from(JSON.stringify(manifest), 'utf8');
  zippable['manifest.json'] = [manifestBytes, { level: 0, mtime: ENTRY_TIME }];
  zippable.signature = [signer.sign(manifestBytes, signingTime), { level: 0, mtime: ENTRY_TIME }];
  return zipSync(zippable);
}

/**
 * A `pass.strings` file: one `"key" = "value";` line per entry, quotes, backslashes and line
 * breaks escaped as in Apple's strings file format
 * (https://developer.apple.com/documentation/walletpasses/creating-the-source-for-a-pass,
 * "Localizing a pass"). Written as UTF-8 without a byte-order mark, which Wallet reads (Apple's
 * own `.strings` tooling accepts UTF-8 and UTF-16); the encoding is this one function.
 */
export function passStrings(entries: Record<string, string>): Uint8Array {
  const escapeString = (text: string) => text.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n').replace(/\r/g, '\\r');
  const lines = Object.entries(entries).map(([key, value]) => `"${escapeString(key)}" = "${escapeString(value)}";`);
  return Buffer.from(`${lines.join('\n')}\n`, 'utf8');
}
