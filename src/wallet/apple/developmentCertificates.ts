/**
 * Throw-away Apple-like credentials for local development and tests: a root CA, a WWDR-like
 * intermediate (OU G4) and a Pass Type ID leaf with Apple's Pass Type ID extended key usage
 * (1.2.840.113635.100.4.14) and marker extension (1.2.840.113635.100.6.1.16), subject UID = the
 * pass type identifier and OU = the team — the shape of a real Pass Type ID certificate, as
 * Apple's `Security` framework checks it (`tpPolicies.cpp`, `tp_verifyPassbookSigningOpts`). The
 * leaf also carries `clientAuth` and the APNs environment markers 1.2.840.113635.100.6.3.1/.2
 * so TLS client authentication against a local APNs stand-in works.
 *
 * Passes signed with these open in tooling (`openssl cms -verify`, pkijs) but not on an iPhone,
 * which trusts only Apple's root. Built with node-forge (certificates) over RSA-2048 keys from
 * `node:crypto`; nothing calls openssl.
 *
 * @module wallet/apple/developmentCertificates
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import forge from 'node-forge';

/** What to make. */
export interface DevelopmentCertificateOptions {
  passTypeIdentifier: string;
  teamIdentifier: string;
  organizationName: string;
  /** Validity of the leaf (default: from now, 365 days). */
  notBefore?: Date;
  notAfter?: Date;
  /** The subject UID written in the leaf (default: `passTypeIdentifier`; tests make wrong ones). */
  subjectUid?: string;
  /** Give the leaf Apple's Pass Type ID extended key usage and marker (default true; tests leave them out). */
  passTypeExtensions?: boolean;
}

/** A development chain. Every key is unencrypted PKCS#8 PEM. */
export interface DevelopmentCertificates {
  rootCertificatePem: string;
  wwdrCertificatePem: string;
  wwdrPrivateKeyPem: string;
  certificatePem: string;
  privateKeyPem: string;
  /**
   * The leaf and its key as a PKCS#12 file (3DES, as Keychain Access exports), protected with
   * `passphrase`.
   */
  p12(passphrase: string): Buffer;
}

const UID_OID = '0.9.2342.19200300.100.1.1';
const APPLE_EXTENSION_NULL = forge.asn1.toDer(forge.asn1.create(forge.asn1.Class.UNIVERSAL, forge.asn1.Type.NULL, false, '')).getBytes();

/**
 * The organizationName attribute as a UTF8String (RFC 5280 §4.1.2.4: DirectoryString), so that
 * any name — 星珈琲, Ζωή — is written whole (node-forge encodes a UTF8String's value itself;
 * as its default PrintableString, such a name made an unreadable certificate).
 */
function organization(name: string): forge.pki.CertificateField {
  return { name: 'organizationName', value: name, valueTagClass: forge.asn1.Type.UTF8 as unknown as forge.asn1.Class };
}

/** A fresh RSA-2048 key pair from node:crypto: PKCS#8 PEM, and both keys as node-forge takes them. */
export function rsaKeyPair(): { privateKeyPem: string; publicKey: forge.pki.PublicKey; privateKey: forge.pki.rsa.PrivateKey } {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const privateKeyPem = privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
  return {
    privateKeyPem,
    privateKey: forge.pki.privateKeyFromPem(privateKeyPem) as forge.pki.rsa.PrivateKey,
    publicKey: forge.pki.publicKeyFromPem(publicKey.export({ type: 'spki', format: 'pem' }) as string),
  };
}

function certificate(
  subject: forge.pki.CertificateField[],
  issuer: forge.pki.CertificateField[],
  publicKey: forge.pki.PublicKey,
  signingKey: forge.pki.rsa.PrivateKey,
  validity: { notBefore: Date; notAfter: Date },
  extensions: object[],
): forge.pki.Certificate {
  const cert = forge.pki.createCertificate();
  cert.publicKey = publicKey;
  cert.serialNumber = `01${randomBytes(15).toString('hex')}`;
  cert.validity.notBefore = validity.notBefore;
  cert.validity.notAfter = validity.notAfter;
  cert.setSubject(subject);
  cert.setIssuer(issuer);
  cert.setExtensions(extensions);
  cert.sign(signingKey, forge.md.sha256.create());
  return cert;
}

