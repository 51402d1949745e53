/**
 * The signed Apple Wallet file of a pass (`.pkpass`): gathers what one pass is built from — its
 * template's newest processed version (the `pass.json` skeleton, localised strings, images), the
 * account's Apple configuration for the template's pass type, the pass's own content, barcode,
 * NFC, locations, beacons, expiry and status — renders `pass.json`
 * (src/wallet/apple/passJson.ts), checks Apple's rules, and signs and zips the bundle
 * (src/wallet/apple/pkpass.ts). Used by the holder download, Apple's "send the latest pass"
 * endpoint and the holder page.
 *
 * Built bytes are kept in memory per version of the pass — the pass's `updatedAt`, the template
 * version, the configuration's `updatedAt` — so repeated fetches of an unchanged pass are not
 * signed again; signers (certificate parsed, key decrypted) are kept per configuration.
 *
 * @module delivery/applePassFile
 */
import { createHash, randomBytes } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { PrismaExecutor } from '../db/database.ts';
import { ConflictError } from '../errors.ts';
import type { Runtime } from '../deps.ts';
import { appleAuthenticationTokenContext } from '../security/secretContexts.ts';
import type { ApplePassArtefact } from '../wallet/apple/passJson.ts';
import { applePassProblems, renderPassJson, type AppleBarcodeFormat, type PassField } from '../wallet/apple/passJson.ts';
import { createPassSigner, type PassSigner } from '../wallet/apple/passSigner.ts';
import { buildPkpass, passStrings } from '../wallet/apple/pkpass.ts';
import { openApplePrivateKey, selectSigningConfiguration, type AppleConfigurationRow } from '../domain/appleConfigurations/appleConfigurationStore.ts';
import { selectLatestProcessedVersion, selectVersionImages } from '../domain/passTemplates/passTemplateStore.ts';
import { barcodeCaption, identifierValue, type BarcodeSettings, type NfcSettings } from '../domain/passes/passRules.ts';
import { storeAppleAuthenticationToken, type PassRow } from '../domain/passes/passStore.ts';
import { selectFirstNfcPublicKey } from '../domain/readerConfigurations/readerConfigurationStore.ts';
import { passContentOf } from '../domain/passes/serializePass.ts';

/** What the runtime gives the builder. */
export type ApplePassDependencies = Pick<Runtime, 'db' | 'secrets' | 'clock' | 'config' | 'logger'>;

/** A built pass. */
export interface ApplePassFile {
  bytes: Uint8Array;
  /** A strong entity tag of this version (RFC 9110 §8.8.3), quoted. */
  etag: string;
  /** When the pass last changed: the latest of its own change, its template version's processing and its credentials' upload. */
  lastModified: Date;
  /** `<template name>.pkpass`, for `Content-Disposition`. */
  fileName: string;
  /** The pass type it is signed for. */
  passTypeIdentifier: string;
}

/** Built files, up to 64 MB in all. */
const files = new LRUCache<string, ApplePassFile>({ maxSize: 64 * 1024 * 1024, sizeCalculation: (file) => file.bytes.byteLength || 1 });
/** Images per template version (they never change once processed). */
const versionImages = new LRUCache<string, Map<string, Uint8Array>>({ max: 200 });
/** Signers per configuration version. */
const signers = new LRUCache<string, PassSigner>({ max: 100 });

const BARCODE_FORMAT: Record<BarcodeSettings['type'], AppleBarcodeFormat> = {
  qr: 'PKBarcodeFormatQR',
  code128: 'PKBarcodeFormatCode128',
  aztec: 'PKBarcodeFormatAztec',
  pdf417: 'PKBarcodeFormatPDF417',
};

/** The path of Apple's web service below `PUBLIC_BASE_URL`, written as the passes' `webServiceURL`. */
export const APPLE_WEB_SERVICE_PATH = '/wallet/apple';

/** The 409 of an account that cannot sign the pass yet. */
function notConfigured(passTypeIdentifier: string | null): ConflictError {
  return new ConflictError(
    passTypeIdentifier
      ? `This account has no Apple Wallet configuration for ${passTypeIdentifier}, the pass type of the pass's template; the operator sets one with npm run admin -- apple set (Set the Apple configuration of a pass type).`
      : 'This account has no Apple Wallet configuration yet; the operator sets one with npm run admin -- apple set (Set the Apple configuration of a pass type).',
    undefined,
    'apple_not_configured',
  );
}

