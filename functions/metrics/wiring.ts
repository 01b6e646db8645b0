/**
 * The metrics collection as the three functions that collect build it: the scheduled collector
 * (functions/metrics-collector.ts), the API's refresh (functions/refresh-post-metrics.ts) and the
 * settings' Refresh button (functions/settings/refresh-post-metrics.ts). The posts' metrics, the
 * accounts and their tokens (refreshed like the publish worker's), the platforms.
 */
import { randomToken } from '../../lib/domain/ids.js';
import { logger } from '../../lib/observability.js';
import { linkedinClientFromEnv } from '../../lib/platforms/linkedin-client.js';
import { xClientFromEnv, type XClient } from '../../lib/platforms/x-client.js';
import { DynamoDbAccountStore } from '../../lib/store/dynamodb-account-store.js';
import { DynamoDbPostMetrics } from '../../lib/store/dynamodb-post-metrics.js';
import { METRICS_DUE_SHARDS } from '../../lib/store/tables.js';
import { tokenCipherFromEnv } from '../../lib/store/token-cipher.js';
import { AccessTokens } from '../../lib/use-cases/access-tokens.js';
import { CollectMetrics } from '../../lib/use-cases/collect-metrics.js';
import { systemClock } from '../../lib/use-cases/ports/clock.js';

export interface MetricsCollection {
  collect: CollectMetrics;
  /** For the collector's other job, the daily read of X subscriptions (x-subscription-checks.ts). */
  accounts: DynamoDbAccountStore;
  tokens: AccessTokens;
  x: XClient;
}

export function metricsCollection(): MetricsCollection {
  const accounts = new DynamoDbAccountStore();
  const tokens = new AccessTokens({ credentials: accounts, cipher: tokenCipherFromEnv(), clock: systemClock });
  const x = xClientFromEnv();
  const collect = new CollectMetrics({
    store: new DynamoDbPostMetrics(),
    accounts,
    tokens,
    setTokenHealth: (accountId, health) => accounts.setTokenHealth(accountId, health),
    platforms: { x, linkedin: linkedinClientFromEnv() },
    clock: systemClock,
    shards: METRICS_DUE_SHARDS,
    newToken: () => randomToken(16),
    log: logger,
  });
  return { collect, accounts, tokens, x };
}
