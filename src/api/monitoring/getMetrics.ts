import { clusterMetrics, isClusterWorker } from '../../cluster.ts';
import type { OperationHandler } from '../../http/operation.ts';

/**
 * `GET /metrics`: the metrics of src/metrics.ts in Prometheus's text format; with several server
 * processes, those of every process that listens as the cluster's primary aggregates them (a
 * process still starting is left out rather than waited for).
 */
export const getMetrics: OperationHandler<'getMetrics'> = async ({ ctx }) => {
  const { registry } = ctx.metrics;
  const body = isClusterWorker() ? await clusterMetrics(registry) : await registry.metrics();
  return { status: 200, body, headers: { 'Content-Type': registry.contentType, 'Cache-Control': 'no-store' } };
};
