/**
 * Processing of one design version of a pass template (PassEntry API reference: pass template processing rule 1), the work of the
 * `pass-template-processing` queue (its job: src/delivery/passTemplateProcessingJob.ts): check the design (validateDesign.ts), fetch its images and
 * draw them at Apple's sizes (src/wallet/templateImages.ts), render the Apple Wallet `pass.json`
 * skeleton with its localised strings and the Google Wallet class, and store them with the
 * version; with Google credentials, the job then writes the class to Google Wallet (inserted, or
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
 * @module domain/passTemplates/processPassTemplate
 */
import { contrastWarnings } from './colorContrast.ts';
import { glyphWarnings } from './glyphCoverage.ts';
import type { Runtime } from '../../deps.ts';
import { declareQueue } from '../../jobs/jobDefinition.ts';
import { renderApplePass } from '../../wallet/apple/passJson.ts';
import { logoSizeOf, renderGoogleWalletClass } from '../../wallet/google/walletClass.ts';
import type { TemplateDesign } from '../../wallet/templateDesign.ts';
import {
  appleImageRoles,
  drawBundleImages,
  loadImage,
  MAX_IMAGE_BYTES,
  TemplateImageError,
  type BundleImage,
  type ImageFetchOptions,
} from '../../wallet/templateImages.ts';
import { designOfVersion, recordVersionOutcome, selectVersion, type VersionOutcome } from './passTemplateStore.ts';
import { recordTemplateProcessed } from './passTemplateWebhooks.ts';
import { templateRefreshJob } from './templateRefreshJob.ts';
import { designProblems, type ProcessingError } from './validateDesign.ts';

/** The queue of design versions to process (its worker: src/delivery/passTemplateProcessingJob.ts). */
export const passTemplateProcessingQueue = declareQueue<{ templateId: string; version: number }>('pass-template-processing');

/** What happened to a version. */
export type ProcessingResult = 'processed' | 'failed' | 'already recorded' | 'gone';

/** How template images are fetched: the configuration's guard policy and time budget, and the runtime's resolver. */
export function imageFetchOptions({ config, resolveHost }: Pick<Runtime, 'config' | 'resolveHost'>): ImageFetchOptions {
  return {
    policy: { allowPrivate: config.imageFetchAllowPrivate, allowHttpLoopback: config.databaseUrl === undefined },
    resolve: resolveHost,
    timeoutMs: config.outboundTimeoutMs,
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
  runtime: Pick<Runtime, 'db' | 'config' | 'jobs' | 'resolveHost'>,
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
  if (!errors.length) ({ images, errors } = await bundleImages(design, imageFetchOptions(runtime)));
  const outcome: VersionOutcome = errors.length
    ? { status: 'failed', errors }
    : {
        status: 'processed',
        applePass: renderApplePass(design),
        googleClass: renderGoogleWalletClass(templateId, design, logoSizeOf(images)),
        images,
        warnings: [...contrastWarnings(design.colors), ...glyphWarnings(design)],
      };
  const recorded = await db.write(async (tx) => {
    if (!(await recordVersionOutcome(tx, templateId, version, outcome, now))) return false;
    // A new design of a template in use: its passes change (templateRefreshJob.ts).
    if (outcome.status === 'processed' && version > 1) await runtime.jobs.send(tx, templateRefreshJob, { templateId, version, processedAt: now.toISOString() });
    await recordTemplateProcessed(tx, runtime, templateId, version, now);
    return true;
  });
  return recorded ? outcome.status : 'already recorded';
}
