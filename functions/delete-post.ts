/**
 * DELETE /api/v1/posts/{id}: cancel, remove or soft-delete a post (scope `write`). It builds the
 * schedule canceller (the schedule group only), never the dispatcher that creates schedules and
 * sends to the publish queue, so it needs neither their settings nor their grants.
 */
import { SchedulerClient } from '@aws-sdk/client-scheduler';
import { SQSClient } from '@aws-sdk/client-sqs';
import { ENV, requireEnv } from '../lib/config.js';
import { SqsPlatformDeletionQueue } from '../lib/dispatch/platform-deletion-queue.js';
import { ScheduleCanceller } from '../lib/dispatch/publish-dispatcher.js';
import { apiHandler } from '../lib/http/api-handler.js';
import { authenticatedPipeline } from '../lib/http/api-pipeline.js';
import { DynamoDbPostStore } from '../lib/store/dynamodb-post-store.js';
import { meterSdkClient } from '../lib/store/sdk-metering.js';
import { DeletePost, parseDeletePostQuery } from '../lib/use-cases/delete-post.js';
import { systemClock } from '../lib/use-cases/ports/clock.js';

// Endpoints come from the SDK's own AWS_ENDPOINT_URL_* variables (set by the local stack, unset on AWS).
const sqs = new SQSClient({});
const scheduler = new SchedulerClient({});
meterSdkClient(sqs, 'sqs');
meterSdkClient(scheduler, 'scheduler');

export const handler = apiHandler({ scope: 'write' }, () => {
  const deletePost = new DeletePost({
    posts: new DynamoDbPostStore(),
    dispatcher: new ScheduleCanceller(scheduler, requireEnv(ENV.schedulerGroup)),
    deletionQueue: new SqsPlatformDeletionQueue(sqs, requireEnv(ENV.deletionQueueUrl)),
    clock: systemClock,
  });
  return {
    pipeline: authenticatedPipeline(),
    route: async (request, caller) => {
      const options = parseDeletePostQuery(request.query);
      return { status: 200, body: await deletePost.execute(caller, request.pathParameters.id ?? '', options) };
    },
  };
});
