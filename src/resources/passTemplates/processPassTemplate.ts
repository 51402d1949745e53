/**
 * Processing of one design version of a pass template (PassEntry API reference: pass template processing rule 1), the handler of the
 * `pass-template-processing` queue: check the design (validateDesign.ts), fetch its images and
 * draw them at Apple's sizes (src/wallet/templateImages.ts), render the Apple Wallet `pass.json`
 * skeleton with its localised strings and the Google Wallet class, and store them with the
 * version; with Google credentials, the class is then written to Google Wallet (inserted, or
 * patched with the new version). The template then shows the full variant — or `failed` with
 * `processingErrors`.
 *
 * Idempotent: a version's design is an immutable snapshot, checking and rendering are pure
 * functions of it (and of the template id; the images of its URLs are fetched again by a second
 * run, but only the first outcome is written), and the outcome is written only while the version
 * is still `processing`. A job that runs twice (a worker died after writing, before pg-boss
 * heard of it) therefore finds the outcome recorded and changes nothing; it can never record a
 * different one. A version that is no longer the template's current one is still processed
 * (its artefacts are kept) but leaves the template to its newer version's job.
 *
 * @module resources/passTemplates/processPassTemplate
 */
import { RetryLater } from '../../delivery/passChanged.ts';
import { syncGoogleClass } from '../../delivery/googleSync.ts';
import { defineJob, type JobScope } from '../../jobs/jobDefinition.ts';
import type { Runtime } from '../../runtime.ts';
import { renderApplePass } from '../../wallet/applePass.ts';
import { renderGoogleWalletClass } from '../../wallet/googleWalletClass.ts';
import type { TemplateDesign } from '../../wallet/templateDesign.ts';
import { appleImageRoles, drawBundleImages, loadImage, MAX_IMAGE_BYTES, TemplateImageError, type BundleImage, type ImageFetchOptions } from '../../wallet/templateImages.ts';
import { designOfVersion, recordVersionOutcome, selectProcessingVersions, selectVersion, type VersionOutcome } from './passTemplateStore.ts';
import { recordTemplateProcessed } from './passTemplateWebhooks.ts';
import { templateRefreshJob } from './refreshTemplatePasses.ts';
import { designProblems, type ProcessingError } from './validateDesign.ts';

/** What happened to a version. */
export type ProcessingResult = 'processed' | 'failed' | 'already recorded' | 'gone';

/** How template images are fetched, from the configuration. */
export function imageFetchOptions(config: Runtime['config']): ImageFetchOptions {
  return {
    policy: { allowPrivate: config.imageFetchAllowPrivate, allowHttpLoopback: config.databaseUrl === undefined },
    timeoutMs: 10_000,
    maxBytes: MAX_IMAGE_BYTES,
    maxRedirects: 3,
  };
}

/**
 * Fetches and draws the design's images (icon, logo, strip) at 1x, 2x and 3x, all at once.
 * @returns The bundle images, or the processing errors of the images that failed (one each,
 *   pointing at the template member).
 */
async function bundleImages(design: TemplateDesign, options: ImageFetchOptions): Promise<{ images: BundleImage[]; errors: ProcessingError[] }> {
  const results = await Promise.all(
    appleImageRoles(design).map(async ({ member, role, box }) => {
      try {
        return { images: await drawBundleImages(await loadImage(design.images[member]!, options), role, box) };
      } catch (error) {
        if (!(error instanceof TemplateImageError)) throw error;
        return { error: { code: error.code, detail: `images.${member}: ${error.message}`, pointer: `/images/${member}` } satisfies ProcessingError };
      }
    }),
  );
  return { images: results.flatMap((r) => r.images ?? []), errors: results.flatMap((r) => (r.error ? [r.error] : [])) };
}

/**
 * Processes one version: checks the design, fetches and draws its images, renders the Apple and
 * Google artefacts, and records the outcome with the images — and, for a processed version after
 * the first, queues the refresh of the template's passes in the same transaction.
 * @returns `processed` or `failed` when this call recorded that outcome; `already recorded` when
 *   an earlier run did; `gone` when the version no longer exists (its template was deleted).
 * @throws Database errors (the job is then retried).
 */
