/**
 * The batch queues as the domain fills them: creating a wallet messaging batch or sending it now
 * queues its `wallet-messaging` job, which src/delivery/walletMessagingJob.ts works; and what a run
 * of a batch job reports.
 *
 * @module domain/batches/batchQueues
 */
import { declareQueue } from '../../jobs/jobDefinition.ts';

/** The queue of wallet messaging batches: one job per run of a batch (its worker: src/delivery/walletMessagingJob.ts). */
export const walletMessagingQueue = declareQueue<{ batchId: string }>('wallet-messaging');

/** Limits of one run (tests make them small to stop a run between chunks). */
export interface AdvanceOptions {
  chunkSize?: number;
  chunksPerRun?: number;
}

/**
 * What a run did: `gone` (no such batch), `idle` (nothing to do: final, cancelled, or another
 * run moved it first), `deferred` (scheduled, not due: a job waits for `scheduledAt`),
 * `continued` (sent its chunks; a new job sends the rest), `finished` (the batch reached its
 * final status in this run).
 */
export type AdvanceResult = 'gone' | 'idle' | 'deferred' | 'continued' | 'finished';
