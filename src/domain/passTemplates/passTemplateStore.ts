/**
 * Database access for pass templates and their design versions. Every API read and write is
 * scoped to an account; the processing job reaches a version by template id and version, as
 * its payload names them.
 *
 * @module domain/passTemplates/passTemplateStore
 */
import type { PrismaClient, PrismaExecutor } from '../../db/database.ts';
import { NotFoundError } from '../../errors.ts';
import { Prisma, type PassTemplate, type PassTemplateVersion } from '../../../generated/prisma/client.ts';
import { pageWindow, type PageRequest } from '../../db/pagination.ts';
import { queryRow } from '../../db/rows.ts';
import type { TemplateDesign, TemplateType } from '../../wallet/templateDesign.ts';
import { designOf, TYPE_DETAIL_MEMBERS, type TemplateContent } from './templateContent.ts';
import type { ProcessingError } from './validateDesign.ts';
import type { ProcessingWarning } from './colorContrast.ts';
import type { BundleImage } from '../../wallet/templateImages.ts';

export type PassTemplateRow = PassTemplate;
export type PassTemplateVersionRow = PassTemplateVersion;

const json = (value: unknown) => value as Prisma.InputJsonValue;

/** The columns of a content (JSONB members as stored, in the contract's shapes). */
function contentColumns(content: TemplateContent) {
  return {
    name: content.name,
    applePassTypeIdentifier: content.applePassTypeIdentifier,
    description: content.description,
    notificationHeader: content.notificationHeader,
    templateType: content.templateType,
    transitType: content.transitType,
    defaultLanguage: content.defaultLanguage,
    centralTitle: content.centralTitle,
    colors: json(content.colors),
    images: json(content.images),
    fields: json(content.fields),
    appLinking: json(content.appLinking),
    barcode: json(content.barcode),
    locations: json(content.locations),
    beacons: json(content.beacons),
    typeDetails: typeDetailsColumn(content),
  };
}

/** The kind's own members that are set, as the `type_details` column holds them (null: none). */
function typeDetailsColumn(content: TemplateContent): Prisma.InputJsonValue | typeof Prisma.DbNull {
  const details = Object.fromEntries(TYPE_DETAIL_MEMBERS.flatMap((key) => (content[key] ? [[key, content[key]]] : [])));
  return Object.keys(details).length ? json(details) : Prisma.DbNull;
}

/** The content of a stored template. */
export function contentOf(row: PassTemplateRow): TemplateContent {
  const details = (row.typeDetails ?? {}) as Partial<Pick<TemplateContent, (typeof TYPE_DETAIL_MEMBERS)[number]>>;
  return {
    name: row.name,
    applePassTypeIdentifier: row.applePassTypeIdentifier,
    description: row.description,
    notificationHeader: row.notificationHeader,
    templateType: row.templateType,
    transitType: row.transitType,
    defaultLanguage: row.defaultLanguage as TemplateContent['defaultLanguage'],
    centralTitle: row.centralTitle,
    colors: row.colors as unknown as TemplateContent['colors'],
    images: row.images as unknown as TemplateContent['images'],
    fields: row.fields as unknown as TemplateContent['fields'],
    appLinking: row.appLinking as unknown as TemplateContent['appLinking'],
    barcode: row.barcode as unknown as TemplateContent['barcode'],
    locations: row.locations as unknown as TemplateContent['locations'],
    beacons: row.beacons as unknown as TemplateContent['beacons'],
    eventDetails: details.eventDetails ?? null,
    offerDetails: details.offerDetails ?? null,
    giftCardDetails: details.giftCardDetails ?? null,
  };
}

/** The processing warnings of a processed template's current design (contract `PassTemplateProcessingWarning`), empty for none. */
export function processingWarningsOf(row: { processingWarnings: Prisma.JsonValue | null }): ProcessingWarning[] {
  return (row.processingWarnings as unknown as ProcessingWarning[] | null) ?? [];
}

/** The processing errors of a failed template (empty otherwise). */
export function processingErrorsOf(row: { processingErrors: Prisma.JsonValue | null }): ProcessingError[] {
  return (row.processingErrors as unknown as ProcessingError[] | null) ?? [];
}

/** The 404 of a template that does not exist in the caller's account. */
export function templateNotFound(id: string, parameter = 'id'): NotFoundError {
  return new NotFoundError(`No pass template with id ${id} exists.`, { parameter });
}

/**
 * Creates a template at design version 1, processing, with its version row.
 * @param jobId The id of the processing job the caller enqueues in the same transaction.
 */
