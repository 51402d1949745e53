import { clusterMetrics, isClusterWorker } from '../../cluster.ts';
import type { OperationHandler } from '../../http/operation.ts';

/**
 * `GET /metrics`: the metrics of src/metrics.ts in Prometheus's text format; with several server
 * processes, those of all of them as the cluster's primary aggregates them.
 */
export const getMetrics: OperationHandler<'getMetrics'> = async ({ ctx }) => {
  const { registry } = ctx.metrics;
  const body = isClusterWorker() ? await clusterMetrics() : await registry.metrics();
  return { status: 200, body, headers: { 'Content-Type': registry.contentType, 'Cache-Control': 'no-store' } };
};
