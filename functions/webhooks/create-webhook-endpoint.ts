/**
 * POST /api/v1/webhook_endpoints: register an endpoint; its signing secret is in this answer only,
 * or in this answer replayed under its Idempotency-Key (scope `write`).
 */
import { apiHandler } from '../../lib/http/api-handler.js';
import { authenticatedPipeline } from '../../lib/http/api-pipeline.js';
import { DnsWebhookUrlResolver } from '../../lib/egress/webhook-sender.js';
import { DynamoDbIdempotencyStore } from '../../lib/store/dynamodb-idempotency-store.js';
import { tokenCipherFromEnv } from '../../lib/store/token-cipher.js';
import { webhookEndpoints } from './wiring.js';

export const handler = apiHandler({ scope: 'write', jsonBody: true }, () => {
  const endpoints = webhookEndpoints({ idempotency: new DynamoDbIdempotencyStore(), cipher: tokenCipherFromEnv(), resolver: new DnsWebhookUrlResolver() });
  return {
    pipeline: authenticatedPipeline(),
    route: (request, caller) => endpoints.create(caller, request.body, { idempotencyKey: request.headers['idempotency-key'] }),
  };
});
