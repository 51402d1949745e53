/**
 * What Google Wallet delivery reads and writes: an account's issuer credentials (the sealed
 * service account key opened), what a pass's object is made of, and the record of the classes
 * and objects written to Google. Plain SQL and Prisma over the service's tables; nothing of the
 * HTTP resources.
 *
 * @module domain/googleWallet/googleWalletStore
 */
import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { PrismaExecutor } from '../../db/database.ts';
import { Prisma } from '../../../generated/prisma/client.ts';
import { queryRow, queryRows } from '../../db/rows.ts';
import { googleServiceAccountKeyContext } from '../../security/secretContexts.ts';
import type { SecretCipher } from '../../security/secrets.ts';
import type { GoogleIssuer } from '../../wallet/google/client.ts';
import { parseServiceAccountKey } from '../../wallet/google/credentials.ts';
import { LOGO_FILE, logoSizeOf, renderGoogleWalletClass, type GoogleWalletArtefact } from '../../wallet/google/walletClass.ts';
import type { TemplateDesign } from '../../wallet/templateDesign.ts';
import type { GooglePassData } from '../../wallet/google/walletObject.ts';

/** An account's issuer, with the name its classes show. */
export interface AccountIssuer extends GoogleIssuer {
  accountId: string;
  issuerName: string;
  /** Whether the account has a reader configuration (a Smart Tap collector id). */
  smartTap: boolean;
}

/**
 * The Google issuer of an account, its key opened.
 * @returns null when the account has no Google configuration.
 */
export async function selectAccountIssuer(prisma: PrismaExecutor, cipher: SecretCipher, accountId: string): Promise<AccountIssuer | null> {
  const row = await queryRow<{ id: string; issuerId: string; sealed: Uint8Array; updatedAt: Date; name: string; smartTap: boolean }>(
    prisma,
    Prisma.sql`
    SELECT g.id::text AS id, g.issuer_id, g.service_account_key_encrypted AS sealed, g.updated_at, a.name,
           EXISTS (SELECT 1 FROM reader_configurations r WHERE r.account_id = g.account_id) AS smart_tap
      FROM google_configurations g JOIN accounts a ON a.id = g.account_id
     WHERE g.account_id = ${accountId}::uuid`,
  );
  if (!row) return null;
  const key = parseServiceAccountKey(cipher.decrypt(row.sealed, googleServiceAccountKeyContext(row.id)));
  return {
    accountId,
    issuerId: row.issuerId,
    issuerName: row.name,
    smartTap: row.smartTap,
    clientEmail: key.clientEmail,
    privateKey: key.privateKey,
    privateKeyId: key.privateKeyId,
    cacheKey: createHash('sha256').update(`${row.id}/${row.updatedAt.getTime()}/${key.privateKey}`).digest('hex'),
  };
}

/** Whether an account has Google credentials (a change of its passes must reach Google). */
export async function hasGoogleConfiguration(prisma: PrismaExecutor, accountId: string): Promise<boolean> {
  const [row] = await prisma.$queryRaw<{ yes: boolean }[]>`SELECT EXISTS (SELECT 1 FROM google_configurations WHERE account_id = ${accountId}::uuid) AS yes`;
  return row?.yes ?? false;
}

/** The newest processed design of a template, for Google. */
export interface ProcessedClassVersion {
  templateId: string;
  accountId: string;
  version: number;
  artefact: GoogleWalletArtefact;
  /** The processed image files of the version (`logo@3x.png`, …). */
  imageNames: string[];
  /** The template's own image URLs (fallback when no public base URL is configured). */
  sourceImages: { logo?: string | null; banner?: string | null; icon?: string | null };
  /** The version last written to Google, if any. */
  syncedVersion: number | null;
  /** The `callbackOptions.url` it was last written with (null: none, or never written). */
  syncedCallbackUrl: string | null;
  /** SHA-256 of the class body last written (null: never written, or before bodies were hashed). */
  syncedBodyHash: string | null;
}