export async function processTemplateVersion(
  runtime: Pick<Runtime, 'db' | 'config' | 'jobs'>,
  templateId: string,
  version: number,
  now: Date,
): Promise<ProcessingResult> {
  const { db } = runtime;
  const row = await selectVersion(db.prisma, templateId, version);
  if (!row) return 'gone';
  if (row.status !== 'processing') return 'already recorded';
  const design = designOfVersion(row);
  let errors = designProblems(design);
  let images: BundleImage[] = [];
  if (!errors.length) ({ images, errors } = await bundleImages(design, imageFetchOptions(runtime.config)));
  const outcome: VersionOutcome = errors.length
    ? { status: 'failed', errors }
    : { status: 'processed', applePass: renderApplePass(design), googleClass: renderGoogleWalletClass(templateId, design), images };
  const recorded = await db.write(async (tx) => {
    if (!(await recordVersionOutcome(tx, templateId, version, outcome, now))) return false;
    // A new design of a template in use: its passes change (refreshTemplatePasses.ts).
    if (outcome.status === 'processed' && version > 1) await runtime.jobs.send(tx, templateRefreshJob, { templateId, version, processedAt: now.toISOString() });
    await recordTemplateProcessed(tx, runtime, templateId, version, now);
    return true;
  });
  return recorded ? outcome.status : 'already recorded';
}

/**
 * Writes the template's newest processed design to its Google Wallet class when the account has
 * Google credentials (src/delivery/googleSync.ts). A refusal is logged (a pass's sync tries the
 * class again); no answer, 429 or 5xx fail the job, which is retried.
 * @throws RetryLater when Google must be asked again.
 */
async function writeGoogleClass(runtime: JobScope<Runtime>, templateId: string): Promise<string> {
  const [template] = await runtime.db.prisma.$queryRaw<{ accountId: string; google: boolean }[]>`
    SELECT t.account_id::text AS "accountId", EXISTS (SELECT 1 FROM google_configurations g WHERE g.account_id = t.account_id) AS google
      FROM pass_templates t WHERE t.id = ${templateId}::uuid`;
  if (!template) return 'gone';
  if (!template.google) return 'notConfigured';
  const result = await syncGoogleClass(runtime, templateId, template.accountId);
  if (result.outcome === 'retry') throw new RetryLater(`The Google Wallet class of template ${templateId} must be written again (${result.reason ?? 'no answer'}).`);
  if (result.outcome === 'rejected') runtime.log.warn({ templateId, reason: result.reason }, 'Google Wallet refused the template\'s class');
  return result.outcome;
}

/** The outcome recorded when every attempt failed: the template shows `failed` with `internal_error`. */
const GAVE_UP: VersionOutcome = {
  status: 'failed',
  errors: [{ code: 'internal_error', detail: 'The template could not be processed. Update its design to try again.', pointer: '' }],
};

/**
 * The `pass-template-processing` queue: one job per design version, enqueued in the transaction
 * that stores the version. Processing takes milliseconds, so a job active for 60 s belongs to a
 * dead worker and is retried; transient failures (the database away) retry up to 4 times with
 * exponential back-off from 1 s; after the last attempt the version is recorded `failed` with
 * `internal_error`, so that a template never stays `processing` for ever. Finished jobs are kept
 * 7 days for inspection. A worker takes up to 10 jobs at once, so a burst of new templates is
 * processed back to back; at start, every version still `processing` gets a job (processing is
 * idempotent), so a version whose worker was killed is processed within seconds of the restart.
 */
export const passTemplateProcessingJob = defineJob<{ templateId: string; version: number }, Runtime>({
  name: 'pass-template-processing',
  settings: { retryLimit: 4, retryDelay: 1, retryBackoff: true, expireInSeconds: 60, deleteAfterSeconds: 7 * 24 * 3600, notify: true, batchSize: 10 },
  inFlight: ({ db }) => selectProcessingVersions(db.prisma),
  async run({ data: { templateId, version } }, runtime) {
    const { clock } = runtime;
    const result = await processTemplateVersion(runtime, templateId, version, clock.now());
    if (result === 'gone' || result === 'failed') return { templateId, version, result };
    return { templateId, version, result, google: await writeGoogleClass(runtime, templateId) };
  },
  async onLastAttemptFailed({ data: { templateId, version } }, _error, runtime) {
    const now = runtime.clock.now();
    await runtime.db.write(async (tx) => {
      if (await recordVersionOutcome(tx, templateId, version, GAVE_UP, now)) await recordTemplateProcessed(tx, runtime, templateId, version, now);
    });
  },
});
