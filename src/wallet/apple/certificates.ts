/**
 * Checks an account's Apple Wallet issuer credentials when they are uploaded, so that a pass is
 * never signed with credentials Wallet would refuse. What iOS checks on a pass's signer (Apple's
 * open-source `Security` framework, `libsecurity_apple_x509_tp/lib/tpPolicies.cpp`,
 * `tp_verifyPassbookSigningOpts`): the leaf carries the Pass Type ID marker extension
 * 1.2.840.113635.100.6.1.16 and the extended key usage 1.2.840.113635.100.4.14, its subject UID
 * is the pass type identifier and its OU the team identifier, and it chains to Apple's WWDR
 * intermediate ("Worldwide Developer Relations - G4",
 * https://www.apple.com/certificateauthority/). Certificates are X.509 (RFC 5280) in PEM
 * (RFC 7468), or PKCS#12 (RFC 7292) as Keychain Access exports them.
 *
 * Parsing uses Node's `X509Certificate` and `createPrivateKey`, pkijs for the extensions Node
 * does not expose, and node-forge for PKCS#12.
 *
 * @module wallet/apple/certificates
 */
import { createPrivateKey, X509Certificate, type KeyObject } from 'node:crypto';
import forge from 'node-forge';
import * as pkijs from 'pkijs';

/** SHA-256 fingerprint of Apple's WWDR G4 intermediate (valid 2020-12-16 to 2030-12-10). */
export const APPLE_WWDR_G4_SHA256 = 'ea4757885538dd8cb59ff4556f676087d83c85e70902c122e42c0808b5bce14c';
/** Apple's Pass Type ID marker extension. */
export const PASS_TYPE_MARKER_OID = '1.2.840.113635.100.6.1.16';
/** Apple's Pass Type ID extended key usage. */
export const PASS_TYPE_EKU_OID = '1.2.840.113635.100.4.14';
/** A certificate that expires within this many days is flagged (`expiresSoon`). */
export const EXPIRY_WARNING_DAYS = 30;

/** Which check refused the credentials. */
export type AppleCredentialProblem =
  | 'certificate_unreadable'
  | 'wrong_passphrase'
  | 'wrong_pass_type_identifier'
  | 'wrong_team_identifier'
  | 'not_pass_type_certificate'
  | 'unsupported_key'
  | 'key_mismatch'
  | 'chain_not_wwdr'
  | 'wwdr_not_apple_g4'
  | 'expired'
  | 'not_yet_valid';

/** The member of the upload a problem is in. */
export type AppleCredentialField = 'certificate' | 'privateKey' | 'privateKeyPassphrase' | 'p12' | 'p12Passphrase' | 'wwdrCertificate';

/** Credentials that cannot be used; `code` names the check, `field` the member at fault. */
export class AppleCredentialError extends Error {
  override name = 'AppleCredentialError';
  constructor(
    readonly code: AppleCredentialProblem,
    readonly field: AppleCredentialField,
    detail: string,
  ) {
    super(detail);
  }
}

/** What an upload gives. */
export interface AppleCredentialsInput {
  passTypeIdentifier: string;
  teamIdentifier: string;
  /** PEM; with `privateKey`, instead of `p12`. */
  certificate?: string;
  privateKey?: string;
  privateKeyPassphrase?: string;
  /** A PKCS#12 file (raw bytes); instead of `certificate` and `privateKey`. */
  p12?: Uint8Array;
  p12Passphrase?: string;
  wwdrCertificate: string;
  now: Date;
  /** Refuse a WWDR certificate that is not Apple's G4 (production). */
  requireAppleWwdr: boolean;
}

/** Credentials that passed every check, normalised for storage. */
export interface ValidatedAppleCredentials {
  certificatePem: string;
  /** Unencrypted PKCS#8 PEM: the caller seals it before storing. */
  privateKeyPem: string;
  wwdrCertificatePem: string;
  subject: { uid: string; ou: string; cn: string | null; o: string | null };
  /** Lowercase hex SHA-256 of the certificate (DER). */
  certificateSha256: string;
  wwdrSha256: string;
  wwdrIsAppleG4: boolean;
  notAfter: Date;
  /** True when the certificate expires within {@link EXPIRY_WARNING_DAYS} days of `now`. */
  expiresSoon: boolean;
}

const fingerprint = (certificate: X509Certificate) => certificate.fingerprint256.replace(/:/g, '').toLowerCase();

function readCertificate(pem: string, field: AppleCredentialField): X509Certificate {
  try {
    return new X509Certificate(pem);
  } catch {
    throw new AppleCredentialError(
      'certificate_unreadable',
      field,
      `The ${field === 'wwdrCertificate' ? 'WWDR certificate' : 'certificate'} is not an X.509 certificate in PEM.`,
    );
  }
}

