/**
 * The `google-object-rewrite` job: brings every Google Wallet object of a template to the
 * template's newest design, through Google's batch endpoint (`POST /batch`, `multipart/mixed`,
 * https://developers.google.com/wallet/generic/resources/batch-requests), within the issuer's
 * quota of 20 calls per second (each inner call counts: src/delivery/googleRateLimit.ts paces
 * them), once per object.
 *
 * Queued after a template's class is written for a new design version
 * (src/delivery/passTemplateProcessingJob.ts) when the template has objects, and at every worker
 * start for the templates whose class or objects were written before bodies were hashed: that run
 * is the one-time move of existing classes and objects to the class-level layout
 * (src/wallet/google/walletClass.ts). It first writes the class if it lags, then walks the
 * objects not written with the newest version, in pass id order, 10 to a batch request (a
 * batch's calls reach Google at once, and are paced 62.5 ms apart before it is sent, so no second
 * holds more than 20 of them): an object
 * whose body renders the same is only marked (no call; all of them in one statement when the two
 * versions give objects the same members, src/wallet/google/walletObject.ts `objectDesignHash`);
 * the others are patched in one batch request. A redesign of colours, images, links, layout or shared texts changes no object body,
 * so it costs the class PATCH alone; a label change, or any change of a `generic` or `storeCard`
 * template's title, logo, hero image or colour (members Google keeps on generic objects), costs
 * one inner call per object, 20 a second: 100,000 objects take about 1 h 44 min at the 16 calls/s
 * the service paces itself to.
 *
 * Progress is visible in the template's `processingWarnings`: `google_objects_pending` names how
 * many of the template's objects still show the previous design, removed when none is left.
 * Resumable: a run that died, or Google answering 429/5xx, leaves the objects already written
 * marked, and the retry goes on from the rest.
 *
 * @module delivery/googleObjectRewriteJob
 */
import type { Runtime } from '../deps.ts';
import { defineJob, RetryLater, type JobScope } from '../jobs/jobDefinition.ts';
import { recordAttempts, type AttemptRecord } from '../domain/deliveryAttempts/deliveryAttemptStore.ts';
import {
  countObjectsBehind,
  fastForwardObjects,
  recordObjectsRewritten,
  selectAccountIssuer,
  selectClassVersion,
  selectGooglePass,
  selectObjectsBehind,
  selectTemplatesToMigrate,
  selectVersionArtefact,
  selectVersionsBehind,
  type ObjectWritten,
} from '../domain/googleWallet/googleWalletStore.ts';
import { recordGoogleObjectsProgress, selectTemplateGoogleAccount } from '../domain/passTemplates/passTemplateStore.ts';
import { classifyGoogleResponse, type GoogleRequest } from '../wallet/google/client.ts';
import { issuerObject, jsonHash, objectDesignHash, passDataHash } from '../wallet/google/walletObject.ts';
import { syncGoogleClass, templateImageUrl } from './googleSync.ts';

/** Objects per batch request (each one inner call against the quota). */
export const OBJECTS_PER_BATCH = 10;

/** Batch requests per run; the rest goes to a new job, so a run stays within minutes. */
export const BATCHES_PER_RUN = 100;

/** The code of the progress warning in the template's `processingWarnings`. */
export const OBJECTS_PENDING_WARNING = 'google_objects_pending';

/**
 * Marks, in one statement per version, the objects written with an earlier version whose objects
 * render the same as `version`'s (a change of colours, images, links, layout or shared texts):
 * they need no call and no rendering one by one.
 */
async function fastForward(
  runtime: JobScope<Runtime>,
  templateId: string,
  version: { version: number; artefact: Parameters<typeof objectDesignHash>[0] },
): Promise<void> {
  const target = objectDesignHash(version.artefact);
  for (const from of await selectVersionsBehind(runtime.db.prisma, templateId, version.version)) {
    const artefact = await selectVersionArtefact(runtime.db.prisma, templateId, from);
    if (artefact && objectDesignHash(artefact) === target) await fastForwardObjects(runtime.db.prisma, templateId, from, version.version);
  }
}

/** Writes the progress warning (or removes it when nothing is left). */
async function recordProgress(runtime: JobScope<Runtime>, templateId: string, version: number): Promise<number> {
  const { behind, total } = await countObjectsBehind(runtime.db.prisma, templateId, version);
  await recordGoogleObjectsProgress(
    runtime.db.prisma,
    templateId,
    OBJECTS_PENDING_WARNING,
    behind
      ? {
          code: OBJECTS_PENDING_WARNING,
          detail: `${behind} of ${total} Google Wallet objects of this template still show its previous design; they are being rewritten in batches within Google's quota of 20 calls per second per issuer.`,
          pointer: '',
        }
      : null,
  );
  return behind;
}

/**
 * Rewrites one batch of the template's objects that lag behind `version`.
 * @returns How many objects it looked at (0: none is left) and whether Google asked to retry.
 */
