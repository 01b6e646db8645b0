/** POST /api/v1/posts: create posts (scope `write` for a draft, `publish` otherwise; checked by the use case). */
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
import { DynamoDbQueueStore } from '../lib/store/dynamodb-queue-store.js';
import { DynamoDbPostStore } from '../lib/store/dynamodb-post-store.js';
import { DynamoDbWorkspaceStore } from '../lib/store/dynamodb-workspace-store.js';
import { meterSdkClient } from '../lib/store/sdk-metering.js';
import { CreatePosts } from '../lib/use-cases/create-posts.js';
import { systemClock } from '../lib/use-cases/ports/clock.js';

// Endpoints come from the SDK's own AWS_ENDPOINT_URL_* variables (set by the local stack, unset on AWS).
const sqs = new SQSClient({});
const scheduler = new SchedulerClient({});
meterSdkClient(sqs, 'sqs');
meterSdkClient(scheduler, 'scheduler');

export const handler = apiHandler({ jsonBody: true }, () => {
  const directory = new DirectoryTable();
  const createPosts = new CreatePosts({
    posts: new DynamoDbPostStore(),
    idempotency: new DynamoDbIdempotencyStore(),
    accounts: new DynamoDbAccountStore(directory),
    workspaces: new DynamoDbWorkspaceStore(directory),
    media: new DynamoDbMediaStore(directory),
    // Makes posts due: the publish queue, and the schedules' group, role, target and DLQ.
    dispatcher: new PublishDispatcher(sqs, scheduler, publishDispatcherConfigFromEnv()),
    clock: systemClock,
    mediaBaseUrl: requireEnv(ENV.mediaBaseUrl),
    queues: new DynamoDbQueueStore(directory),
  });
  return {
    pipeline: authenticatedPipeline(directory),
    route: (request, caller) => createPosts.execute(caller, request.body, request.headers['idempotency-key']),
  };
});
