/** GET /api/v1/media: the caller's media, newest first, paginated, `?status=` filters (scope `read`). */
import { ENV } from '../../lib/config.js';
import { apiHandler } from '../../lib/http/api-handler.js';
import { authenticatedPipeline } from '../../lib/http/api-pipeline.js';
import { readSecret } from '../../lib/secrets.js';
import { parseListMediaQuery } from '../../lib/use-cases/media-files.js';
import { mediaFiles } from './wiring.js';

export const handler = apiHandler({ scope: 'read' }, () => {
  const media = mediaFiles({
    // The value itself locally, a Secrets Manager secret (fetched once) on AWS.
    cursorSigningKey: () => readSecret(ENV.cursorSigningKey, ENV.cursorSigningKeySecretId),
  });
  return {
    pipeline: authenticatedPipeline(),
    route: async (request, caller) => ({ status: 200, body: await media.list(caller, parseListMediaQuery(request.query)) }),
  };
});
