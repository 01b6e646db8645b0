/** GET /api/v1/posts: the caller's posts, newest first, paginated (scope `read`). */
import { ENV } from '../lib/config.js';
import { apiHandler } from '../lib/http/api-handler.js';
import { authenticatedPipeline } from '../lib/http/api-pipeline.js';
import { readSecret } from '../lib/secrets.js';
import { DynamoDbPostMetrics } from '../lib/store/dynamodb-post-metrics.js';
import { DynamoDbPostStore } from '../lib/store/dynamodb-post-store.js';
import { ListPosts, parseListPostsQuery } from '../lib/use-cases/list-posts.js';

export const handler = apiHandler({ scope: 'read' }, () => {
  const listPosts = new ListPosts({
    posts: new DynamoDbPostStore(),
    metrics: new DynamoDbPostMetrics(),
    // The value itself locally, a Secrets Manager secret (fetched once) on AWS.
    cursorSigningKey: () => readSecret(ENV.cursorSigningKey, ENV.cursorSigningKeySecretId),
  });
  return {
    pipeline: authenticatedPipeline(),
    route: async (request, caller) => {
      const query = parseListPostsQuery(request.query);
      return { status: 200, body: await listPosts.execute(caller, query) };
    },
  };
});
