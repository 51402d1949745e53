/**
 * A template's new design reaches the passes already issued from it. A pass is built from the
 * newest processed version of its template (passTemplateStore.ts, `selectLatestProcessedVersion`),
 * so once a new design version is processed every pass of the template looks different: each
 * must be marked updated — its `updated_at` is what the Apple web service's "serial numbers
 * updated since" list and `Last-Modified` / `If-Modified-Since` answer from — and pushed to the
 * devices it is installed on, or Wallet would go on showing the old design (Apple: "Updating a
 * pass", https://developer.apple.com/documentation/walletpasses/adding-a-web-service-to-update-passes).
 *
 * The `pass-template-refresh` job is queued in the transaction that records the processed
 * version (processPassTemplate.ts). It marks the passes chunk by chunk, each chunk in its own
 * transaction that also announces them as `redesigned` pass changes (src/domain/passes/passChanges.ts:
 * their wallets hear of it). A pass counts as done once its `updated_at` is
 * at or after the version's processing time, so a run that died part way, or a second run, goes
 * on with the passes not marked yet and marks none twice; a pass changed for another reason
 * after that time already shows the new design.
 *
 * @module domain/passTemplates/templateRefreshJob
 */
import { announcePassChanges } from '../passes/passChanges.ts';
import { touchTemplatePasses } from '../passes/passStore.ts';
import { defineJob } from '../../jobs/jobDefinition.ts';
import type { Runtime } from '../../deps.ts';

/** Passes marked per chunk transaction. */
export const REFRESH_CHUNK_SIZE = 1000;

/** Chunks per run; the rest goes to a new job, so a run stays within seconds. */
export const REFRESH_CHUNKS_PER_RUN = 50;

/** The job's payload: the processed version and when it was processed (ISO 8601). */
export interface TemplateRefresh {
  templateId: string;
  version: number;
  processedAt: string;
}

/**
 * Marks up to `chunkSize` passes of the template that are older than the version as updated now,
 * and announces them `redesigned` (their wallets hear of it), in one transaction.
 * @returns How many passes it marked (0: none is left).
 */
export async function refreshChunk({ db, clock }: Pick<Runtime, 'db' | 'clock'>, refresh: TemplateRefresh, chunkSize = REFRESH_CHUNK_SIZE): Promise<number> {
  return db.write(async (tx) => {
    const rows = await touchTemplatePasses(tx, refresh.templateId, new Date(refresh.processedAt), clock.now(), chunkSize);
    if (rows.length)
      await announcePassChanges(
        tx,
        { accountId: rows[0]!.accountId, kind: 'redesigned', at: clock.now() },
        rows.map((row) => row.id),
      );
    return rows.length;
  });
}

/**
 * The `pass-template-refresh` queue. A run marks at most {@link REFRESH_CHUNKS_PER_RUN} chunks and
 * then enqueues a job for the rest; failures retry with back-off from 2 s (up to 5 minutes, 8
 * times), each retry going on from the committed chunks. Nothing to record after the last
 * attempt: the passes left unmarked keep their previous `updated_at` and show the new design at
 * their next download.
 */
export const templateRefreshJob = defineJob<TemplateRefresh, Runtime>({
  name: 'pass-template-refresh',
  settings: { retryLimit: 8, retryDelay: 2, retryBackoff: true, retryDelayMax: 300, expireInSeconds: 300, deleteAfterSeconds: 7 * 24 * 3600, notify: true },
  async run(job, runtime) {
    let marked = 0;
    for (let chunk = 0; chunk < REFRESH_CHUNKS_PER_RUN; chunk++) {
      const count = await refreshChunk(runtime, job.data);
      marked += count;
      if (count < REFRESH_CHUNK_SIZE) return { ...job.data, marked, finished: true };
    }
    await runtime.jobs.enqueue(templateRefreshJob, job.data);
    return { ...job.data, marked, finished: false };
  },
  async onLastAttemptFailed() {},
});
