/** DELETE /api/v1/webhook_endpoints/{id}: removes it; nothing more is sent to it (scope `write`). */
import { apiHandler } from '../../lib/http/api-handler.js';
import { authenticatedPipeline } from '../../lib/http/api-pipeline.js';
import { checkNoQuery } from '../../lib/use-cases/post-lookup.js';
import { webhookEndpoints } from './wiring.js';

export const handler = apiHandler({ scope: 'write' }, () => {
  const endpoints = webhookEndpoints({});
  return {
    pipeline: authenticatedPipeline(),
    route: async (request, caller) => {
      checkNoQuery(request.query, 'DELETE /webhook_endpoints/{id}');
      return { status: 200, body: await endpoints.remove(caller, request.pathParameters.id ?? '') };
    },
  };
});
