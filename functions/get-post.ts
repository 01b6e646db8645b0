/** GET /api/v1/posts/{id}: one post of the caller (scope `read`). */
import { apiHandler } from '../lib/http/api-handler.js';
import { authenticatedPipeline } from '../lib/http/api-pipeline.js';
import { DynamoDbPostMetrics } from '../lib/store/dynamodb-post-metrics.js';
import { DynamoDbPostStore } from '../lib/store/dynamodb-post-store.js';
import { GetPost } from '../lib/use-cases/get-post.js';
import { checkNoQuery } from '../lib/use-cases/post-lookup.js';

export const handler = apiHandler({ scope: 'read' }, () => {
  const getPost = new GetPost({ posts: new DynamoDbPostStore(), metrics: new DynamoDbPostMetrics() });
  return {
    pipeline: authenticatedPipeline(),
    route: async (request, caller) => {
      checkNoQuery(request.query, 'GET /posts/{id}');
      return { status: 200, body: await getPost.execute(caller, request.pathParameters.id ?? '') };
    },
  };
});
