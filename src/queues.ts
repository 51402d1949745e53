/**
 * Every job queue of the service: the job definitions (src/jobs/jobDefinition.ts), each beside
 * the code it runs. Server and worker create these queues and work on them (src/runtime.ts); a
 * new queue is its definition plus one line here.
 *
 * @module queues
 */
import { passChangedJob } from './delivery/passChanged.ts';
import { webhookDeliveryJob } from './delivery/webhookDelivery.ts';
import { walletMessagingJob } from './resources/batches/batchSender.ts';
import { passBatchJob } from './resources/batches/passBatchRunner.ts';
import { passTemplateProcessingJob } from './resources/passTemplates/processPassTemplate.ts';
import { templateRefreshJob } from './resources/passTemplates/refreshTemplatePasses.ts';

/** The job definitions, in no particular order. */
export const queues = [passTemplateProcessingJob, templateRefreshJob, walletMessagingJob, passBatchJob, passChangedJob, webhookDeliveryJob] as const;
