/** GET /settings/posts/{id}/metrics: one post's metrics and their history through the API's GET /posts/{id}/metrics use case (same scoping). */
import { ApiError } from '../../lib/domain/errors.js';
import { DynamoDbPostMetrics } from '../../lib/store/dynamodb-post-metrics.js';
import { GetPostMetrics } from '../../lib/use-cases/post-metrics.js';
import { postMetricsPage } from '../../lib/web/pages/post-metrics-page.js';
import { signedInHandler } from '../../lib/web/web-handler.js';
import { notFound } from '../../lib/web/web-errors.js';

let metrics: GetPostMetrics | undefined;

/** What the page says after its Refresh button (functions/settings/refresh-post-metrics.ts redirects here). */
function refusalOf(refused: string | undefined, after: string | undefined): string | undefined {
  const wait = after && /^\d{1,6}$/.test(after) ? ` Try again in ${after} s.` : '';
  if (refused === 'too_soon') return `Not refreshed: a post's metrics can be refreshed once every 5 minutes.${wait}`;
  if (refused === 'unavailable') return `Not refreshed: the platform did not give the figures now.${wait}`;
  return undefined;
}

export const handler = signedInHandler(async (request, signedIn) => {
  metrics ??= new GetPostMetrics({ store: new DynamoDbPostMetrics() });
  try {
    const view = await metrics.execute(signedIn.caller, request.pathParameters.id ?? '');
    return {
      kind: 'page',
      title: 'Post metrics',
      body: postMetricsPage(
        view,
        signedIn.session.csrfToken,
        request.query.done === 'refreshed' ? 'Metrics refreshed: the figures below are from the platform just now.' : undefined,
        refusalOf(request.query.refused, request.query.after),
      ),
    };
  } catch (error) {
    // Another workspace's post, or no such post: the same answer, so ids cannot be probed.
    if (error instanceof ApiError && error.code === 'post_not_found') throw notFound('post');
    throw error;
  }
});
