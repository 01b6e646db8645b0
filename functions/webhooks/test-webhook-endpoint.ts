/** POST /api/v1/webhook_endpoints/{id}/test: queues a `webhook.test` event to the endpoint now (scope `write`). */
import { apiHandler } from '../../lib/http/api-handler.js';
import { authenticatedPipeline } from '../../lib/http/api-pipeline.js';
import { checkNoQuery } from '../../lib/use-cases/post-lookup.js';
import { webhookEndpoints } from './wiring.js';

export const handler = apiHandler({ scope: 'write' }, () => {
  const endpoints = webhookEndpoints({ queue: true });
  return {
    pipeline: authenticatedPipeline(),
    route: async (request, caller) => {
      checkNoQuery(request.query, 'POST /webhook_endpoints/{id}/test');
      return { status: 202, body: await endpoints.sendTest(caller, request.pathParameters.id ?? '') };
    },
  };
});