/**
 * The pass's Apple `authenticationToken` (32 random bytes, base64url), made and sealed the first
 * time it is needed and never changed (Apple: the token "must not change" for the pass). Two
 * concurrent first calls agree on one token.
 */
export async function appleAuthenticationToken(deps: Pick<Runtime, 'db' | 'secrets'>, pass: Pick<PassRow, 'id' | 'appleAuthenticationToken'>): Promise<string> {
  const context = appleAuthenticationTokenContext(pass.id);
  if (pass.appleAuthenticationToken) return deps.secrets.decrypt(pass.appleAuthenticationToken, context);
  const sealed = deps.secrets.encrypt(randomBytes(32).toString('base64url'), context);
  return deps.secrets.decrypt(await storeAppleAuthenticationToken(deps.db.prisma, pass.id, sealed), context);
}

function signerOf(deps: ApplePassDependencies, configuration: AppleConfigurationRow): PassSigner {
  const key = `${configuration.id}/${configuration.updatedAt.getTime()}`;
  let signer = signers.get(key);
  if (!signer) {
    signer = createPassSigner({
      certificatePem: configuration.certificatePem,
      privateKeyPem: openApplePrivateKey(configuration, deps.secrets),
      wwdrCertificatePem: configuration.wwdrCertificatePem,
    });
    signers.set(key, signer);
    const daysLeft = (configuration.certificateNotAfter.getTime() - deps.clock.now().getTime()) / (24 * 3600 * 1000);
    if (daysLeft < 30) {
      deps.logger.warn(
        { accountId: configuration.accountId, passTypeIdentifier: configuration.passTypeIdentifier, notAfter: configuration.certificateNotAfter.toISOString() },
        'the Pass Type ID certificate expires within 30 days; renew it',
      );
    }
  }
  return signer;
}

/** The NFC `encryptionPublicKey`: base64 DER SubjectPublicKeyInfo of the account's first reader configuration's key. */
async function nfcPublicKey(prisma: PrismaExecutor, accountId: string): Promise<string | null> {
  const pem = await selectFirstNfcPublicKey(prisma, accountId);
  return pem === null ? null : pem.replace(/-----(BEGIN|END) PUBLIC KEY-----|\s/g, '');
}

async function imagesOf(prisma: PrismaExecutor, templateId: string, version: number): Promise<Map<string, Uint8Array>> {
  const key = `${templateId}/${version}`;
  let images = versionImages.get(key);
  if (!images) {
    images = await selectVersionImages(prisma, templateId, version);
    versionImages.set(key, images);
  }
  return images;
}

/**
 * Builds (or takes from the cache) the signed file of a pass.
 * @param pass The pass, as read (its `updatedAt` decides the cache entry).
 * @param baseUrl `PUBLIC_BASE_URL` (or the request's base on the embedded default): the pass's
 *   `webServiceURL` is `<baseUrl>/wallet/apple`.
 * @throws ConflictError `apple_not_configured` (the account has no configuration for the
 *   template's pass type), `template_not_processed` (no processed version, which passes always
 *   have), or `pass_not_buildable` listing Apple rules the pass breaks.
 */
