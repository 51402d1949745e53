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
import type { GoogleWalletArtefact } from '../../wallet/google/walletClass.ts';
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
  sourceImages: { logo?: string | null; banner?: string | null };
  /** The version last written to Google, if any. */
  syncedVersion: number | null;
  /** The `callbackOptions.url` it was last written with (null: none, or never written). */
  syncedCallbackUrl: string | null;
}

/** What never changes of a processed version (its artefact and images), by `<template id>/<version>`. */
const versionParts = new LRUCache<string, Omit<ProcessedClassVersion, 'syncedVersion' | 'syncedCallbackUrl'>>({ max: 1000 });

/** The newest processed version of a template and what was written to Google of it (one query while the version's parts are cached). */
export async function selectClassVersion(prisma: PrismaExecutor, templateId: string): Promise<ProcessedClassVersion | null> {
  const latest = await queryRow<{ version: number; syncedVersion: number | null; syncedCallbackUrl: string | null }>(
    prisma,
    Prisma.sql`
    SELECT v.version, c.version AS synced_version, c.callback_url AS synced_callback_url
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
      prisma.passTemplateImage.findMany({ where: { templateId, version: latest.version }, select: { name: true } }),
      prisma.passTemplate.findUnique({ where: { id: templateId }, select: { images: true } }),
    ]);
    if (!version?.googleClass) return null;
    parts = {
      templateId,
      accountId: version.accountId,
      version: version.version,
      artefact: version.googleClass as unknown as GoogleWalletArtefact,
      imageNames: images.map((i) => i.name),
      sourceImages: (template?.images ?? {}) as ProcessedClassVersion['sourceImages'],
    };
    versionParts.set(key, parts);
  }
  return { ...parts, syncedVersion: latest.syncedVersion, syncedCallbackUrl: latest.syncedCallbackUrl };
}

/** Records that a template's class now holds a version. */
export async function recordClassSynced(
  prisma: PrismaExecutor,
  row: { templateId: string; accountId: string; classId: string; classType: string; version: number; callbackUrl: string | null },
  at: Date,
): Promise<void> {
  await prisma.googleWalletClass.upsert({
    where: { templateId: row.templateId },
    create: { ...row, syncedAt: at },
    update: { classId: row.classId, classType: row.classType, version: row.version, callbackUrl: row.callbackUrl, syncedAt: at },
  });
}

/** A pass as Google delivery reads it, with its object's record. */
export interface GooglePassSubject extends GooglePassData {
  accountId: string;
  latestMessage: string | null;
  /** The template's `notificationHeader` (read now: it changes without a new design version). */
  notificationHeader: string | null;
  object: { objectId: string; lastMessage: string | null; notifiedAt: Date[] } | null;
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
      ? { objectId: pass.googleWalletObject.objectId, lastMessage: pass.googleWalletObject.lastMessage, notifiedAt: pass.googleWalletObject.notifiedAt ?? [] }
      : null,
  };
}

/** Records a written object (inserted now, or patched). */
export async function recordObjectSynced(
  prisma: PrismaExecutor,
  row: { passId: string; accountId: string; objectId: string; objectType: string; lastMessage: string | null },
  at: Date,
): Promise<void> {
  await prisma.googleWalletObject.upsert({
    where: { passId: row.passId },
    create: { ...row, insertedAt: at, syncedAt: at, notifiedAt: [] },
    update: { objectId: row.objectId, objectType: row.objectType, syncedAt: at },
  });
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
