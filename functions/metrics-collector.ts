/**
 * The metrics collector (EventBridge rule every minute on AWS; every few seconds in the local
 * stack): collects the figures of every published post whose next collection is due (about 1 h,
 * 6 h, 24 h, 3 d, 7 d and 30 d after publishedAt), a platform request per batch of an account's
 * posts (lib/use-cases/collect-metrics.ts; the schedule's cost arithmetic: docs/metrics.md). It
 * also reads again the subscription of every X account last read a day ago, posting or not
 * (lib/use-cases/x-subscription-checks.ts): the collector is what holds X's credentials.
 */
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import middy from '@middy/core';
import type { Context, ScheduledEvent } from 'aws-lambda';
import { atColdStart } from '../lib/cold-start.js';
import { ENV, numberEnv } from '../lib/config.js';
import { X_SUBSCRIPTION_CHECK_MS } from '../lib/domain/x-subscription-check.js';
import { logger } from '../lib/observability.js';
import type { CollectResult } from '../lib/use-cases/collect-metrics.js';
import { XSubscriptionChecks } from '../lib/use-cases/x-subscription-checks.js';
import { systemClock } from '../lib/use-cases/ports/clock.js';
import { flushMetrics, metrics } from '../lib/worker-metrics.js';
import { metricsCollection } from './metrics/wiring.js';

/** The posts table (byMetricsDue, the metrics fields), the accounts and their tokens (refreshed like the publish worker's), the platforms. */
const collector = atColdStart(() => {
  const { collect, accounts, tokens, x } = metricsCollection();
  return {
    metrics: collect,
    subscriptions: new XSubscriptionChecks({
      store: accounts,
      accounts,
      tokens,
      x,
      clock: systemClock,
      intervalMs: numberEnv(ENV.xSubscriptionCheckSeconds, X_SUBSCRIPTION_CHECK_MS / 1000) * 1000,
      log: logger,
    }),
  };
});

export const handler = middy<ScheduledEvent, CollectResult, Error, Context>()
  .use(flushMetrics())
  .handler(async () => {
    const { metrics: posts, subscriptions } = collector();
    const [result, checks] = await Promise.all([posts.collectDue(), subscriptions.checkDue()]);
    if (result.examined > 0) logger.info('Post metrics collected', { ...result });
    if (result.collected > 0) metrics.addMetric('MetricsCollected', MetricUnit.Count, result.collected);
    if (result.postponed > 0) metrics.addMetric('MetricsPostponed', MetricUnit.Count, result.postponed);
    if (checks.read + checks.postponed + checks.dropped > 0) logger.info('X subscriptions checked', { ...checks });
    return result;
  });
