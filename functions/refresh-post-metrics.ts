/**
 * POST /api/v1/posts/{id}/metrics/refresh: collects a published post's metrics now, at most once
 * per 5 minutes per post (scope `read`: it changes nothing the customer wrote). Reads the account's
 * tokens (refreshing them like the publish worker) and asks the platform.
 */
import { apiHandler } from '../lib/http/api-handler.js';
import { authenticatedPipeline } from '../lib/http/api-pipeline.js';
import { systemClock } from '../lib/use-cases/ports/clock.js';
import { checkNoQuery } from '../lib/use-cases/post-lookup.js';
import { RefreshPostMetrics } from '../lib/use-cases/post-metrics.js';
import { metricsCollection } from './metrics/wiring.js';

export const handler = apiHandler({ scope: 'read' }, () => {
  const refresh = new RefreshPostMetrics({ clock: systemClock, collect: metricsCollection().collect });
  return {
    pipeline: authenticatedPipeline(),
    route: async (request, caller) => {
      checkNoQuery(request.query, 'POST /posts/{id}/metrics/refresh');
      return { status: 200, body: await refresh.execute(caller, request.pathParameters.id ?? '') };
    },
  };
});
