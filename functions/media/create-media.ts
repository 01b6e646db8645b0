/**
 * POST /api/v1/media: a new media `pending` and a presigned PUT for its bytes, straight to the
 * media bucket; or, with sourceUrl, a media `processing` whose import is queued (scope `media`).
 * Idempotency-Key as every POST.
 */
import { apiHandler } from '../../lib/http/api-handler.js';
import { authenticatedPipeline } from '../../lib/http/api-pipeline.js';
import { mediaBucketAccess, mediaFiles, mediaImportQueue } from './wiring.js';

export const handler = apiHandler({ scope: 'media', jsonBody: true }, () => {
  const media = mediaFiles({ idempotency: true, storage: mediaBucketAccess(), importQueue: mediaImportQueue() });
  return {
    pipeline: authenticatedPipeline(),
    route: (request, caller) => media.create(caller, request.body, { idempotencyKey: request.headers['idempotency-key'] }),
  };
});
