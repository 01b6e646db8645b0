/**
 * POST /api/v1/posts/{id}/publish (scope `publish`): a draft goes out now or at scheduledFor, spending one allowance unit. The
 * body is optional (`{"scheduledFor": ...}`), so it is parsed here rather than by the pipeline.
 */
import { SchedulerClient } from '@aws-sdk/client-scheduler';
import { SQSClient } from '@aws-sdk/client-sqs';
import { PublishDispatcher, publishDispatcherConfigFromEnv } from '../lib/dispatch/publish-dispatcher.js';
import { apiHandler } from '../lib/http/api-handler.js';
import { authenticatedPipeline } from '../lib/http/api-pipeline.js';
import { optionalJsonObject } from '../lib/http/json-body.js';
import { DirectoryTable } from '../lib/store/directory-table.js';
import { DynamoDbAccountStore } from '../lib/store/dynamodb-account-store.js';
import { DynamoDbIdempotencyStore } from '../lib/store/dynamodb-idempotency-store.js';
import { DynamoDbMediaStore } from '../lib/store/dynamodb-media-store.js';
import { DynamoDbPostChanges } from '../lib/store/post-change-writes.js';
import { meterSdkClient } from '../lib/store/sdk-metering.js';
import { systemClock } from '../lib/use-cases/ports/clock.js';
import { PublishDraft } from '../lib/use-cases/publish-draft.js';

// Endpoints come from the SDK's own AWS_ENDPOINT_URL_* variables (set by the local stack, unset on AWS).
const sqs = new SQSClient({});
const scheduler = new SchedulerClient({});
meterSdkClient(sqs, 'sqs');
meterSdkClient(scheduler, 'scheduler');

export const handler = apiHandler({ scope: 'publish' }, () => {
  const directory = new DirectoryTable();
  const useCase = new PublishDraft({
    changes: new DynamoDbPostChanges(),
    idempotency: new DynamoDbIdempotencyStore(),
    accounts: new DynamoDbAccountStore(directory),
    media: new DynamoDbMediaStore(directory),
    dispatcher: new PublishDispatcher(sqs, scheduler, publishDispatcherConfigFromEnv()),
    clock: systemClock,
  });
  return {
    pipeline: authenticatedPipeline(directory),
    route: async (request, caller) => {
      const body = await optionalJsonObject(request.rawBody, request.headers['content-type']);
      return useCase.execute(caller, request.pathParameters.id ?? '', body, request.headers['idempotency-key']);
    },
  };
});
