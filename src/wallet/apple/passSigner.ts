/**
 * The `signature` file of an Apple Wallet pass: a detached CMS SignedData (RFC 5652 §5) over
 * the bytes of `manifest.json`, signed with the Pass Type ID certificate's key, carrying the
 * signer and the Apple WWDR intermediate certificates and the signed attributes content type,
 * signing time and message digest (Apple, "Building a Pass",
 * https://developer.apple.com/documentation/walletpasses/building-a-pass: "a detached PKCS #7
 * signature of the manifest … the signature must include the Apple WWDR intermediate
 * certificate and a signing time").
 *
 * Why not passkit-generator's signer: it signs with node-forge's pure-JS RSA and decrypts the
 * key on every pass, ≈ 52–55 ms per pass on this hardware; Node's own RSA signs in ≈ 0.4 ms. The
 * structure is encoded with asn1js (the ASN.1 library under pkijs), and the part that is the
 * same for every pass — version, digest algorithms, content type and both certificates — is
 * encoded once when the signer is made, instead of on every signature (re-encoding the two
 * certificates costs ≈ 1.75 ms each with pkijs's `Certificate.toSchema()`, ≈ 0.6 ms for both with
 * asn1js). Per pass only the signer info — digest, time, RSA signature — is encoded, and joined to
 * the prefix under the enclosing SEQUENCE and [0] headers (DER definite lengths, ITU-T X.690 section 8.1.3).
 *
 * Digest: SHA-256 (`sha256WithRSAEncryption` signature over the DER of the signed attributes);
 * the manifest itself keeps SHA-1 file hashes, as Apple's format requires.
 *
 * @module wallet/apple/passSigner
 */
import { createHash, createPrivateKey, sign, X509Certificate, type KeyObject } from 'node:crypto';
import * as asn1js from 'asn1js';

const OID = {
  data: '1.2.840.113549.1.7.1',
  signedData: '1.2.840.113549.1.7.2',
  contentType: '1.2.840.113549.1.9.3',
  messageDigest: '1.2.840.113549.1.9.4',
  signingTime: '1.2.840.113549.1.9.5',
  sha256: '2.16.840.1.101.3.4.2.1',
  sha256WithRSAEncryption: '1.2.840.113549.1.1.11',
} as const;

/** The PEM credentials a signer is made from. */
export interface PassSigningCredentials {
  /** The Pass Type ID certificate, PEM. */
  certificatePem: string;
  /** Its RSA private key, unencrypted PEM (PKCS#8 or PKCS#1). */
  privateKeyPem: string;
  /** The Apple WWDR intermediate that issued the certificate, PEM. */
  wwdrCertificatePem: string;
}

/** Signs manifests with one set of credentials (parsed once). */
export interface PassSigner {
  /**
   * The DER `signature` file for a manifest.
   * @param manifest The exact bytes of `manifest.json`.
   * @param signingTime The time written in the signing-time attribute (UTCTime, whole seconds).
   */
  sign(manifest: Uint8Array, signingTime: Date): Buffer;
}

const toArrayBuffer = (bytes: Uint8Array): ArrayBuffer => bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
const algorithm = (oid: string) => new asn1js.Sequence({ value: [new asn1js.ObjectIdentifier({ value: oid }), new asn1js.Null()] });
const attribute = (oid: string, value: asn1js.AsnType) =>
  new asn1js.Sequence({ value: [new asn1js.ObjectIdentifier({ value: oid }), new asn1js.Set({ value: [value] })] });

/** The DER header of a structure: its identifier octet and definite length (ITU-T X.690 sections 8.1.2–8.1.3). */
function derHeader(identifier: number, length: number): Buffer {
  if (length < 0x80) return Buffer.from([identifier, length]);
  const octets: number[] = [];
  for (let rest = length; rest > 0; rest = Math.floor(rest / 256)) octets.unshift(rest % 256);
  return Buffer.from([identifier, 0x80 | octets.length, ...octets]);
}

/** A constructed structure around already-encoded members. */
function wrap(identifier: number, ...members: Uint8Array[]): Buffer {
  const length = members.reduce((sum, m) => sum + m.byteLength, 0);
  return Buffer.concat([derHeader(identifier, length), ...members]);
}

/** Identifier octets: SEQUENCE, and [0] constructed in the context-specific class. */
const SEQUENCE = 0x30;
const CONTEXT_0 = 0xa0;

