/**
 * PATCH /api/v1/posts/{id}: change a draft or a scheduled post not yet being sent (scope `write`,
 * and `publish` for a post that will go out: checked by the use case). Builds the dispatcher: a
 * post whose time moved gets a new schedule (create and delete) or a delayed message.
 */
import { SchedulerClient } from '@aws-sdk/client-scheduler';
import { SQSClient } from '@aws-sdk/client-sqs';
import { ENV, requireEnv } from '../lib/config.js';
import { PublishDispatcher, publishDispatcherConfigFromEnv } from '../lib/dispatch/publish-dispatcher.js';
import { apiHandler } from '../lib/http/api-handler.js';
import { authenticatedPipeline } from '../lib/http/api-pipeline.js';
import { DirectoryTable } from '../lib/store/directory-table.js';
import { DynamoDbAccountStore } from '../lib/store/dynamodb-account-store.js';
import { DynamoDbIdempotencyStore } from '../lib/store/dynamodb-idempotency-store.js';
import { DynamoDbMediaStore } from '../lib/store/dynamodb-media-store.js';
import { DynamoDbWorkspaceStore } from '../lib/store/dynamodb-workspace-store.js';
import { DynamoDbPostChanges } from '../lib/store/post-change-writes.js';
import { meterSdkClient } from '../lib/store/sdk-metering.js';
import { systemClock } from '../lib/use-cases/ports/clock.js';
import { DynamoDbQueueStore } from '../lib/store/dynamodb-queue-store.js';
import { UpdatePost } from '../lib/use-cases/update-post.js';

// Endpoints come from the SDK's own AWS_ENDPOINT_URL_* variables (set by the local stack, unset on AWS).
const sqs = new SQSClient({});
const scheduler = new SchedulerClient({});
meterSdkClient(sqs, 'sqs');
meterSdkClient(scheduler, 'scheduler');

export const handler = apiHandler({ scope: 'write', jsonBody: true }, () => {
  const directory = new DirectoryTable();
  const updatePost = new UpdatePost({
    changes: new DynamoDbPostChanges(),
    idempotency: new DynamoDbIdempotencyStore(),
    accounts: new DynamoDbAccountStore(directory),
    workspaces: new DynamoDbWorkspaceStore(directory),
    media: new DynamoDbMediaStore(directory),
    dispatcher: new PublishDispatcher(sqs, scheduler, publishDispatcherConfigFromEnv()),
    clock: systemClock,
    mediaBaseUrl: requireEnv(ENV.mediaBaseUrl),
    queues: new DynamoDbQueueStore(directory),
  });
  return {
    pipeline: authenticatedPipeline(directory),
    route: (request, caller) =>
      updatePost.execute(caller, request.pathParameters.id ?? '', request.body as Record<string, unknown>, request.headers['idempotency-key']),
  };
});
