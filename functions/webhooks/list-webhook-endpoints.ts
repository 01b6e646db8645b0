/** GET /api/v1/webhook_endpoints: the caller's endpoints, paginated (scope `read`). */
import { apiHandler } from '../../lib/http/api-handler.js';
import { authenticatedPipeline } from '../../lib/http/api-pipeline.js';
import { parseListEndpointsQuery } from '../../lib/use-cases/webhooks/endpoints.js';
import { webhookEndpoints } from './wiring.js';

export const handler = apiHandler({ scope: 'read' }, () => {
  const endpoints = webhookEndpoints({ cursor: true });
  return {
    pipeline: authenticatedPipeline(),
    route: async (request, caller) => ({ status: 200, body: await endpoints.list(caller, parseListEndpointsQuery(request.query)) }),
  };
});
