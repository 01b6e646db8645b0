/** POST /api/v1/webhook_endpoints: register an endpoint; its signing secret is in this answer only (scope `write`). */
import { apiHandler } from '../../lib/http/api-handler.js';
import { authenticatedPipeline } from '../../lib/http/api-pipeline.js';
import { DnsWebhookUrlResolver } from '../../lib/egress/webhook-sender.js';
import { tokenCipherFromEnv } from '../../lib/store/token-cipher.js';
import { webhookEndpoints } from './wiring.js';

export const handler = apiHandler({ scope: 'write', jsonBody: true }, () => {
  const endpoints = webhookEndpoints({ cipher: tokenCipherFromEnv(), resolver: new DnsWebhookUrlResolver() });
  return {
    pipeline: authenticatedPipeline(),
    route: async (request, caller) => ({ status: 201, body: await endpoints.create(caller, request.body) }),
  };
});