/** A DER structure parsed once, so that encoding it again gives the same bytes. */
function parsedDer(der: Uint8Array): asn1js.AsnType {
  const parsed = asn1js.fromBER(toArrayBuffer(der));
  if (parsed.offset === -1) throw new Error('The certificate is not DER.');
  return parsed.result;
}

/**
 * The `IssuerAndSerialNumber` (RFC 5652 §10.2.4) of a certificate, copied from its DER: the
 * issuer name and serial number exactly as encoded in `tbsCertificate` (RFC 5280 §4.1).
 * @throws Error when the DER is not an X.509 certificate.
 */
function issuerAndSerialNumber(certificateDer: Uint8Array): asn1js.Sequence {
  const tbs = (parsedDer(certificateDer) as asn1js.Sequence).valueBlock.value[0] as asn1js.Sequence;
  const fields = tbs.valueBlock.value;
  // tbsCertificate: [0] version (explicit, optional), serialNumber, signature, issuer, …
  const offset = fields[0]!.idBlock.tagClass === 3 ? 1 : 0;
  const serial = fields[offset]!;
  const issuer = fields[offset + 2]!;
  return new asn1js.Sequence({ value: [issuer, serial] });
}

/**
 * Makes a signer for one set of credentials: parses the certificates and imports the key once.
 * @throws Error when a certificate or the key cannot be read (upload validation,
 *   src/wallet/apple/certificates.ts, makes sure this does not happen for stored credentials).
 */
export function createPassSigner(credentials: PassSigningCredentials): PassSigner {
  const signerDer = new X509Certificate(credentials.certificatePem).raw;
  const wwdrDer = new X509Certificate(credentials.wwdrCertificatePem).raw;
  const key: KeyObject = createPrivateKey(credentials.privateKeyPem);
  const sid = issuerAndSerialNumber(signerDer);
  const certificates = new asn1js.Constructed({
    idBlock: { tagClass: 3, tagNumber: 0 },
    value: [parsedDer(signerDer), parsedDer(wwdrDer)],
  });
  // Everything SignedData holds before its signer infos (RFC 5652 §5.1), encoded once.
  const signedDataPrefix = Buffer.concat([
    new Uint8Array(new asn1js.Integer({ value: 1 }).toBER(false)),
    new Uint8Array(new asn1js.Set({ value: [algorithm(OID.sha256)] }).toBER(false)),
    new Uint8Array(new asn1js.Sequence({ value: [new asn1js.ObjectIdentifier({ value: OID.data })] }).toBER(false)),
    new Uint8Array(certificates.toBER(false)),
  ]);
  const signedDataOid = new Uint8Array(new asn1js.ObjectIdentifier({ value: OID.signedData }).toBER(false));

  return {
    sign(manifest, signingTime) {
      const digest = createHash('sha256').update(manifest).digest();
      const time = new Date(Math.floor(signingTime.getTime() / 1000) * 1000);
      // DER orders a SET OF by the encodings of its elements (ITU-T X.690 section 11.6): content type,
      // signing time, message digest (their lengths 24 < 28 < 47 decide).
      const attributes = [
        attribute(OID.contentType, new asn1js.ObjectIdentifier({ value: OID.data })),
        attribute(OID.signingTime, new asn1js.UTCTime({ valueDate: time })),
        attribute(OID.messageDigest, new asn1js.OctetString({ valueHex: toArrayBuffer(digest) })),
      ];
      // The signature covers the attributes encoded as a SET (RFC 5652 §5.4) …
      const signedAttributesDer = new Uint8Array(new asn1js.Set({ value: attributes }).toBER(false));
      const signature = sign('sha256', signedAttributesDer, key);
      // … and they are sent as [0] IMPLICIT SET OF Attribute: the same content under tag A0.
      const signedAttrs = new asn1js.Constructed({ idBlock: { tagClass: 3, tagNumber: 0 }, value: attributes });
      const signerInfo = new asn1js.Sequence({
        value: [
          new asn1js.Integer({ value: 1 }),
          sid,
          algorithm(OID.sha256),
          signedAttrs,
          algorithm(OID.sha256WithRSAEncryption),
          new asn1js.OctetString({ valueHex: toArrayBuffer(signature) }),
        ],
      });
      const signerInfos = new Uint8Array(new asn1js.Set({ value: [signerInfo] }).toBER(false));
      return wrap(SEQUENCE, signedDataOid, wrap(CONTEXT_0, wrap(SEQUENCE, signedDataPrefix, signerInfos)));
    },
  };
}
