/**
 * The rules of writing pass templates (PassEntry API reference: pass template processing; Create a pass template; Update a pass template): a new template, or a
 * design change, is stored together with the job that processes it, in one transaction; a
 * change of the members applied at once is just stored.
 *
 * @module domain/passTemplates/passTemplateService
 */
import { randomUUID } from 'node:crypto';
import type { PrismaExecutor } from '../../db/database.ts';
import type { JobQueue } from '../../jobs/queue.ts';
import { passTemplateProcessingQueue } from './processPassTemplate.ts';
import {
  designChanged,
  newTemplateContent,
  updatedTemplateContent,
  type PassTemplateCreate,
  type PassTemplateUpdate,
  type TemplateContent,
} from './templateContent.ts';
import {
  contentOf,
  insertTemplate,
  lockAccountTemplate,
  selectAccountTemplate,
  templateNotFound,
  updateTemplateArchivedAt,
  updateTemplateContent,
  updateTemplateDesign,
  type PassTemplateRow,
} from './passTemplateStore.ts';

/**
 * Creates a template (defaults applied) and enqueues its processing, in the caller's transaction.
 * @param input The validated `passTemplate` member of the request.
 * @returns The stored row, `processing`.
 */
export function createTemplate(tx: PrismaExecutor, jobs: JobQueue, accountId: string, input: PassTemplateCreate): Promise<PassTemplateRow> {
  return insertProcessing(tx, jobs, accountId, newTemplateContent(input));
}

/** Stores a new template of `content` with the job that processes it. */
async function insertProcessing(tx: PrismaExecutor, jobs: JobQueue, accountId: string, content: TemplateContent): Promise<PassTemplateRow> {
  const jobId = randomUUID();
  const row = await insertTemplate(tx, accountId, content, jobId);
  await jobs.send(tx, passTemplateProcessingQueue, { templateId: row.id, version: row.designVersion }, { id: jobId });
  return row;
}

/** The most characters of a template's name (the contract's PassTemplateName). */
const NAME_MAX = 100;
/** What the default name of a copy ends with. */
const COPY_SUFFIX = ' (copy)';

/**
 * Creates a copy of a template (duplicatePassTemplate): its whole content under a new name
 * (`name`, else "<name> (copy)", the name cut so that the whole has at most {@link NAME_MAX} characters), processed as a new template.
 * @returns The copy, `processing`.
 * @throws NotFoundError (parameter `id`) when the account has no such template.
 */
export async function duplicateTemplate(tx: PrismaExecutor, jobs: JobQueue, accountId: string, id: string, name?: string): Promise<PassTemplateRow> {
  const source = await selectAccountTemplate(tx, accountId, id);
  if (!source) throw templateNotFound(id);
  const copyName = name ?? `${[...source.name].slice(0, NAME_MAX - COPY_SUFFIX.length).join('')}${COPY_SUFFIX}`;
  return insertProcessing(tx, jobs, accountId, { ...contentOf(source), name: copyName });
}

/**
 * Archives (`at`) or unarchives (null) a template (archivePassTemplate, unarchivePassTemplate):
 * an archived one keeps the time it was first archived.
 * @returns The template as it is now.
 * @throws NotFoundError (parameter `id`) when the account has no such template.
 */
export async function setTemplateArchived(tx: PrismaExecutor, accountId: string, id: string, at: Date | null): Promise<PassTemplateRow> {
  const row = await updateTemplateArchivedAt(tx, accountId, id, at);
  if (!row) throw templateNotFound(id);
  return row;
}

/** What an update did. */
export interface TemplateUpdate {
  row: PassTemplateRow;
  /** True when the design changed: a new version is processing (202); false: applied at once (200). */
  reprocessing: boolean;
}

/**
 * Applies a partial update (RFC 7396 merge, see design.ts). A design change stores the next
 * design version and enqueues its processing in the same transaction; anything else is stored
 * as it is, in the caller's transaction. Concurrent updates of one template are serialised by a
 * row lock.
 * @throws NotFoundError when the account has no such template; ValidationError for a
 *   `transitType` on a template that is not transit.
 */
export async function updateTemplate(tx: PrismaExecutor, jobs: JobQueue, accountId: string, id: string, patch: PassTemplateUpdate): Promise<TemplateUpdate> {
  const current = await lockAccountTemplate(tx, accountId, id);
  if (!current) throw templateNotFound(id);
  const before = contentOf(current);
  const after = updatedTemplateContent(before, patch);
  if (!designChanged(before, after)) return { row: await updateTemplateContent(tx, id, after), reprocessing: false };
  const jobId = randomUUID();
  const row = await updateTemplateDesign(tx, current, after, jobId);
  await jobs.send(tx, passTemplateProcessingQueue, { templateId: id, version: row.designVersion }, { id: jobId });
  return { row, reprocessing: true };
}
