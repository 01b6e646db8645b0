/**
 * DELETE /api/v1/media/{id}: the file and its item, its bytes given back to the quota; refused
 * (409 media_in_use) while a draft or scheduled post uses it (scope `media`).
 */
import { apiHandler } from '../../lib/http/api-handler.js';
import { authenticatedPipeline } from '../../lib/http/api-pipeline.js';
import { DynamoDbPostStore } from '../../lib/store/dynamodb-post-store.js';
import { checkNoQuery } from '../../lib/use-cases/post-lookup.js';
import { mediaBucketAccess, mediaFiles } from './wiring.js';

export const handler = apiHandler({ scope: 'media' }, () => {
  const media = mediaFiles({ storage: mediaBucketAccess(), posts: new DynamoDbPostStore() });
  return {
    pipeline: authenticatedPipeline(),
    route: async (request, caller) => {
      checkNoQuery(request.query, 'DELETE /media/{id}');
      return { status: 200, body: await media.remove(caller, request.pathParameters.id ?? '') };
    },
  };
});