async function rewriteBatch(
  runtime: JobScope<Runtime>,
  templateId: string,
  after: string | null,
  context: { jobId: string; attempt: number },
): Promise<{ seen: number; last: string | null; retry: string | null }> {
  const prisma = runtime.db.prisma;
  const version = await selectClassVersion(prisma, templateId);
  if (!version) return { seen: 0, last: null, retry: null };
  const ids = await selectObjectsBehind(prisma, templateId, version.version, after, OBJECTS_PER_BATCH);
  if (!ids.length) return { seen: 0, last: null, retry: null };
  const issuer = await selectAccountIssuer(prisma, runtime.secrets, version.accountId);
  if (!issuer) return { seen: 0, last: null, retry: null };
  const now = runtime.clock.now();
  const same: ({ passId: string } & ObjectWritten)[] = [];
  const send: { passId: string; written: ObjectWritten; request: GoogleRequest; objectId: string }[] = [];
  for (const passId of ids) {
    const pass = await selectGooglePass(prisma, passId);
    if (!pass?.object) continue;
    const resource = issuerObject(
      version.artefact,
      pass,
      { issuerId: issuer.issuerId, issuerName: issuer.issuerName, imageUrl: templateImageUrl(runtime, version) },
      now,
    );
    const written = { bodyHash: jsonHash(resource.body), dataHash: passDataHash(pass, now), designVersion: version.version };
    if (written.bodyHash === pass.object.bodyHash) same.push({ passId, ...written });
    else
      send.push({
        passId,
        written,
        objectId: resource.id,
        request: { method: 'PATCH', path: `/${resource.resource}/${encodeURIComponent(resource.id)}`, body: resource.body },
      });
  }
  const answers = await runtime.googleWallet.batch(
    issuer,
    send.map((s) => s.request),
  );
  // An object Google no longer has (404) is inserted again, alone.
  for (const [i, item] of send.entries()) {
    if (answers[i]?.status !== 404) continue;
    const resource = item.request.path.split('/')[1]!;
    answers[i] = await runtime.googleWallet.call(issuer, { method: 'POST', path: `/${resource}`, body: item.request.body });
  }
  const attempts: AttemptRecord[] = [];
  let retry: string | null = null;
  send.forEach((item, i) => {
    const answer = answers[i]!;
    const outcome = classifyGoogleResponse(answer.status);
    runtime.metrics.deliveryAttempts.inc({ channel: 'googleWallet', outcome });
    attempts.push({
      accountId: version.accountId,
      passId: item.passId,
      channel: 'googleWallet',
      target: item.objectId.slice(0, 255),
      operation: 'patchObject',
      outcome,
      status: answer.status,
      reason: answer.reason?.slice(0, 500) ?? null,
      jobId: context.jobId,
      attempt: context.attempt,
      batchId: null,
      at: now,
    });
    // Written; or refused as is (recorded, and left to the pass's next change rather than retried for ever).
    if (outcome === 'delivered') same.push({ passId: item.passId, ...item.written });
    else if (outcome === 'rejected') same.push({ passId: item.passId, ...item.written, bodyHash: '' });
    else retry ??= answer.reason ?? `HTTP ${answer.status}`;
  });
  await recordAttempts(prisma, attempts);
  await recordObjectsRewritten(prisma, same, now);
  return { seen: ids.length, last: ids[ids.length - 1]!, retry };
}

/**
 * The `google-object-rewrite` queue, one job per template at a time (`stately`, keyed by the
 * template). Retries back off from 5 s up to 10 minutes, 10 times; a job active for 10 minutes
 * belongs to a dead worker.
 */
export const googleObjectRewriteJob = defineJob<{ templateId: string }, Runtime>({
  name: 'google-object-rewrite',
  settings: {
    policy: 'stately',
    retryLimit: 10,
    retryDelay: 5,
    retryBackoff: true,
    retryDelayMax: 600,
    expireInSeconds: 600,
    deleteAfterSeconds: 7 * 24 * 3600,
    notify: true,
  },
  inFlight: ({ db }) => selectTemplatesToMigrate(db.prisma),
  singletonKey: ({ templateId }) => templateId,
  async run(job, runtime) {
    const { templateId } = job.data;
    const template = await selectTemplateGoogleAccount(runtime.db.prisma, templateId);
    if (!template?.google) return { templateId, result: 'notConfigured' };
    const classResult = await syncGoogleClass(runtime, templateId, template.accountId);
    if (classResult.outcome === 'retry')
      throw new RetryLater(`The Google Wallet class of template ${templateId} must be written again (${classResult.reason ?? 'no answer'}).`);
    if (classResult.outcome === 'rejected' || classResult.outcome === 'notProcessed') return { templateId, result: classResult.outcome };
    const version = await selectClassVersion(runtime.db.prisma, templateId);
    if (!version) return { templateId, result: 'notProcessed' };
    await fastForward(runtime, templateId, version);
    let after: string | null = null;
    let seen = 0;
    for (let batch = 0; batch < BATCHES_PER_RUN; batch++) {
      const result = await rewriteBatch(runtime, templateId, after, { jobId: job.id, attempt: job.retryCount + 1 });
      seen += result.seen;
      await recordProgress(runtime, templateId, version.version);
      if (result.retry) throw new RetryLater(`Google Wallet asked to retry the objects of template ${templateId} (${result.retry}).`);
      if (!result.seen) return { templateId, version: version.version, seen, finished: true };
      after = result.last;
    }
    await runtime.jobs.enqueue(googleObjectRewriteJob, job.data, { singletonKey: templateId });
    return { templateId, version: version.version, seen, finished: false };
  },
  async onLastAttemptFailed() {},
});
