/** GET /api/v1/webhook_endpoints: the caller's endpoints, paginated (scope `read`). */
import { apiHandler } from '../../lib/http/api-handler.js';
import { authenticatedPipeline } from '../../lib/http/api-pipeline.js';
import { parseListEndpointsQuery } from '../../lib/use-cases/webhooks/endpoints.js';
import { ENV } from '../../lib/config.js';
import { readSecret } from '../../lib/secrets.js';
import { webhookEndpoints } from './wiring.js';

export const handler = apiHandler({ scope: 'read' }, () => {
  const endpoints = webhookEndpoints({
    // The value itself locally, a Secrets Manager secret (fetched once) on AWS.
    cursorSigningKey: () => readSecret(ENV.cursorSigningKey, ENV.cursorSigningKeySecretId),
  });
  return {
    pipeline: authenticatedPipeline(),
    route: async (request, caller) => ({ status: 200, body: await endpoints.list(caller, parseListEndpointsQuery(request.query)) }),
  };
});
