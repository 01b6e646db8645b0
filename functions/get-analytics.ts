/** GET /api/v1/analytics?from&to&accountId?&campaignId?: totals, per account and top posts over posts published in [from, to) (scope `read`). */
import { checkQueryParameters } from '../lib/domain/query-parameters.js';
import { apiHandler } from '../lib/http/api-handler.js';
import { authenticatedPipeline } from '../lib/http/api-pipeline.js';
import { DynamoDbPostMetrics } from '../lib/store/dynamodb-post-metrics.js';
import { GetAnalytics } from '../lib/use-cases/post-metrics.js';

const PARAMETERS = ['from', 'to', 'accountId', 'campaignId'] as const;

export const handler = apiHandler({ scope: 'read' }, () => {
  const analytics = new GetAnalytics({ store: new DynamoDbPostMetrics() });
  return {
    pipeline: authenticatedPipeline(),
    route: async (request, caller) => {
      checkQueryParameters(request.query, PARAMETERS, 'GET /analytics takes from, to, accountId and campaignId.');
      const { from, to, accountId, campaignId } = request.query;
      return { status: 200, body: await analytics.execute(caller, { from, to, accountId, campaignId }) };
    },
  };
});