export async function buildApplePassFile(deps: ApplePassDependencies, pass: PassRow, baseUrl: string): Promise<ApplePassFile> {
  const prisma = deps.db.prisma;
  const template = await prisma.passTemplate.findUniqueOrThrow({ where: { id: pass.templateId } });
  const configuration = await selectSigningConfiguration(prisma, pass.accountId, template.applePassTypeIdentifier);
  if (!configuration) throw notConfigured(template.applePassTypeIdentifier);
  const version = await selectLatestProcessedVersion(prisma, pass.templateId);
  if (!version) throw new ConflictError(`The pass template ${pass.templateId} has no processed design.`, undefined, 'template_not_processed');
  const cacheKey = [pass.id, pass.updatedAt.getTime(), version.version, configuration.id, configuration.updatedAt.getTime(), baseUrl].join('/');
  const cached = files.get(cacheKey);
  if (cached) return cached;

  const artefact = version.applePass as unknown as ApplePassArtefact;
  const barcode = pass.barcode as BarcodeSettings | null;
  const nfc = pass.nfc as NfcSettings | null;
  const locations = pass.locations as { latitude: number; longitude: number; radius?: number; message?: string }[];
  const beacons = pass.beacons as { proximityUuid: string; major?: number; minor?: number; message?: string }[];
  const radii = locations.flatMap((l) => (l.radius === undefined ? [] : [l.radius]));
  const encryptionPublicKey = nfc ? await nfcPublicKey(prisma, pass.accountId) : null;
  const extraBackFields: PassField[] = pass.latestMessage
    ? [{ key: 'latestMessage', label: template.notificationHeader ?? 'Message', value: pass.latestMessage, changeMessage: '%@' }]
    : [];
  const barcodeMessage = barcode?.enabled ? identifierValue(barcode.source, pass, barcode.value) : null;
  const altText = barcode && barcodeMessage !== null ? barcodeCaption(barcode, barcodeMessage) : undefined;
  const passJson = renderPassJson(artefact.passJson, {
    passTypeIdentifier: configuration.passTypeIdentifier,
    teamIdentifier: configuration.teamIdentifier,
    organizationName: configuration.organizationName,
    description: template.description ?? template.name,
    serialNumber: pass.id,
    authenticationToken: await appleAuthenticationToken(deps, pass),
    webServiceURL: `${baseUrl}${APPLE_WEB_SERVICE_PATH}`,
    fieldValues: passContentOf(pass),
    changeMessages: {},
    extraBackFields,
    barcode:
      barcode?.enabled && barcodeMessage !== null
        ? {
            format: BARCODE_FORMAT[barcode.type],
            message: barcodeMessage,
            ...(altText ? { altText } : {}),
          }
        : null,
    nfc: nfc ? { message: identifierValue(nfc.source, pass, nfc.customValue), encryptionPublicKey: encryptionPublicKey ?? '' } : null,
    locations: locations.map((l) => ({ latitude: l.latitude, longitude: l.longitude, ...(l.message ? { relevantText: l.message } : {}) })),
    ...(radii.length ? { maxDistance: Math.max(...radii) } : {}),
    beacons: beacons.map((b) => ({
      proximityUUID: b.proximityUuid.toUpperCase(),
      ...(b.major === undefined ? {} : { major: b.major }),
      ...(b.minor === undefined ? {} : { minor: b.minor }),
      ...(b.message ? { relevantText: b.message } : {}),
    })),
    expirationDate: pass.expiresAt,
    voided: pass.status === 'deactivated' || pass.status === 'nullified',
  });

  const bundle = new Map<string, Uint8Array>([['pass.json', Buffer.from(JSON.stringify(passJson), 'utf8')]]);
  for (const [name, png] of await imagesOf(prisma, pass.templateId, version.version)) bundle.set(name, png);
  for (const [language, strings] of Object.entries(artefact.strings)) bundle.set(`${language}.lproj/pass.strings`, passStrings(strings));
  // http: web services only in development: where development certificates are accepted (the
  // embedded default, or APPLE_ALLOW_DEVELOPMENT_CERTIFICATES), whose passes never reach an iPhone.
  const problems = applePassProblems(passJson, [...bundle.keys()], { allowHttpWebService: deps.config.appleAllowDevelopmentCertificates });
  if (problems.length) throw new ConflictError(`The pass cannot be built for Apple Wallet: ${problems.join(' ')}`, undefined, 'pass_not_buildable');

  const now = deps.clock.now();
  const bytes = buildPkpass(bundle, signerOf(deps, configuration), now);
  const lastModified = new Date(Math.max(pass.updatedAt.getTime(), version.processedAt?.getTime() ?? 0, configuration.updatedAt.getTime()));
  const file: ApplePassFile = {
    bytes,
    etag: `"${createHash('sha256').update(cacheKey).digest('base64url').slice(0, 27)}"`,
    lastModified,
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are not allowed in a file name (Content-Disposition, RFC 6266)
    fileName: `${template.name.replace(/[\\/:*?"<>|\u0000-\u001f]/g, '_')}.pkpass`,
    passTypeIdentifier: configuration.passTypeIdentifier,
  };
  files.set(cacheKey, file);
  return file;
}