export async function insertTemplate(tx: PrismaExecutor, accountId: string, content: TemplateContent, jobId: string): Promise<PassTemplateRow> {
  const row = await tx.passTemplate.create({ data: { accountId, ...contentColumns(content) } });
  await tx.passTemplateVersion.create({ data: { templateId: row.id, version: row.designVersion, accountId, design: json(designOf(content)), jobId } });
  return row;
}

/**
 * One template of an account, locked against concurrent updates until the transaction ends
 * (`SELECT … FOR UPDATE`), or null (also for another account's template).
 */
export async function lockAccountTemplate(tx: PrismaExecutor, accountId: string, id: string): Promise<PassTemplateRow | null> {
  const locked = await tx.$queryRaw<{ id: string }[]>`SELECT id FROM pass_templates WHERE id = ${id}::uuid AND account_id = ${accountId}::uuid FOR UPDATE`;
  return locked.length ? tx.passTemplate.findUniqueOrThrow({ where: { id } }) : null;
}

/** Stores a change of the members applied at once (name, description, notificationHeader). */
export function updateTemplateContent(tx: PrismaExecutor, id: string, content: TemplateContent): Promise<PassTemplateRow> {
  return tx.passTemplate.update({ where: { id }, data: contentColumns(content) });
}

/**
 * Stores a design change: the content, the next design version (processing, errors cleared) and
 * its version row.
 * @param jobId The id of the processing job the caller enqueues in the same transaction.
 */
export async function updateTemplateDesign(tx: PrismaExecutor, row: PassTemplateRow, content: TemplateContent, jobId: string): Promise<PassTemplateRow> {
  const version = row.designVersion + 1;
  const updated = await tx.passTemplate.update({
    where: { id: row.id },
    data: {
      ...contentColumns(content),
      designVersion: version,
      processingStatus: 'processing',
      processingErrors: Prisma.DbNull,
      processingWarnings: Prisma.DbNull,
    },
  });
  await tx.passTemplateVersion.create({ data: { templateId: row.id, version, accountId: row.accountId, design: json(designOf(content)), jobId } });
  return updated;
}

/** One template of an account, or null (also for another account's template); also inside a transaction. */
export function selectAccountTemplate(prisma: PrismaExecutor, accountId: string, id: string): Promise<PassTemplateRow | null> {
  return prisma.passTemplate.findFirst({ where: { id, accountId } });
}

/**
 * Sets a template's `archivedAt` (null: not archived); an archived template keeps the time it
 * was first archived.
 * @returns The template as it is now, or null when the account has no such template.
 */
export async function updateTemplateArchivedAt(tx: PrismaExecutor, accountId: string, id: string, at: Date | null): Promise<PassTemplateRow | null> {
  await tx.passTemplate.updateMany({ where: { id, accountId, ...(at ? { archivedAt: null } : {}) }, data: { archivedAt: at } });
  return selectAccountTemplate(tx, accountId, id);
}

/**
 * A page of an account's templates, oldest first, optionally of one type, and the total count:
 * those not archived, or (`archived`) only the archived ones.
 */
export async function selectTemplatePage(prisma: PrismaClient, accountId: string, templateType: TemplateType | undefined, page: PageRequest, archived = false) {
  const where = { accountId, archivedAt: archived ? { not: null } : null, ...(templateType ? { templateType } : {}) };
  const [rows, total] = await Promise.all([
    prisma.passTemplate.findMany({ where, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }], ...pageWindow(page) }),
    prisma.passTemplate.count({ where }),
  ]);
  return { rows, total };
}

/** A design version, or null when it does not exist (its template was deleted). */
export function selectVersion(prisma: PrismaClient, templateId: string, version: number): Promise<PassTemplateVersionRow | null> {
  return prisma.passTemplateVersion.findUnique({ where: { templateId_version: { templateId, version } } });
}

/** Every version still `processing`, of any account (the work in flight of the processing queue). */
export function selectProcessingVersions(prisma: PrismaClient): Promise<{ templateId: string; version: number }[]> {
  return prisma.passTemplateVersion.findMany({ where: { status: 'processing' }, select: { templateId: true, version: true } });
}

/** The design snapshot of a version. */
export function designOfVersion(row: PassTemplateVersionRow): TemplateDesign {
  return row.design as unknown as TemplateDesign;
}

/** The outcome of processing one version. */
export type VersionOutcome =
  | { status: 'processed'; applePass: unknown; googleClass: unknown; images: BundleImage[]; warnings: ProcessingWarning[] }
  | { status: 'failed'; errors: ProcessingError[] };

/**
 * Records the outcome of a version, once, with its images: only a version still `processing` is written, so a
 * second run of the same job changes nothing. The template takes the outcome only while the
 * version is its current one (a newer design has its own job).
 * @returns Whether this call recorded the outcome (false when it was recorded before).
 */
