/** POST /api/v1/webhook_endpoints/{id}/test: queues a `webhook.test` event to the endpoint now, once per Idempotency-Key (scope `write`). */
import { apiHandler } from '../../lib/http/api-handler.js';
import { authenticatedPipeline } from '../../lib/http/api-pipeline.js';
import { checkNoQuery } from '../../lib/use-cases/post-lookup.js';
import { SQSClient } from '@aws-sdk/client-sqs';
import { ENV, requireEnv } from '../../lib/config.js';
import { SqsWebhookQueue } from '../../lib/dispatch/webhook-queue.js';
import { DynamoDbIdempotencyStore } from '../../lib/store/dynamodb-idempotency-store.js';
import { webhookEndpoints } from './wiring.js';

const sqs = new SQSClient({});

export const handler = apiHandler({ scope: 'write' }, () => {
  const endpoints = webhookEndpoints({ idempotency: new DynamoDbIdempotencyStore(), queue: new SqsWebhookQueue(sqs, requireEnv(ENV.webhookQueueUrl)) });
  return {
    pipeline: authenticatedPipeline(),
    route: (request, caller) => {
      checkNoQuery(request.query, 'POST /webhook_endpoints/{id}/test');
      return endpoints.sendTest(caller, request.pathParameters.id ?? '', { idempotencyKey: request.headers['idempotency-key'] });
    },
  };
});
