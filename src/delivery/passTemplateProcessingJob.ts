/**
 * The `pass-template-processing` job: processes one design version of a template
 * (src/domain/passTemplates/processPassTemplate.ts) and then, with Google credentials, writes the
 * template's Google Wallet class (src/delivery/googleSync.ts), then, when the template has Google
 * objects the new design leaves behind, queues their rewrite (src/delivery/googleObjectRewriteJob.ts).
 *
 * @module delivery/passTemplateProcessingJob
 */
import type { Runtime } from '../deps.ts';
import { processTemplateVersion, passTemplateProcessingQueue } from '../domain/passTemplates/processPassTemplate.ts';
import { recordVersionOutcome, selectProcessingVersions, selectTemplateGoogleAccount, type VersionOutcome } from '../domain/passTemplates/passTemplateStore.ts';
import { recordTemplateProcessed } from '../domain/passTemplates/passTemplateWebhooks.ts';
import { defineJob, RetryLater, type JobScope } from '../jobs/jobDefinition.ts';
import { syncGoogleClass } from './googleSync.ts';
import { googleObjectRewriteJob } from './googleObjectRewriteJob.ts';
import { countObjectsBehind } from '../domain/googleWallet/googleWalletStore.ts';

/**
 * Writes the template's newest processed design to its Google Wallet class when the account has
 * Google credentials (src/delivery/googleSync.ts). A refusal is logged (a pass's sync tries the
 * class again); no answer, 429 or 5xx fail the job, which is retried.
 * @throws RetryLater when Google must be asked again.
 */
async function writeGoogleClass(runtime: JobScope<Runtime>, templateId: string): Promise<string> {
  const template = await selectTemplateGoogleAccount(runtime.db.prisma, templateId);
  if (!template) return 'gone';
  if (!template.google) return 'notConfigured';
  const result = await syncGoogleClass(runtime, templateId, template.accountId);
  if (result.outcome === 'retry')
    throw new RetryLater(`The Google Wallet class of template ${templateId} must be written again (${result.reason ?? 'no answer'}).`);
  if (result.outcome === 'rejected') runtime.log.warn({ templateId, reason: result.reason }, "Google Wallet refused the template's class");
  if (result.outcome === 'delivered' || result.outcome === 'nothingToDo') {
    const latest = await runtime.db.prisma.googleWalletClass.findUnique({ where: { templateId }, select: { version: true } });
    if (latest && (await countObjectsBehind(runtime.db.prisma, templateId, latest.version)).behind)
      await runtime.jobs.enqueue(googleObjectRewriteJob, { templateId }, { singletonKey: templateId });
  }
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
  name: passTemplateProcessingQueue.name,
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