/** What never changes of a processed version (its artefact and images), by `<template id>/<version>`. */
const versionParts = new LRUCache<string, Omit<ProcessedClassVersion, 'syncedVersion' | 'syncedCallbackUrl' | 'syncedBodyHash'>>({ max: 1000 });

/**
 * The newest processed version of a template and what was written to Google of it (one query
 * while the version's parts are cached). The artefact is rendered from the version's design
 * snapshot by this release's renderer (src/wallet/google/walletClass.ts), so classes and objects
 * written by an earlier release move to the current layout (the stored `google_class` is what
 * processing rendered then).
 */
export async function selectClassVersion(prisma: PrismaExecutor, templateId: string): Promise<ProcessedClassVersion | null> {
  const latest = await queryRow<{ version: number; syncedVersion: number | null; syncedCallbackUrl: string | null; syncedBodyHash: string | null }>(
    prisma,
    Prisma.sql`
    SELECT v.version, c.version AS synced_version, c.callback_url AS synced_callback_url, c.body_hash AS synced_body_hash
      FROM pass_template_versions v LEFT JOIN google_wallet_classes c ON c.template_id = v.template_id
     WHERE v.template_id = ${templateId}::uuid AND v.status = 'processed'
     ORDER BY v.version DESC LIMIT 1`,
  );
  if (!latest) return null;
  const key = `${templateId}/${latest.version}`;
  let parts = versionParts.get(key);
  if (!parts) {
    const [version, images, template] = await Promise.all([
      prisma.passTemplateVersion.findUnique({ where: { templateId_version: { templateId, version: latest.version } } }),
      prisma.passTemplateImage.findMany({ where: { templateId, version: latest.version }, select: { name: true, width: true, height: true } }),
      prisma.passTemplate.findUnique({ where: { id: templateId }, select: { images: true } }),
    ]);
    if (!version?.googleClass) return null;
    parts = {
      templateId,
      accountId: version.accountId,
      version: version.version,
      artefact: renderGoogleWalletClass(templateId, version.design as unknown as TemplateDesign, logoSizeOf(images)),
      imageNames: images.map((i) => i.name),
      sourceImages: (template?.images ?? {}) as ProcessedClassVersion['sourceImages'],
    };
    versionParts.set(key, parts);
  }
  return { ...parts, syncedVersion: latest.syncedVersion, syncedCallbackUrl: latest.syncedCallbackUrl, syncedBodyHash: latest.syncedBodyHash };
}

/** Records that a template's class now holds a version. */
export async function recordClassSynced(
  prisma: PrismaExecutor,
  row: { templateId: string; accountId: string; classId: string; classType: string; version: number; callbackUrl: string | null; bodyHash: string },
  at: Date,
): Promise<void> {
  await prisma.googleWalletClass.upsert({
    where: { templateId: row.templateId },
    create: { ...row, syncedAt: at },
    update: { classId: row.classId, classType: row.classType, version: row.version, callbackUrl: row.callbackUrl, bodyHash: row.bodyHash, syncedAt: at },
  });
}

/** A pass as Google delivery reads it, with its object's record. */
export interface GooglePassSubject extends GooglePassData {
  accountId: string;
  latestMessage: string | null;
  /** The template's `notificationHeader` (read now: it changes without a new design version). */
  notificationHeader: string | null;
  object: {
    objectId: string;
    lastMessage: string | null;
    notifiedAt: Date[];
    /** What the object was last written with (src/delivery/googleSync.ts); null before bodies were hashed. */
    bodyHash: string | null;
    dataHash: string | null;
    designVersion: number | null;
  } | null;
}

