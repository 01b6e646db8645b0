/**
 * POST /api/v1/posts/{id}/metrics/refresh: collects a published post's metrics now, at most once
 * per 5 minutes per post (scope `read`: it changes nothing the customer wrote). Reads the account's
 * tokens (refreshing them like the publish worker) and asks the platform.
 */
import { randomToken } from '../lib/domain/ids.js';
import { apiHandler } from '../lib/http/api-handler.js';
import { authenticatedPipeline } from '../lib/http/api-pipeline.js';
import { logger } from '../lib/observability.js';
import { linkedinClientFromEnv } from '../lib/platforms/linkedin-client.js';
import { xClientFromEnv } from '../lib/platforms/x-client.js';
import { DynamoDbAccountStore } from '../lib/store/dynamodb-account-store.js';
import { DynamoDbPostMetrics } from '../lib/store/dynamodb-post-metrics.js';
import { METRICS_DUE_SHARDS } from '../lib/store/tables.js';
import { tokenCipherFromEnv } from '../lib/store/token-cipher.js';
import { AccessTokens } from '../lib/use-cases/access-tokens.js';
import { CollectMetrics } from '../lib/use-cases/collect-metrics.js';
import { systemClock } from '../lib/use-cases/ports/clock.js';
import { checkNoQuery } from '../lib/use-cases/post-lookup.js';
import { RefreshPostMetrics } from '../lib/use-cases/post-metrics.js';

export const handler = apiHandler({ scope: 'read' }, () => {
  const accounts = new DynamoDbAccountStore();
  const refresh = new RefreshPostMetrics({
    clock: systemClock,
    collect: new CollectMetrics({
      store: new DynamoDbPostMetrics(),
      accounts,
      tokens: new AccessTokens({ credentials: accounts, cipher: tokenCipherFromEnv(), clock: systemClock }),
      setTokenHealth: (accountId, health) => accounts.setTokenHealth(accountId, health),
      platforms: { x: xClientFromEnv(), linkedin: linkedinClientFromEnv() },
      clock: systemClock,
      shards: METRICS_DUE_SHARDS,
      newToken: () => randomToken(16),
      log: logger,
    }),
  });
  return {
    pipeline: authenticatedPipeline(),
    route: async (request, caller) => {
      checkNoQuery(request.query, 'POST /posts/{id}/metrics/refresh');
      return { status: 200, body: await refresh.execute(caller, request.pathParameters.id ?? '') };
    },
  };
});
