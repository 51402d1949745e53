/**
 * Processing of one design version of a pass template (spec §3 rule 1), the handler of the
 * `pass-template-processing` queue: check the design (validateDesign.ts), render the Apple Wallet
 * `pass.json` skeleton with its localised strings and the Google Wallet class, and store them
 * with the version. The template then shows the full variant — or `failed` with
 * `processingErrors`.
 *
 * Idempotent: a version's design is an immutable snapshot, checking and rendering are pure
 * functions of it (and of the template id), and the outcome is written only while the version
 * is still `processing`. A job that runs twice (a worker died after writing, before pg-boss
 * heard of it) therefore finds the outcome recorded and changes nothing; it can never record a
 * different one. A version that is no longer the template's current one is still processed
 * (its artefacts are kept) but leaves the template to its newer version's job.
 *
 * @module resources/passTemplates/processPassTemplate
 */
import type { Database } from '../../db/database.ts';
import type { Clock } from '../../http/operation.ts';
import type { JobHandler } from '../../jobs/queue.ts';
import type { Logger } from '../../logger.ts';
import { renderApplePass } from '../../wallet/applePass.ts';
import { renderGoogleWalletClass } from '../../wallet/googleWalletClass.ts';
import { designOfVersion, recordVersionOutcome, selectVersion, type VersionOutcome } from './passTemplateStore.ts';
import { designProblems } from './validateDesign.ts';

/** What happened to a version. */
export type ProcessingResult = 'processed' | 'failed' | 'already recorded' | 'gone';

/**
 * Processes one version.
 * @returns `processed` or `failed` when this call recorded that outcome; `already recorded` when
 *   an earlier run did; `gone` when the version no longer exists (its template was deleted).
 * @throws Database errors (the job is then retried).
 */
export async function processTemplateVersion(db: Database, templateId: string, version: number, now: Date): Promise<ProcessingResult> {
  const row = await selectVersion(db.prisma, templateId, version);
  if (!row) return 'gone';
  if (row.status !== 'processing') return 'already recorded';
  const design = designOfVersion(row);
  const errors = designProblems(design);
  const outcome: VersionOutcome = errors.length
    ? { status: 'failed', errors }
    : { status: 'processed', applePass: renderApplePass(design), googleClass: renderGoogleWalletClass(templateId, design) };
  return (await recordVersionOutcome(db.prisma, templateId, version, outcome, now)) ? outcome.status : 'already recorded';
}

/**
 * The queue handler. An unexpected error fails the attempt and pg-boss retries it; on the last
 * attempt the version is recorded as failed with `internal_error` instead, so that a template
 * never stays `processing` for ever.
 */
export function passTemplateProcessingHandler(deps: { db: Database; logger: Logger; clock: Clock }): JobHandler<'pass-template-processing'> {
  return async (job) => {
    const { templateId, version } = job.data;
    const log = deps.logger.child({ jobId: job.id, templateId, version });
    try {
      const result = await processTemplateVersion(deps.db, templateId, version, deps.clock.now());
      log.info({ result }, 'pass template version processed');
    } catch (error) {
      if (job.retryCount < job.retryLimit) {
        log.warn({ err: error, attempt: job.retryCount + 1 }, 'pass template processing failed; it will be retried');
        throw error;
      }
      log.error({ err: error }, 'pass template processing failed on its last attempt');
      const outcome: VersionOutcome = {
        status: 'failed',
        errors: [{ code: 'internal_error', detail: 'The template could not be processed. Update its design to try again.', pointer: '' }],
      };
      await recordVersionOutcome(deps.db.prisma, templateId, version, outcome, deps.clock.now());
    }
  };
}