/** A pass and the record of its object; null when the pass is gone. */
export async function selectGooglePass(prisma: PrismaExecutor, passId: string): Promise<GooglePassSubject | null> {
  const pass = await prisma.pass.findUnique({
    where: { id: passId },
    include: { googleWalletObject: true, template: { select: { notificationHeader: true } } },
  });
  if (!pass) return null;
  const content = { ...(pass.content as Record<string, string>) };
  if (Object.hasOwn(content, 'points')) content.points = String(pass.balance);
  return {
    id: pass.id,
    extId: pass.extId,
    templateId: pass.templateId,
    accountId: pass.accountId,
    status: pass.status,
    content,
    barcode: pass.barcode as GooglePassData['barcode'],
    nfc: pass.nfc as GooglePassData['nfc'],
    balance: pass.balance,
    expiresAt: pass.expiresAt,
    latestMessage: pass.latestMessage,
    notificationHeader: pass.template.notificationHeader,
    object: pass.googleWalletObject
      ? {
          objectId: pass.googleWalletObject.objectId,
          lastMessage: pass.googleWalletObject.lastMessage,
          notifiedAt: pass.googleWalletObject.notifiedAt ?? [],
          bodyHash: pass.googleWalletObject.bodyHash,
          dataHash: pass.googleWalletObject.dataHash,
          designVersion: pass.googleWalletObject.designVersion,
        }
      : null,
  };
}

/** What an object was written with: its body's and its pass values' SHA-256, and the design version. */
export interface ObjectWritten {
  bodyHash: string;
  dataHash: string;
  designVersion: number;
}

/** Records a written object (inserted now, or patched), with what it was written with. */
export async function recordObjectSynced(
  prisma: PrismaExecutor,
  row: { passId: string; accountId: string; objectId: string; objectType: string; lastMessage: string | null } & ObjectWritten,
  at: Date,
): Promise<void> {
  const { bodyHash, dataHash, designVersion } = row;
  await prisma.googleWalletObject.upsert({
    where: { passId: row.passId },
    create: { ...row, insertedAt: at, syncedAt: at, notifiedAt: [] },
    update: { objectId: row.objectId, objectType: row.objectType, syncedAt: at, bodyHash, dataHash, designVersion },
  });
}

/** Records that objects were written (patched) with these bodies, e.g. by one batch request. */
export async function recordObjectsRewritten(prisma: PrismaExecutor, rows: ({ passId: string } & ObjectWritten)[], at: Date): Promise<void> {
  if (!rows.length) return;
  await prisma.$executeRaw`
    UPDATE google_wallet_objects o
       SET body_hash = r.body_hash, data_hash = r.data_hash, design_version = r.design_version, synced_at = ${at}
      FROM UNNEST(${rows.map((r) => r.passId)}::uuid[], ${rows.map((r) => r.bodyHash)}::text[], ${rows.map((r) => r.dataHash)}::text[],
                  ${rows.map((r) => r.designVersion)}::int[]) AS r(pass_id, body_hash, data_hash, design_version)
     WHERE o.pass_id = r.pass_id`;
}

/**
 * The next objects of a template not written with `version`'s design (or written before bodies
 * were hashed), in pass id order after `after`.
 */
export async function selectObjectsBehind(prisma: PrismaExecutor, templateId: string, version: number, after: string | null, limit: number): Promise<string[]> {
  const rows = await queryRows<{ passId: string }>(
    prisma,
    Prisma.sql`
    SELECT o.pass_id::text AS pass_id
      FROM google_wallet_objects o JOIN passes p ON p.id = o.pass_id
     WHERE p.template_id = ${templateId}::uuid AND (o.body_hash IS NULL OR o.design_version IS NULL OR o.design_version < ${version})
       AND (${after}::uuid IS NULL OR o.pass_id > ${after}::uuid)
     ORDER BY o.pass_id LIMIT ${limit}`,
  );
  return rows.map((r) => r.passId);
}

