/**
 * Opens a `.pkpass` the way a reviewer would: unzips it (fflate), checks every hash of
 * `manifest.json`, verifies `signature` with `openssl cms -verify` against a CA file (the test
 * chain's root; `-purpose any` because the leaf's extended key usage is Apple's), reads the
 * signer's subject UID and OU and the signed attributes, and parses `pass.json`, the images' PNG
 * sizes and the `pass.strings` files.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { unzipSync } from 'fflate';

const run = promisify(execFile);

/** What a pass file holds, checked. */
export interface InspectedPass {
  files: string[];
  passJson: Record<string, unknown>;
  manifest: Record<string, string>;
  /** Files whose SHA-1 differs from the manifest, and files the manifest misses or lists extra. */
  manifestMismatches: string[];
  /** `openssl cms -verify` said "Verification successful". */
  signatureVerified: boolean;
  /** The signer certificate's subject UID and OU (from the signature's certificates). */
  signer: { uid: string | undefined; ou: string | undefined };
  /** Certificates in the signature (subjects, one line each). */
  certificateSubjects: string[];
  /** The signature's signingTime attribute is present. */
  hasSigningTime: boolean;
  /** Width × height of every PNG. */
  imageSizes: Record<string, [number, number]>;
  /** `pass.strings` per language (`de` → key → value). */
  strings: Record<string, Record<string, string>>;
}

/** Width and height of a PNG from its IHDR chunk (PNG specification, §11.2.2). */
function pngSize(bytes: Uint8Array): [number, number] {
  const view = Buffer.from(bytes);
  return [view.readUInt32BE(16), view.readUInt32BE(20)];
}

/** Parses `"key" = "value";` lines (Apple strings files) with `\"`, `\\` and `\n` escapes. */
function parseStrings(text: string): Record<string, string> {
  const unescapeString = (s: string) => s.replace(/\\(["\\n])/g, (_, c: string) => (c === 'n' ? '\n' : c));
  const entries: Record<string, string> = {};
  for (const match of text.matchAll(/"((?:[^"\\]|\\.)*)"\s*=\s*"((?:[^"\\]|\\.)*)";/g)) entries[unescapeString(match[1]!)] = unescapeString(match[2]!);
  return entries;
}

/**
 * Inspects a pass file.
 * @param caPem The root certificate the signature must chain to.
 */
export async function inspectPkpass(bytes: Uint8Array, caPem: string): Promise<InspectedPass> {
  const entries = unzipSync(bytes);
  const files = Object.keys(entries).sort();
  const manifest = JSON.parse(Buffer.from(entries['manifest.json']!).toString('utf8')) as Record<string, string>;
  const hashed = files.filter((f) => f !== 'manifest.json' && f !== 'signature');
  const manifestMismatches = [
    ...hashed.filter((f) => manifest[f] !== createHash('sha1').update(entries[f]!).digest('hex')),
    ...Object.keys(manifest).filter((f) => !hashed.includes(f)),
  ];
  const dir = await mkdtemp(join(tmpdir(), 'pkpass-'));
  try {
    await writeFile(join(dir, 'manifest.json'), entries['manifest.json']!);
    await writeFile(join(dir, 'signature'), entries.signature!);
    await writeFile(join(dir, 'ca.pem'), caPem);
    const verified = await run('openssl', [
      'cms',
      '-verify',
      '-binary',
      '-inform',
      'DER',
      '-in',
      join(dir, 'signature'),
      '-content',
      join(dir, 'manifest.json'),
      '-CAfile',
      join(dir, 'ca.pem'),
      '-purpose',
      'any',
      '-out',
      '/dev/null',
    ])
      .then(({ stderr }) => /Verification successful/.test(stderr))
      .catch(() => false);
    const { stdout: certs } = await run('openssl', ['pkcs7', '-inform', 'DER', '-in', join(dir, 'signature'), '-print_certs', '-noout']);
    const { stdout: printed } = await run('openssl', ['cms', '-cmsout', '-print', '-inform', 'DER', '-in', join(dir, 'signature')]);
    const certificateSubjects = certs
      .split('\n')
      .filter((l) => l.startsWith('subject='))
      .map((l) => l.slice('subject='.length).trim());
    const signerSubject = certificateSubjects.find((s) => /UID\s*=/.test(s)) ?? '';
    const field = (name: string) => new RegExp(`(?:^|,\\s*)${name}\\s*=\\s*([^,]+)`).exec(signerSubject)?.[1]?.trim();
    const strings: Record<string, Record<string, string>> = {};
    for (const file of files.filter((f) => f.endsWith('.lproj/pass.strings')))
      strings[file.split('.lproj')[0]!] = parseStrings(Buffer.from(entries[file]!).toString('utf8'));
    return {
      files,
      passJson: JSON.parse(Buffer.from(entries['pass.json']!).toString('utf8')) as Record<string, unknown>,
      manifest,
      manifestMismatches,
      signatureVerified: verified,
      signer: { uid: field('UID'), ou: field('OU') },
      certificateSubjects,
      hasSigningTime: /signingTime/.test(printed),
      imageSizes: Object.fromEntries(files.filter((f) => f.endsWith('.png')).map((f) => [f, pngSize(entries[f]!)])),
      strings,
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
