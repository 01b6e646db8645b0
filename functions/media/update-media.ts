/** PATCH /api/v1/media/{id}: its alt text (scope `media`). */
import { apiHandler } from '../../lib/http/api-handler.js';
import { authenticatedPipeline } from '../../lib/http/api-pipeline.js';
import { checkNoQuery } from '../../lib/use-cases/post-lookup.js';
import { mediaFiles } from './wiring.js';

export const handler = apiHandler({ scope: 'media', jsonBody: true }, () => {
  const media = mediaFiles({});
  return {
    pipeline: authenticatedPipeline(),
    route: async (request, caller) => {
      checkNoQuery(request.query, 'PATCH /media/{id}');
      return { status: 200, body: await media.update(caller, request.pathParameters.id ?? '', request.body) };
    },
  };
});
