/** GET /api/v1/posts/{id}/metrics: a post's metrics and their history (scope `read`; beyond-v2.md "Post metrics"). */
import { apiHandler } from '../lib/http/api-handler.js';
import { authenticatedPipeline } from '../lib/http/api-pipeline.js';
import { DynamoDbPostMetrics } from '../lib/store/dynamodb-post-metrics.js';
import { checkNoQuery } from '../lib/use-cases/post-lookup.js';
import { GetPostMetrics } from '../lib/use-cases/post-metrics.js';

export const handler = apiHandler({ scope: 'read' }, () => {
  const getMetrics = new GetPostMetrics({ store: new DynamoDbPostMetrics() });
  return {
    pipeline: authenticatedPipeline(),
    route: async (request, caller) => {
      checkNoQuery(request.query, 'GET /posts/{id}/metrics');
      return { status: 200, body: await getMetrics.execute(caller, request.pathParameters.id ?? '') };
    },
  };
});
