/**
 * POST /api/v1/webhook_endpoints/{id}/rotate_secret: a new secret, shown only here (or in this
 * answer replayed under its Idempotency-Key); the old one signs beside it for 24 h (scope `write`).
 */
import { apiHandler } from '../../lib/http/api-handler.js';
import { authenticatedPipeline } from '../../lib/http/api-pipeline.js';
import { checkNoQuery } from '../../lib/use-cases/post-lookup.js';
import { DynamoDbIdempotencyStore } from '../../lib/store/dynamodb-idempotency-store.js';
import { tokenCipherFromEnv } from '../../lib/store/token-cipher.js';
import { webhookEndpoints } from './wiring.js';

export const handler = apiHandler({ scope: 'write' }, () => {
  const endpoints = webhookEndpoints({ idempotency: new DynamoDbIdempotencyStore(), cipher: tokenCipherFromEnv() });
  return {
    pipeline: authenticatedPipeline(),
    route: (request, caller) => {
      checkNoQuery(request.query, 'POST /webhook_endpoints/{id}/rotate_secret');
      return endpoints.rotateSecret(caller, request.pathParameters.id ?? '', { idempotencyKey: request.headers['idempotency-key'] });
    },
  };
});
