/**
 * Every job queue of the service: the job definitions (src/jobs/jobDefinition.ts), each beside
 * the code it runs. Server and worker create these queues and work on them (src/runtime.ts); a
 * new queue is its definition plus one line here.
 *
 * @module queues
 */
import { passChangedJob } from './delivery/passChangedJob.ts';
import { webhookDeliveryJob } from './delivery/webhookDeliveryJob.ts';
import { walletMessagingJob } from './delivery/walletMessagingJob.ts';
import { passBatchJob } from './domain/batches/passBatchJob.ts';
import { passTemplateProcessingJob } from './delivery/passTemplateProcessingJob.ts';
import { googleObjectRewriteJob } from './delivery/googleObjectRewriteJob.ts';
import { templateRefreshJob } from './domain/passTemplates/templateRefreshJob.ts';
import { auditRetentionJob } from './domain/audit/auditRetention.ts';

/** The job definitions, in no particular order. */
export const queues = [
  passTemplateProcessingJob,
  templateRefreshJob,
  walletMessagingJob,
  passBatchJob,
  passChangedJob,
  webhookDeliveryJob,
  googleObjectRewriteJob,
  auditRetentionJob,
] as const;