/**
 * An encrypted PEM key: PKCS#8 `ENCRYPTED PRIVATE KEY` (RFC 7468 §11) or a legacy PKCS#1 key with
 * `Proc-Type: 4,ENCRYPTED` (RFC 1421 §4.6.1.1). Told from the text because Node does not say it
 * the same way everywhere: `ERR_MISSING_PASSPHRASE` in its documentation, but OpenSSL 3 builds
 * (Node 20) throw `ERR_OSSL_CRYPTO_INTERRUPTED_OR_CANCELLED` for such a key without a passphrase.
 */
const ENCRYPTED_PEM = /-----BEGIN ENCRYPTED PRIVATE KEY-----|^Proc-Type:\s*4,\s*ENCRYPTED/m;

function readPrivateKey(pem: string, passphrase: string | undefined): KeyObject {
  try {
    return createPrivateKey(passphrase === undefined ? pem : { key: pem, passphrase });
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === 'ERR_MISSING_PASSPHRASE' || (passphrase === undefined && ENCRYPTED_PEM.test(pem)))
      throw new AppleCredentialError('wrong_passphrase', 'privateKeyPassphrase', 'The private key is encrypted: give its privateKeyPassphrase.');
    if (passphrase !== undefined && /decrypt|bad password|passphrase/i.test(String((error as Error).message))) {
      throw new AppleCredentialError('wrong_passphrase', 'privateKeyPassphrase', 'The privateKeyPassphrase does not decrypt the private key.');
    }
    throw new AppleCredentialError('certificate_unreadable', 'privateKey', 'The private key is not a PEM private key.');
  }
}

/** The certificate and key of a PKCS#12 file, as PEM. */
function readP12(p12: Uint8Array, passphrase: string): { certificatePem: string; privateKeyPem: string } {
  let store: forge.pkcs12.Pkcs12Pfx;
  try {
    const asn1 = forge.asn1.fromDer(forge.util.createBuffer(Buffer.from(p12).toString('binary')));
    store = forge.pkcs12.pkcs12FromAsn1(asn1, passphrase);
  } catch (error) {
    if (/password|MAC could not be verified/i.test(String((error as Error).message))) {
      throw new AppleCredentialError('wrong_passphrase', 'p12Passphrase', 'The p12Passphrase does not open the .p12 file.');
    }
    throw new AppleCredentialError('certificate_unreadable', 'p12', 'The p12 member is not a PKCS#12 (.p12) file.');
  }
  const bags = (type: string): forge.pkcs12.Bag[] => store.getBags({ bagType: type })[type] ?? [];
  const certificates = bags(forge.pki.oids.certBag!);
  const keys = [...bags(forge.pki.oids.pkcs8ShroudedKeyBag!), ...bags(forge.pki.oids.keyBag!)];
  const key = keys.find((bag) => bag.key)?.key;
  if (!key)
    throw new AppleCredentialError('certificate_unreadable', 'p12', 'The .p12 file holds no private key; export the certificate together with its key.');
  const privateKeyPem = forge.pki.privateKeyToPem(key);
  // The leaf is the certificate whose public key is the key's; the file may hold others.
  const modulus = (key as forge.pki.rsa.PrivateKey).n;
  const leaf = certificates.map((bag) => bag.cert).find((cert) => (cert?.publicKey as forge.pki.rsa.PublicKey | undefined)?.n?.equals(modulus));
  const certificate = leaf ?? certificates[0]?.cert;
  if (!certificate) throw new AppleCredentialError('certificate_unreadable', 'p12', 'The .p12 file holds no certificate.');
  return { certificatePem: forge.pki.certificateToPem(certificate), privateKeyPem };
}

/** `UID=…\nCN=…` (Node's subject text) → attribute values by short name. */
function subjectOf(certificate: X509Certificate): Record<string, string> {
  const attributes: Record<string, string> = {};
  for (const line of certificate.subject.split('\n')) {
    const at = line.indexOf('=');
    if (at > 0) attributes[line.slice(0, at)] = line.slice(at + 1);
  }
  return attributes;
}

/** Whether the certificate has an extension of this OID (pkijs parses what Node does not expose). */
function hasExtension(certificate: X509Certificate, oid: string): boolean {
  const raw = certificate.raw;
  const parsed = pkijs.Certificate.fromBER(raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.byteLength) as ArrayBuffer);
  return (parsed.extensions ?? []).some((extension) => extension.extnID === oid);
}

/**
 * Checks uploaded credentials (see the module description for the rules).
 * @returns The normalised credentials and what was read from them.
 * @throws AppleCredentialError naming the first check that failed, in this order: readable
 *   (certificate, key or p12 and their passphrases), pass type identifier (UID), team (OU), Pass
 *   Type ID extensions, RSA key, key matches, issued by the WWDR certificate, Apple's WWDR G4 when
 *   required, valid now.
 */
