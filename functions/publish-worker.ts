/**
 * Publish queue consumer: each message names a post (or a group of posts due at the same second)
 * to send at its time; the batch's posts are prepared, held and sent together
 * (lib/use-cases/publish-batch.ts, publish-post.ts). A record whose posts could not all be handled
 * is reported in `batchItemFailures` so SQS delivers it again, the others are deleted. A message
 * that is not a publish message is dropped (logged), never retried forever.
 */
import { SQSClient } from '@aws-sdk/client-sqs';
import middy from '@middy/core';
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { atColdStart } from '../lib/cold-start.js';
import { ENV, numberEnv, requireEnv } from '../lib/config.js';
import { parsePublishEntries } from '../lib/dispatch/messages.js';
import { SqsPlatformDeletionQueue } from '../lib/dispatch/platform-deletion-queue.js';
import { SqsPublishQueue } from '../lib/dispatch/publish-queue.js';
import { AMBIGUOUS_RECHECK_MS, PUBLISH_LEASE_MS } from '../lib/domain/publishing.js';
import { logger } from '../lib/observability.js';
import { linkedinClientFromEnv } from '../lib/platforms/linkedin-client.js';
import { xClientFromEnv } from '../lib/platforms/x-client.js';
import { DirectoryTable } from '../lib/store/directory-table.js';
import { DynamoDbAccountStore } from '../lib/store/dynamodb-account-store.js';
import { DynamoDbMediaStore } from '../lib/store/dynamodb-media-store.js';
import { DynamoDbPublishState } from '../lib/store/dynamodb-publish-state.js';
import { S3MediaSourceFactory } from '../lib/store/s3-media-source.js';
import { meterSdkClient } from '../lib/store/sdk-metering.js';
import { tokenCipherFromEnv } from '../lib/store/token-cipher.js';
import { AccessTokens } from '../lib/use-cases/access-tokens.js';
import { systemClock } from '../lib/use-cases/ports/clock.js';
import { CreatesInFlight } from '../lib/use-cases/creates-in-flight.js';
import { PublishBatch, type BatchRecord } from '../lib/use-cases/publish-batch.js';
import { PublishPost } from '../lib/use-cases/publish-post.js';
import { sharingAccountReads } from '../lib/use-cases/shared-account-reads.js';
import { flushMetrics, publishMetrics } from '../lib/worker-metrics.js';

const sqs = new SQSClient({});
meterSdkClient(sqs, 'sqs');

const publishBatch = atColdStart(() => {
  const directory = new DirectoryTable();
  const accounts = new DynamoDbAccountStore(directory);
  const state = new DynamoDbPublishState();
  const queue = new SqsPublishQueue(sqs, requireEnv(ENV.publishQueueUrl));
  const publishPost = new PublishPost({
    state,
    // Posts prepared together for the same account share one read (a burst due at one second).
    accounts: sharingAccountReads(accounts),
    media: new DynamoDbMediaStore(directory),
    mediaSources: new S3MediaSourceFactory(),
    // The account tokens (directory table, token key), refreshed through the platforms' OAuth.
    tokens: new AccessTokens({ credentials: accounts, cipher: tokenCipherFromEnv(), clock: systemClock }),
    setTokenHealth: (accountId, health) => accounts.setTokenHealth(accountId, health),
    setXSubscription: (accountId, subscription, checkedAt) => accounts.setXSubscription(accountId, subscription, checkedAt),
    publishers: { x: xClientFromEnv(), linkedin: linkedinClientFromEnv() },
    // Re-delays a post that is not due yet or failed transiently.
    queue,
    // Queues the deletion of a post deleted while it was being sent.
    deletionQueue: new SqsPlatformDeletionQueue(sqs, requireEnv(ENV.deletionQueueUrl)),
    clock: systemClock,
    // Outcome writes wait for this instance's other creates in flight: send first, record after.
    creates: new CreatesInFlight(),
    metrics: publishMetrics,
    log: logger,
    ambiguousRecheckMs: numberEnv(ENV.publishAmbiguousRecheckSeconds, AMBIGUOUS_RECHECK_MS / 1000) * 1000,
  });
  // Counts the posts due at a second on the due index, and puts posts back grouped by second.
  return new PublishBatch({ publish: publishPost, dueCounts: state, queue, clock: systemClock });
});

export const handler = middy<SQSEvent, SQSBatchResponse, Error, Context>()
  .use(flushMetrics())
  .handler(async (event, context) => {
    const batch = publishBatch();
    const remaining = typeof context.getRemainingTimeInMillis === 'function' ? context.getRemainingTimeInMillis() : 60_000;
    // Short leases renewed while a send runs, never past this invocation's end (publish-lease.ts).
    const lease = { leaseMs: numberEnv(ENV.publishLeaseSeconds, PUBLISH_LEASE_MS / 1000) * 1000, deadline: new Date(Date.now() + remaining) };
    const records: BatchRecord[] = [];
    for (const record of event.Records) {
      const entries = parsePublishEntries(record.body);
      if (entries) records.push({ id: record.messageId, entries });
      else logger.error('Dropped a message that is not a publish message', { messageId: record.messageId });
    }
    const { failed, outcomes } = await batch.execute(records, lease);
    for (const { postId, outcome } of outcomes) {
      if (outcome.outcome === 'error') logger.error('Publish message failed; SQS will deliver it again', { postId, error: outcome.error as Error });
      else logger.debug('Publish message handled', { postId, ...outcome });
    }
    return { batchItemFailures: failed.map((itemIdentifier) => ({ itemIdentifier })) };
  });
