/** GET /api/v1/media/{id}: one media (scope `read`). */
import { apiHandler } from '../../lib/http/api-handler.js';
import { authenticatedPipeline } from '../../lib/http/api-pipeline.js';
import { checkNoQuery } from '../../lib/use-cases/post-lookup.js';
import { mediaFiles } from './wiring.js';

export const handler = apiHandler({ scope: 'read' }, () => {
  const media = mediaFiles({});
  return {
    pipeline: authenticatedPipeline(),
    route: async (request, caller) => {
      checkNoQuery(request.query, 'GET /media/{id}');
      return { status: 200, body: await media.get(caller, request.pathParameters.id ?? '') };
    },
  };
});
