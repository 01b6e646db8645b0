/**
 * POST /api/v1/media/{id}/complete: the stored bytes checked with ranged reads; `ready` with its
 * URL, or `failed` with the rule it breaks (scope `media`). Idempotency-Key as every POST.
 */
import { apiHandler } from '../../lib/http/api-handler.js';
import { authenticatedPipeline } from '../../lib/http/api-pipeline.js';
import { checkNoQuery } from '../../lib/use-cases/post-lookup.js';
import { mediaBucketAccess, mediaFiles } from './wiring.js';

export const handler = apiHandler({ scope: 'media' }, () => {
  const media = mediaFiles({ idempotency: true, storage: mediaBucketAccess(), mediaBaseUrl: true });
  return {
    pipeline: authenticatedPipeline(),
    route: (request, caller) => {
      checkNoQuery(request.query, 'POST /media/{id}/complete');
      return media.complete(caller, request.pathParameters.id ?? '', { idempotencyKey: request.headers['idempotency-key'] });
    },
  };
});
