/**
 * Publish queue consumer: each message names a post to send at its time (lib/use-cases/publish-post.ts).
 * Records are handled concurrently; a record whose handling threw is reported in
 * `batchItemFailures` so SQS delivers it again, the others are deleted. A message that is not a
 * publish message is dropped (logged), never retried forever.
 */
import middy from '@middy/core';
import type { Context, SQSBatchItemFailure, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { ENV, numberEnv } from '../lib/config.js';
import { parsePublishMessage } from '../lib/dispatch/messages.js';
import { logger } from '../lib/observability.js';
import { systemClock } from '../lib/use-cases/ports/clock.js';
import { PublishPost } from '../lib/use-cases/publish-post.js';
import { flushMetrics, publishMetrics, publishWorkerDependencies } from '../lib/worker-dependencies.js';

/** A claim outlives the invocation that holds it (Lambda stops it at its timeout), plus a margin. */
const LEASE_MARGIN_MS = 60_000;
const MAX_LEASE_MS = 15 * 60_000;

let publishPost: PublishPost | undefined;

function build(): PublishPost {
  const deps = publishWorkerDependencies();
  return new PublishPost({
    state: deps.state,
    accounts: deps.directory.accounts,
    media: deps.directory.media,
    mediaSources: deps.mediaSources,
    tokens: deps.tokens,
    setTokenHealth: (accountId, health) => deps.directory.accounts.setTokenHealth(accountId, health),
    publishers: deps.publishers,
    queue: deps.publishQueue,
    deletionQueue: deps.deletionQueue,
    clock: systemClock,
    metrics: publishMetrics,
    log: deps.log,
    ambiguousRecheckMs: numberEnv(ENV.publishAmbiguousRecheckSeconds, 30) * 1000,
  });
}

export const handler = middy<SQSEvent, SQSBatchResponse, Error, Context>()
  .use(flushMetrics())
  .handler(async (event, context) => {
    publishPost ??= build();
    const remaining = typeof context.getRemainingTimeInMillis === 'function' ? context.getRemainingTimeInMillis() : 60_000;
    const leaseMs = Math.min(MAX_LEASE_MS, Math.max(remaining, 30_000) + LEASE_MARGIN_MS);
    const failures: SQSBatchItemFailure[] = [];
    await Promise.all(
      event.Records.map(async (record) => {
        const message = parsePublishMessage(record.body);
        if (!message) {
          logger.error('Dropped a message that is not a publish message', { messageId: record.messageId });
          return;
        }
        try {
          const result = await (publishPost as PublishPost).execute(message, { leaseMs });
          logger.debug('Publish message handled', { postId: message.postId, ...result });
        } catch (error) {
          logger.error('Publish message failed; SQS will deliver it again', { postId: message.postId, error: error as Error });
          failures.push({ itemIdentifier: record.messageId });
        }
      }),
    );
    return { batchItemFailures: failures };
  });
