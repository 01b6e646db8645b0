/** GET /api/v1/webhook_endpoints/{id}: one endpoint, never its secret (scope `read`). */
import { apiHandler } from '../../lib/http/api-handler.js';
import { authenticatedPipeline } from '../../lib/http/api-pipeline.js';
import { checkNoQuery } from '../../lib/use-cases/post-lookup.js';
import { webhookEndpoints } from './wiring.js';

export const handler = apiHandler({ scope: 'read' }, () => {
  const endpoints = webhookEndpoints({});
  return {
    pipeline: authenticatedPipeline(),
    route: async (request, caller) => {
      checkNoQuery(request.query, 'GET /webhook_endpoints/{id}');
      return { status: 200, body: await endpoints.get(caller, request.pathParameters.id ?? '') };
    },
  };
});
