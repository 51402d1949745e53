/**
 * The rules of writing pass templates (spec §3 rules 1–2, §4.1, §4.4): a new template, or a
 * design change, is stored together with the job that processes it, in one transaction; a
 * change of the members applied at once is just stored.
 *
 * @module resources/passTemplates/passTemplateService
 */
import { randomUUID } from 'node:crypto';
import type { Database } from '../../db/database.ts';
import { NotFoundError } from '../../http/errors.ts';
import type { JobQueue } from '../../jobs/queue.ts';
import { designChanged, newTemplateContent, updatedTemplateContent, type PassTemplateCreate, type PassTemplateUpdate } from './design.ts';
import { contentOf, insertTemplate, lockAccountTemplate, updateTemplateContent, updateTemplateDesign, type PassTemplateRow } from './passTemplateStore.ts';

/** What a request needs to write templates. */
export interface TemplateWriter {
  db: Database;
  jobs: JobQueue;
}

/** The 404 of a template that does not exist in the caller's account. */
export function templateNotFound(id: string, parameter = 'id'): NotFoundError {
  return new NotFoundError(`No pass template with id ${id} exists.`, { parameter });
}

/**
 * Creates a template (defaults applied) and enqueues its processing, atomically.
 * @param input The validated `passTemplate` member of the request.
 * @returns The stored row, `processing`.
 */
export async function createTemplate({ db, jobs }: TemplateWriter, accountId: string, input: PassTemplateCreate): Promise<PassTemplateRow> {
  const content = newTemplateContent(input);
  const jobId = randomUUID();
  return db.prisma.$transaction(async (tx) => {
    const row = await insertTemplate(tx, accountId, content, jobId);
    await jobs.send(tx, 'pass-template-processing', { templateId: row.id, version: row.designVersion }, { id: jobId });
    return row;
  });
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
 * as it is. Concurrent updates of one template are serialised by a row lock.
 * @throws NotFoundError when the account has no such template; ValidationError for a
 *   `transitType` on a template that is not transit.
 */
export async function updateTemplate({ db, jobs }: TemplateWriter, accountId: string, id: string, patch: PassTemplateUpdate): Promise<TemplateUpdate> {
  return db.prisma.$transaction(async (tx) => {
    const current = await lockAccountTemplate(tx, accountId, id);
    if (!current) throw templateNotFound(id);
    const before = contentOf(current);
    const after = updatedTemplateContent(before, patch);
    if (!designChanged(before, after)) return { row: await updateTemplateContent(tx, id, after), reprocessing: false };
    const jobId = randomUUID();
    const row = await updateTemplateDesign(tx, current, after, jobId);
    await jobs.send(tx, 'pass-template-processing', { templateId: id, version: row.designVersion }, { id: jobId });
    return { row, reprocessing: true };
  });
}
