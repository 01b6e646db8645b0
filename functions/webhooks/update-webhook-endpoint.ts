/** PATCH /api/v1/webhook_endpoints/{id}: url, enabledEvents, description, status (scope `write`). */
import { apiHandler } from '../../lib/http/api-handler.js';
import { authenticatedPipeline } from '../../lib/http/api-pipeline.js';
import { DnsWebhookUrlResolver } from '../../lib/egress/webhook-sender.js';
import { webhookEndpoints } from './wiring.js';

export const handler = apiHandler({ scope: 'write', jsonBody: true }, () => {
  const endpoints = webhookEndpoints({ resolver: new DnsWebhookUrlResolver() });
  return {
    pipeline: authenticatedPipeline(),
    route: async (request, caller) => ({ status: 200, body: await endpoints.update(caller, request.pathParameters.id ?? '', request.body) }),
  };
});