/**
 * Makes a fresh chain (three RSA-2048 keys: about a quarter of a second).
 * @returns PEM certificates and keys, and the leaf as PKCS#12 on demand.
 */
export function createDevelopmentCertificates(options: DevelopmentCertificateOptions): DevelopmentCertificates {
  const now = new Date();
  const day = 24 * 3600 * 1000;
  const caValidity = { notBefore: new Date(now.getTime() - day), notAfter: new Date(now.getTime() + 3650 * day) };
  const rootKeys = rsaKeyPair();
  const rootName = [
    { name: 'commonName', value: 'Wallet Pass Service Development Root CA' },
    organization(options.organizationName),
    { name: 'countryName', value: 'US' },
  ];
  const root = certificate(rootName, rootName, rootKeys.publicKey, rootKeys.privateKey, caValidity, [
    { name: 'basicConstraints', cA: true, critical: true },
    { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
  ]);
  const wwdrKeys = rsaKeyPair();
  const wwdrName = [
    { name: 'commonName', value: 'Wallet Pass Service Development WWDR CA' },
    { name: 'organizationalUnitName', value: 'G4' },
    organization(options.organizationName),
    { name: 'countryName', value: 'US' },
  ];
  const wwdr = certificate(wwdrName, rootName, wwdrKeys.publicKey, rootKeys.privateKey, caValidity, [
    { name: 'basicConstraints', cA: true, pathLenConstraint: 0, critical: true },
    { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
  ]);
  const leafKeys = rsaKeyPair();
  const marker = forge.asn1.toDer(forge.asn1.create(forge.asn1.Class.UNIVERSAL, forge.asn1.Type.UTF8, false, options.passTypeIdentifier)).getBytes();
  const leaf = certificate(
    [
      { type: UID_OID, value: options.subjectUid ?? options.passTypeIdentifier },
      { name: 'commonName', value: `Pass Type ID: ${options.passTypeIdentifier}` },
      { name: 'organizationalUnitName', value: options.teamIdentifier },
      organization(options.organizationName),
      { name: 'countryName', value: 'US' },
    ],
    wwdrName,
    leafKeys.publicKey,
    wwdrKeys.privateKey,
    { notBefore: options.notBefore ?? new Date(now.getTime() - 60_000), notAfter: options.notAfter ?? new Date(now.getTime() + 365 * day) },
    [
      { name: 'basicConstraints', cA: false, critical: true },
      { name: 'keyUsage', digitalSignature: true, critical: true },
      ...(options.passTypeExtensions === false
        ? [{ name: 'extKeyUsage', clientAuth: true }]
        : [
            { name: 'extKeyUsage', '1.2.840.113635.100.4.14': true, clientAuth: true },
            { id: '1.2.840.113635.100.6.1.16', critical: false, value: marker },
          ]),
      { id: '1.2.840.113635.100.6.3.1', critical: false, value: APPLE_EXTENSION_NULL },
      { id: '1.2.840.113635.100.6.3.2', critical: false, value: APPLE_EXTENSION_NULL },
    ],
  );
  return {
    rootCertificatePem: forge.pki.certificateToPem(root),
    wwdrCertificatePem: forge.pki.certificateToPem(wwdr),
    wwdrPrivateKeyPem: wwdrKeys.privateKeyPem,
    certificatePem: forge.pki.certificateToPem(leaf),
    privateKeyPem: leafKeys.privateKeyPem,
    p12(passphrase) {
      const asn1 = forge.pkcs12.toPkcs12Asn1(leafKeys.privateKey, [leaf], passphrase, { algorithm: '3des' });
      return Buffer.from(forge.asn1.toDer(asn1).getBytes(), 'binary');
    },
  };
}
