/**
 * The simulated internet's public key infrastructure: one root CA standing in for the web's
 * (the service trusts it through `NODE_EXTRA_CA_CERTS`, https://nodejs.org/api/cli.html#node_extra_ca_certsfile,
 * a setting production may use for a corporate CA too), and a TLS server certificate per host
 * name, signed by it, with the name in its subjectAltName as RFC 6125 asks. Keys are RSA-2048
 * from node:crypto (the development certificates' helper); certificates are built with node-forge.
 */
import { randomBytes } from 'node:crypto';
import forge from 'node-forge';
import { rsaKeyPair } from '../../src/wallet/apple/developmentCertificates.ts';

/** A key and certificate (PEM), as TLS servers take them. */
export interface ServerCredentials {
  key: string;
  cert: string;
}

/** The test CA. */
export interface TestCa {
  /** The root certificate (PEM): what clients trust. */
  certificatePem: string;
  /** A server certificate for `hostname` (and its other names), signed by the root. */
  serverCredentials(...hostnames: string[]): ServerCredentials;
}

/** Makes a root CA valid from a day ago for a year. */
export function createTestCa(): TestCa {
  const day = 24 * 3600 * 1000;
  const notBefore = new Date(Date.now() - day);
  const notAfter = new Date(Date.now() + 365 * day);
  const root = rsaKeyPair();
  const rootName = [
    { name: 'commonName', value: 'Simulated Internet Root CA' },
    { name: 'organizationName', value: 'Wallet Pass Service field tests' },
  ];
  const ca = forge.pki.createCertificate();
  ca.publicKey = root.publicKey;
  ca.serialNumber = `01${randomBytes(15).toString('hex')}`;
  ca.validity.notBefore = notBefore;
  ca.validity.notAfter = notAfter;
  ca.setSubject(rootName);
  ca.setIssuer(rootName);
  ca.setExtensions([
    { name: 'basicConstraints', cA: true, critical: true },
    { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
    { name: 'subjectKeyIdentifier' },
  ]);
  ca.sign(root.privateKey, forge.md.sha256.create());
  return {
    certificatePem: forge.pki.certificateToPem(ca),
    serverCredentials(...hostnames) {
      const leafKeys = rsaKeyPair();
      const leaf = forge.pki.createCertificate();
      leaf.publicKey = leafKeys.publicKey;
      leaf.serialNumber = `02${randomBytes(15).toString('hex')}`;
      leaf.validity.notBefore = notBefore;
      leaf.validity.notAfter = new Date(Date.now() + 90 * day);
      leaf.setSubject([{ name: 'commonName', value: hostnames[0]! }]);
      leaf.setIssuer(rootName);
      leaf.setExtensions([
        { name: 'basicConstraints', cA: false, critical: true },
        { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
        { name: 'extKeyUsage', serverAuth: true },
        { name: 'subjectAltName', altNames: hostnames.map((value) => ({ type: 2, value })) },
        { name: 'authorityKeyIdentifier', keyIdentifier: ca.generateSubjectKeyIdentifier().getBytes() },
      ]);
      leaf.sign(root.privateKey, forge.md.sha256.create());
      return { key: leafKeys.privateKeyPem, cert: forge.pki.certificateToPem(leaf) };
    },
  };
}
