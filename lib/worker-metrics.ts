/**
 * The workers' and the sweeper's CloudWatch metrics (EMF on stdout): the publishing figures the
 * publish worker reports, and the middy step that writes what an invocation added.
 */
import { MetricUnit, Metrics } from '@aws-lambda-powertools/metrics';
import type middy from '@middy/core';
import { serviceName } from './observability.js';
import type { PublishMetrics } from './use-cases/publish-post.js';

/** One metrics instance per cold start, shared by the modules of a worker or the sweeper. */
export const metrics = new Metrics({ namespace: process.env.POWERTOOLS_METRICS_NAMESPACE ?? 'SocialPublishing', serviceName });

/**
 * Middy step that writes the metrics an invocation added (EMF on stdout), also when it failed.
 * Unlike Powertools' logMetrics it stays silent when there is nothing to write (most sweeps, a
 * batch of duplicates), so logs carry no empty-metrics warning per invocation.
 */
export function flushMetrics(): middy.MiddlewareObj {
  const flush = async (): Promise<void> => {
    if (metrics.hasStoredMetrics()) metrics.publishStoredMetrics();
  };
  return { after: flush, onError: flush };
}

/** Publishing figures as CloudWatch metrics (EMF), written by flushMetrics after each invocation. */
export const publishMetrics: PublishMetrics = {
  published(lagMs) {
    metrics.addMetric('PostPublished', MetricUnit.Count, 1);
    // How late after scheduledFor the platform accepted the post: the 1-second objective.
    metrics.addMetric('PublishLag', MetricUnit.Milliseconds, Math.max(0, lagMs));
  },
  failed(kind) {
    metrics.addMetric('PostFailed', MetricUnit.Count, 1);
    metrics.addMetadata('failure', kind);
  },
  retried(kind) {
    metrics.addMetric('PublishRetried', MetricUnit.Count, 1);
    metrics.addMetadata('retry', kind);
  },
};