/** How many objects of a template are not written with `version`'s design, and how many it has. */
export async function countObjectsBehind(prisma: PrismaExecutor, templateId: string, version: number): Promise<{ behind: number; total: number }> {
  const row = await queryRow<{ behind: number; total: number }>(
    prisma,
    Prisma.sql`
    SELECT COUNT(*) FILTER (WHERE o.body_hash IS NULL OR o.design_version IS NULL OR o.design_version < ${version})::int AS behind, COUNT(*)::int AS total
      FROM google_wallet_objects o JOIN passes p ON p.id = o.pass_id
     WHERE p.template_id = ${templateId}::uuid`,
  );
  return row ?? { behind: 0, total: 0 };
}

/** Templates whose class or objects were written before bodies were hashed (the one-time move to the class-level layout). */
export async function selectTemplatesToMigrate(prisma: PrismaExecutor): Promise<{ templateId: string }[]> {
  return queryRows<{ templateId: string }>(
    prisma,
    Prisma.sql`
    SELECT c.template_id::text AS template_id FROM google_wallet_classes c WHERE c.body_hash IS NULL
    UNION
    SELECT DISTINCT p.template_id::text FROM google_wallet_objects o JOIN passes p ON p.id = o.pass_id WHERE o.body_hash IS NULL
    ORDER BY 1`,
  );
}

/** Records a message added to an object, and when it notified the holder (the last 3 kept). */
export async function recordMessageAdded(prisma: PrismaExecutor, passId: string, message: string, notifiedAt: Date[]): Promise<void> {
  await prisma.googleWalletObject.update({ where: { passId }, data: { lastMessage: message, notifiedAt: notifiedAt.slice(-3) } });
}

/** Which of these passes have a Google object. */
export async function selectPassesWithObjects(prisma: PrismaExecutor, passIds: string[]): Promise<string[]> {
  const rows = await queryRows<{ passId: string }>(
    prisma,
    Prisma.sql`
    SELECT pass_id::text AS pass_id FROM google_wallet_objects WHERE pass_id = ANY(${passIds}::uuid[]) ORDER BY pass_id`,
  );
  return rows.map((r) => r.passId);
}

/** The design versions the template's objects behind `version` were written with (null: before bodies were hashed). */
export async function selectVersionsBehind(prisma: PrismaExecutor, templateId: string, version: number): Promise<number[]> {
  const rows = await queryRows<{ designVersion: number }>(
    prisma,
    Prisma.sql`
    SELECT DISTINCT o.design_version FROM google_wallet_objects o JOIN passes p ON p.id = o.pass_id
     WHERE p.template_id = ${templateId}::uuid AND o.body_hash IS NOT NULL AND o.design_version < ${version}`,
  );
  return rows.map((r) => r.designVersion);
}

/** The Google artefact of a template version, rendered from its design snapshot and logo size; null when the version is not processed. */
export async function selectVersionArtefact(prisma: PrismaExecutor, templateId: string, version: number): Promise<GoogleWalletArtefact | null> {
  const [row, logo] = await Promise.all([
    prisma.passTemplateVersion.findUnique({ where: { templateId_version: { templateId, version } }, select: { design: true, status: true } }),
    prisma.passTemplateImage.findMany({ where: { templateId, version, name: LOGO_FILE }, select: { name: true, width: true, height: true } }),
  ]);
  return row?.status === 'processed' ? renderGoogleWalletClass(templateId, row.design as unknown as TemplateDesign, logoSizeOf(logo)) : null;
}

/** Marks the template's objects written with `from` as written with `to` (whose objects render the same), in one statement. */
export async function fastForwardObjects(prisma: PrismaExecutor, templateId: string, from: number, to: number): Promise<number> {
  return prisma.$executeRaw`
    UPDATE google_wallet_objects o SET design_version = ${to}
      FROM passes p
     WHERE p.id = o.pass_id AND p.template_id = ${templateId}::uuid AND o.body_hash IS NOT NULL AND o.design_version = ${from}`;
}
