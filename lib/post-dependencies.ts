/**
 * The adapters behind the post routes, built once per cold start on first use (so importing a
 * function module reads no configuration), each reading only the settings it uses: a function
 * builds only what it needs and so needs only the variables its grants come with
 * (infra/stacks/function-access.ts). GET /posts/{id} reads no queue setting; DELETE builds the
 * schedule canceller (the schedule group), never the dispatcher that creates schedules and sends
 * to the publish queue. SDK clients are created here, once per process; their endpoints come
 * from the SDK's own AWS_ENDPOINT_URL_* variables, set by the local stack and unset on AWS.
 */
import { SchedulerClient } from '@aws-sdk/client-scheduler';
import { SQSClient } from '@aws-sdk/client-sqs';
import { ENV, requireEnv } from './config.js';
import { SqsPlatformDeletionQueue } from './dispatch/platform-deletion-queue.js';
import { PublishDispatcher, ScheduleCanceller } from './dispatch/publish-dispatcher.js';
import { readSecret } from './secrets.js';
import { DynamoDbIdempotencyStore } from './store/dynamodb-idempotency-store.js';
import { DynamoDbPostStore } from './store/dynamodb-post-store.js';
import { meterSdkClient } from './store/sdk-metering.js';

let posts: DynamoDbPostStore | undefined;
let idempotency: DynamoDbIdempotencyStore | undefined;
let sqs: SQSClient | undefined;
let scheduler: SchedulerClient | undefined;
let dispatcher: PublishDispatcher | undefined;
let canceller: ScheduleCanceller | undefined;
let deletionQueue: SqsPlatformDeletionQueue | undefined;

export function postStore(): DynamoDbPostStore {
  posts ??= new DynamoDbPostStore();
  return posts;
}

export function idempotencyStore(): DynamoDbIdempotencyStore {
  idempotency ??= new DynamoDbIdempotencyStore();
  return idempotency;
}

function sqsClient(): SQSClient {
  if (!sqs) {
    sqs = new SQSClient({});
    meterSdkClient(sqs, 'sqs');
  }
  return sqs;
}

function schedulerClient(): SchedulerClient {
  if (!scheduler) {
    scheduler = new SchedulerClient({});
    meterSdkClient(scheduler, 'scheduler');
  }
  return scheduler;
}

/** Makes posts due (POST /posts): the publish queue, and the schedules' group, role, target and DLQ. */
export function publishDispatcher(): PublishDispatcher {
  dispatcher ??= new PublishDispatcher(sqsClient(), schedulerClient(), {
    publishQueueUrl: requireEnv(ENV.publishQueueUrl),
    publishQueueArn: requireEnv(ENV.publishQueueArn),
    schedulerGroup: requireEnv(ENV.schedulerGroup),
    schedulerRoleArn: requireEnv(ENV.schedulerRoleArn),
    schedulerDlqArn: requireEnv(ENV.schedulerDlqArn),
  });
  return dispatcher;
}

/** Deletes pending schedules (DELETE /posts/{id}): the schedule group only. */
export function scheduleCanceller(): ScheduleCanceller {
  canceller ??= new ScheduleCanceller(schedulerClient(), requireEnv(ENV.schedulerGroup));
  return canceller;
}

export function platformDeletionQueue(): SqsPlatformDeletionQueue {
  deletionQueue ??= new SqsPlatformDeletionQueue(sqsClient(), requireEnv(ENV.deletionQueueUrl));
  return deletionQueue;
}

export function mediaBaseUrl(): string {
  return requireEnv(ENV.mediaBaseUrl);
}

/** The cursor signing key: the value itself locally, a Secrets Manager secret (fetched once) on AWS. */
export function cursorSigningKey(): Promise<string> {
  return readSecret(ENV.cursorSigningKey, ENV.cursorSigningKeySecretId);
}