export function validateAppleCredentials(input: AppleCredentialsInput): ValidatedAppleCredentials {
  let certificatePem: string;
  let key: KeyObject;
  if (input.p12) {
    const opened = readP12(input.p12, input.p12Passphrase ?? '');
    certificatePem = opened.certificatePem;
    key = readPrivateKey(opened.privateKeyPem, undefined);
  } else {
    if (!input.certificate || !input.privateKey)
      throw new AppleCredentialError('certificate_unreadable', input.certificate ? 'privateKey' : 'certificate', 'Give certificate and privateKey, or p12.');
    certificatePem = input.certificate;
    key = readPrivateKey(input.privateKey, input.privateKeyPassphrase);
  }
  const certificate = readCertificate(certificatePem, input.p12 ? 'p12' : 'certificate');
  const wwdr = readCertificate(input.wwdrCertificate, 'wwdrCertificate');
  const field: AppleCredentialField = input.p12 ? 'p12' : 'certificate';
  const subject = subjectOf(certificate);
  if (subject.UID !== input.passTypeIdentifier) {
    throw new AppleCredentialError(
      'wrong_pass_type_identifier',
      field,
      `The certificate is for ${subject.UID ?? 'no pass type'} (its subject UID), not ${input.passTypeIdentifier}.`,
    );
  }
  if (subject.OU !== input.teamIdentifier) {
    throw new AppleCredentialError(
      'wrong_team_identifier',
      field,
      `The certificate belongs to team ${subject.OU ?? '(none)'} (its subject OU), not ${input.teamIdentifier}.`,
    );
  }
  const usages = certificate.keyUsage ?? [];
  if (!usages.includes(PASS_TYPE_EKU_OID) || !hasExtension(certificate, PASS_TYPE_MARKER_OID)) {
    throw new AppleCredentialError(
      'not_pass_type_certificate',
      field,
      "The certificate is not a Pass Type ID certificate (it lacks Apple's Pass Type ID extended key usage or marker extension); create one under Certificates, Identifiers & Profiles → Pass Type IDs.",
    );
  }
  if (key.asymmetricKeyType !== 'rsa')
    throw new AppleCredentialError(
      'unsupported_key',
      input.p12 ? 'p12' : 'privateKey',
      `The private key is ${key.asymmetricKeyType}; Pass Type ID keys are RSA.`,
    );
  if (!certificate.checkPrivateKey(key))
    throw new AppleCredentialError('key_mismatch', input.p12 ? 'p12' : 'privateKey', 'The private key is not the key of the certificate.');
  if (!certificate.checkIssued(wwdr) || !certificate.verify(wwdr.publicKey)) {
    throw new AppleCredentialError(
      'chain_not_wwdr',
      'wwdrCertificate',
      `The certificate was not issued by this WWDR certificate (${wwdr.subject.replace(/\n/g, ', ')}); its issuer is ${certificate.issuer.replace(/\n/g, ', ')}.`,
    );
  }
  const wwdrSha256 = fingerprint(wwdr);
  const wwdrIsAppleG4 = wwdrSha256 === APPLE_WWDR_G4_SHA256;
  if (input.requireAppleWwdr && !wwdrIsAppleG4) {
    throw new AppleCredentialError(
      'wwdr_not_apple_g4',
      'wwdrCertificate',
      `The WWDR certificate (SHA-256 ${wwdrSha256}) is not Apple's WWDR G4 (SHA-256 ${APPLE_WWDR_G4_SHA256}); download "Worldwide Developer Relations - G4" from https://www.apple.com/certificateauthority/.`,
    );
  }
  const notBefore = new Date(certificate.validFrom);
  const notAfter = new Date(certificate.validTo);
  if (input.now < notBefore) throw new AppleCredentialError('not_yet_valid', field, `The certificate is valid from ${notBefore.toISOString()} only.`);
  if (input.now >= notAfter)
    throw new AppleCredentialError('expired', field, `The certificate expired on ${notAfter.toISOString()}; renew it in the Apple Developer account.`);
  return {
    certificatePem: certificate.toString(),
    privateKeyPem: key.export({ type: 'pkcs8', format: 'pem' }) as string,
    wwdrCertificatePem: wwdr.toString(),
    subject: { uid: subject.UID, ou: subject.OU, cn: subject.CN ?? null, o: subject.O ?? null },
    certificateSha256: fingerprint(certificate),
    wwdrSha256,
    wwdrIsAppleG4,
    notAfter,
    expiresSoon: notAfter.getTime() - input.now.getTime() < EXPIRY_WARNING_DAYS * 24 * 3600 * 1000,
  };
}

/**
 * What a stored certificate says (for the administration API): subject, fingerprint, expiry.
 * @param now For `expiresSoon`.
 */
export function describeCertificate(
  certificatePem: string,
  now: Date,
): Pick<ValidatedAppleCredentials, 'subject' | 'certificateSha256' | 'notAfter' | 'expiresSoon'> {
  const certificate = new X509Certificate(certificatePem);
  const subject = subjectOf(certificate);
  const notAfter = new Date(certificate.validTo);
  return {
    subject: { uid: subject.UID ?? '', ou: subject.OU ?? '', cn: subject.CN ?? null, o: subject.O ?? null },
    certificateSha256: fingerprint(certificate),
    notAfter,
    expiresSoon: notAfter.getTime() - now.getTime() < EXPIRY_WARNING_DAYS * 24 * 3600 * 1000,
  };
}
