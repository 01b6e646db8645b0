/**
 * The webhook router: DynamoDB Streams records of the posts and directory tables (an event source
 * mapping on AWS whose filters pass only post status changes, platform deletions and account
 * items; the local stream poller, local/stream-router.ts, locally) become events and deliveries
 * (lib/use-cases/webhooks/route-changes.ts). A failure throws: the whole batch is handled again
 * (bisected on AWS), which writes nothing twice (event ids come from the records).
 */
import { SQSClient } from '@aws-sdk/client-sqs';
import middy from '@middy/core';
import type { Context, DynamoDBStreamEvent } from 'aws-lambda';
import { atColdStart } from '../lib/cold-start.js';
import { ENV, requireEnv } from '../lib/config.js';
import { SqsWebhookQueue } from '../lib/dispatch/webhook-queue.js';
import { logger } from '../lib/observability.js';
import { DynamoDbWebhookRoutingStore } from '../lib/store/dynamodb-webhook-routing-store.js';
import { meterSdkClient } from '../lib/store/sdk-metering.js';
import { changeFromStreamRecord } from '../lib/store/webhook-stream-records.js';
import { RouteChanges, type Change } from '../lib/use-cases/webhooks/route-changes.js';

const sqs = new SQSClient({});
// The bench's cost phase counts its sends (a no-op unless SDK_METERING=1).
meterSdkClient(sqs, 'sqs');

const router = atColdStart(() => new RouteChanges({ store: new DynamoDbWebhookRoutingStore(), queue: new SqsWebhookQueue(sqs, requireEnv(ENV.webhookQueueUrl)) }));

export const handler = middy<DynamoDBStreamEvent, void, Error, Context>().handler(async (event) => {
  const changes = event.Records.map(changeFromStreamRecord).filter((change): change is Change => change !== null);
  const summary = await router().execute(changes);
  if (summary.events > 0) logger.info('Webhook events routed', { records: event.Records.length, ...summary });
});
