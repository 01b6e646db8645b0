/**
 * The sweeper (EventBridge rule every minute on AWS; every few seconds in the local stack): puts
 * back on the publish queue every scheduled post whose message was lost, and on the deletion queue
 * every platform deletion still pending whose message was lost (lib/use-cases/sweep.ts), and on the
 * webhook queue every pending delivery whose attempt's message was lost
 * (lib/use-cases/webhooks/sweep-deliveries.ts), and on the media import queue every import nobody
 * holds, failing API uploads never completed (lib/use-cases/media-import.ts SweepMedia).
 * The first run in a process, and the first run after the publish queue was created anew, also look
 * ahead over the SQS delay window: that is what brings back, on time, the posts whose messages an
 * emptied queue lost (the local stack's in-memory queues after a restart).
 */
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import middy from '@middy/core';
import type { Context, ScheduledEvent } from 'aws-lambda';
import { logger } from '../lib/observability.js';
import { SQSClient } from '@aws-sdk/client-sqs';
import { atColdStart } from '../lib/cold-start.js';
import { ENV, numberEnv, requireEnv } from '../lib/config.js';
import { SqsPlatformDeletionQueue } from '../lib/dispatch/platform-deletion-queue.js';
import { SqsPublishQueue } from '../lib/dispatch/publish-queue.js';
import { SqsWebhookQueue } from '../lib/dispatch/webhook-queue.js';
import { SqsMediaImportQueue } from '../lib/dispatch/media-import-queue.js';
import { DynamoDbMediaLibraryStore } from '../lib/store/dynamodb-media-library.js';
import { S3MediaUploads } from '../lib/store/s3-media-uploads.js';
import { SweepMedia } from '../lib/use-cases/media-import.js';
import { DynamoDbAccountStore } from '../lib/store/dynamodb-account-store.js';
import { DynamoDbPublishState } from '../lib/store/dynamodb-publish-state.js';
import { DynamoDbWebhookStore } from '../lib/store/dynamodb-webhook-store.js';
import { meterSdkClient } from '../lib/store/sdk-metering.js';
import { DUE_SHARDS, PENDING_DELIVERY_SHARDS } from '../lib/store/tables.js';
import { systemClock } from '../lib/use-cases/ports/clock.js';
import { Sweep, type SweepResult } from '../lib/use-cases/sweep.js';
import { SweepDeliveries } from '../lib/use-cases/webhooks/sweep-deliveries.js';
import { flushMetrics, metrics } from '../lib/worker-metrics.js';

const sqs = new SQSClient({});
meterSdkClient(sqs, 'sqs');

/**
 * The posts table (byDue index), the publish and deletion queues, the webhooks table's outbox
 * (byPending) and the webhook queue, the accounts due an expiry warning (the directory's
 * byTokenExpiry index and ACCOUNT items only), the media not settled (byMediaDue, MEDIA items, and
 * deleting an abandoned upload's object) and the import queue; no token, secret or platform.
 */
const composed = atColdStart(() => {
  const publishQueue = new SqsPublishQueue(sqs, requireEnv(ENV.publishQueueUrl));
  const sweep = new Sweep({
    state: new DynamoDbPublishState(),
    queue: publishQueue,
    deletionQueue: new SqsPlatformDeletionQueue(sqs, requireEnv(ENV.deletionQueueUrl)),
    clock: systemClock,
    shards: DUE_SHARDS,
    graceMs: numberEnv(ENV.sweeperGraceSeconds, 10) * 1000,
    expiries: new DynamoDbAccountStore(),
    media: new SweepMedia({
      library: new DynamoDbMediaLibraryStore(),
      storage: new S3MediaUploads(),
      queue: new SqsMediaImportQueue(sqs, requireEnv(ENV.mediaImportQueueUrl)),
      clock: systemClock,
    }),
    deliveries: new SweepDeliveries({
      pending: new DynamoDbWebhookStore(),
      queue: new SqsWebhookQueue(sqs, requireEnv(ENV.webhookQueueUrl)),
      clock: systemClock,
      shards: PENDING_DELIVERY_SHARDS,
    }),
  });
  return { sweep, publishQueue };
});

/** The publish queue's creation time at the last run: undefined before the first run of this process. */
let queueGeneration: string | null | undefined;

export const handler = middy<ScheduledEvent, SweepResult, Error, Context>()
  .use(flushMetrics())
  .handler(async () => {
    const { sweep, publishQueue } = composed();
    // Look ahead on the first run of a process and whenever the queue was created anew since the
    // last run (its messages are gone); if the queue cannot be asked, only on the first run.
    const generation = await publishQueue.generation().catch((error: unknown) => {
      logger.warn('Could not read the publish queue attributes', { error: error as Error });
      return queueGeneration ?? null;
    });
    const lookAhead = queueGeneration === undefined || generation !== queueGeneration;
    const result = await sweep.execute({ lookAhead });
    queueGeneration = generation;
    if (result.resent > 0 || result.deletionsResent > 0 || result.deliveriesResent > 0 || result.failedToSend > 0) logger.warn('Sweeper put lost messages back', { ...result, lookAhead });
    if (result.resent > 0) metrics.addMetric('SweptPosts', MetricUnit.Count, result.resent);
    if (result.tokensExpiring > 0) logger.info('Accounts whose access ends within 7 days marked expiring', { tokensExpiring: result.tokensExpiring });
    if (result.mediaImportsRequeued > 0 || result.uploadsAbandoned > 0) logger.info('Media not settled in time', { mediaImportsRequeued: result.mediaImportsRequeued, uploadsAbandoned: result.uploadsAbandoned });
    if (result.deliveriesResent > 0) metrics.addMetric('SweptWebhookDeliveries', MetricUnit.Count, result.deliveriesResent);
    return result;
  });