export async function recordVersionOutcome(
  tx: PrismaExecutor,
  templateId: string,
  version: number,
  outcome: VersionOutcome,
  processedAt: Date,
): Promise<boolean> {
  const errors = outcome.status === 'failed' ? json(outcome.errors) : Prisma.DbNull;
  const { count } = await tx.passTemplateVersion.updateMany({
    where: { templateId, version, status: 'processing' },
    data:
      outcome.status === 'processed'
        ? { status: 'processed', applePass: json(outcome.applePass), googleClass: json(outcome.googleClass), processedAt }
        : { status: 'failed', errors, processedAt },
  });
  if (count === 0) return false;
  if (outcome.status === 'processed' && outcome.images.length) {
    const { accountId } = await tx.passTemplate.findUniqueOrThrow({ where: { id: templateId }, select: { accountId: true } });
    await tx.passTemplateImage.createMany({
      data: outcome.images.map((image) => ({
        templateId,
        version,
        accountId,
        name: image.name,
        png: new Uint8Array(image.png),
        width: image.width,
        height: image.height,
      })),
    });
  }
  await tx.passTemplate.updateMany({
    where: { id: templateId, designVersion: version },
    data: {
      processingStatus: outcome.status,
      processingErrors: errors,
      processingWarnings: outcome.status === 'processed' && outcome.warnings.length ? json(outcome.warnings) : Prisma.DbNull,
    },
  });
  return true;
}

/** The processed images of a version (bundle file name → PNG). */
export async function selectVersionImages(prisma: PrismaExecutor, templateId: string, version: number): Promise<Map<string, Uint8Array>> {
  const rows = await prisma.passTemplateImage.findMany({ where: { templateId, version }, select: { name: true, png: true }, orderBy: { name: 'asc' } });
  return new Map(rows.map((row) => [row.name, row.png]));
}

/**
 * The newest processed version of a template: what its passes are built from (while a newer
 * design is processing, passes keep the last processed one).
 * @returns The version row, or null when none is processed.
 */
export function selectLatestProcessedVersion(prisma: PrismaExecutor, templateId: string): Promise<PassTemplateVersionRow | null> {
  return prisma.passTemplateVersion.findFirst({ where: { templateId, status: 'processed' }, orderBy: { version: 'desc' } });
}

/**
 * The Apple pass type a template's passes are signed with: the template's own, else its account's
 * first Apple configuration's (by creation); null when neither exists or the template is gone.
 */
export async function selectSigningPassTypeIdentifier(prisma: PrismaExecutor, templateId: string): Promise<string | null> {
  const row = await queryRow<{ passTypeIdentifier: string | null }>(
    prisma,
    Prisma.sql`
      SELECT COALESCE(t.apple_pass_type_identifier,
                      (SELECT pass_type_identifier FROM apple_configurations c WHERE c.account_id = t.account_id ORDER BY created_at, id LIMIT 1))
               AS pass_type_identifier
        FROM pass_templates t WHERE t.id = ${templateId}::uuid`,
  );
  return row?.passTypeIdentifier ?? null;
}

/** A template's account and whether the account has Google credentials; undefined when the template is gone. */
export function selectTemplateGoogleAccount(prisma: PrismaExecutor, templateId: string): Promise<{ accountId: string; google: boolean } | undefined> {
  return queryRow<{ accountId: string; google: boolean }>(
    prisma,
    Prisma.sql`
      SELECT t.account_id::text AS account_id, EXISTS (SELECT 1 FROM google_configurations g WHERE g.account_id = t.account_id) AS google
        FROM pass_templates t WHERE t.id = ${templateId}::uuid`,
  );
}

/**
 * Replaces the warning with code `code` in a template's `processingWarnings` by `warning` (none:
 * removed), keeping the others (progress of work after processing, e.g. the Google Wallet
 * objects still to rewrite: src/delivery/googleObjectRewriteJob.ts).
 */
export async function recordGoogleObjectsProgress(prisma: PrismaExecutor, templateId: string, code: string, warning: ProcessingWarning | null): Promise<void> {
  const added = JSON.stringify(warning ? [warning] : []);
  await prisma.$executeRaw`
    UPDATE pass_templates
       SET processing_warnings = NULLIF(
             COALESCE((SELECT jsonb_agg(w) FROM jsonb_array_elements(COALESCE(processing_warnings, '[]'::jsonb)) AS w WHERE w->>'code' <> ${code}), '[]'::jsonb)
               || ${added}::jsonb,
             '[]'::jsonb)
     WHERE id = ${templateId}::uuid AND processing_status = 'processed'`;
}
