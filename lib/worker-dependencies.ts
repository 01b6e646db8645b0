/**
 * The composition root of the queue workers and the sweeper: every adapter they use, built once per
 * cold start (on the first event, so importing a function module reads no configuration), with
 * the AWS SDK clients shared by all of them.
 */
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { SQSClient } from '@aws-sdk/client-sqs';
import type middy from '@middy/core';
import { ENV, requireEnv } from './config.js';
import type { PublishablePlatform } from './domain/model.js';
import { SqsPlatformDeletionQueue } from './dispatch/platform-deletion-queue.js';
import { SqsPublishQueue } from './dispatch/publish-queue.js';
import { logger, metrics } from './observability.js';
import { linkedinClientFromEnv } from './platforms/linkedin-client.js';
import { xClientFromEnv } from './platforms/x-client.js';
import { systemClock, type PlatformPublisher } from './ports.js';
import { DynamoDbDirectoryStore } from './store/dynamodb-directory-store.js';
import { DynamoDbPublishState } from './store/dynamodb-publish-state.js';
import { S3MediaSourceFactory } from './store/s3-media-source.js';
import { meterSdkClient } from './store/sdk-metering.js';
import { tokenCipherFromEnv } from './store/token-cipher.js';
import { AccessTokens } from './use-cases/access-tokens.js';
import type { PublishMetrics } from './use-cases/publish-post.js';

const sqs = new SQSClient({});
meterSdkClient(sqs, 'sqs');

export interface WorkerDependencies {
  directory: DynamoDbDirectoryStore;
  state: DynamoDbPublishState;
  tokens: AccessTokens;
  publishers: Record<PublishablePlatform, PlatformPublisher>;
  publishQueue: SqsPublishQueue;
  log: typeof logger;
}

let built: WorkerDependencies | undefined;

export function workerDependencies(): WorkerDependencies {
  if (built) return built;
  const directory = new DynamoDbDirectoryStore();
  built = {
    directory,
    state: new DynamoDbPublishState(),
    tokens: new AccessTokens({ credentials: directory, cipher: tokenCipherFromEnv(), clock: systemClock }),
    publishers: { x: xClientFromEnv(), linkedin: linkedinClientFromEnv() },
    publishQueue: new SqsPublishQueue(sqs, requireEnv(ENV.publishQueueUrl)),
    log: logger,
  };
  return built;
}

let deletionQueue: SqsPlatformDeletionQueue | undefined;

export function platformDeletionQueue(): SqsPlatformDeletionQueue {
  deletionQueue ??= new SqsPlatformDeletionQueue(sqs, requireEnv(ENV.deletionQueueUrl));
  return deletionQueue;
}

let mediaSources: S3MediaSourceFactory | undefined;

export function mediaSourceFactory(): S3MediaSourceFactory {
  mediaSources ??= new S3MediaSourceFactory();
  return mediaSources;
}

/**
 * Middy step that writes the metrics an invocation added (EMF on stdout), also when it failed.
 * Unlike Powertools' logMetrics it stays silent when there is nothing to write (most sweeps, a
 * batch of duplicates), so logs carry no empty-metrics warning per invocation.
 */
export function flushMetrics(): middy.MiddlewareObj {
  const flush = async (): Promise<void> => {
    if (metrics.hasStoredMetrics()) metrics.publishStoredMetrics();
  };
  return { after: flush, onError: flush };
}

/** Publishing figures as CloudWatch metrics (EMF), written by flushMetrics after each invocation. */
export const publishMetrics: PublishMetrics = {
  published(lagMs) {
    metrics.addMetric('PostPublished', MetricUnit.Count, 1);
    // How late after scheduledFor the platform accepted the post: the 1-second objective.
    metrics.addMetric('PublishLag', MetricUnit.Milliseconds, Math.max(0, lagMs));
  },
  failed(kind) {
    metrics.addMetric('PostFailed', MetricUnit.Count, 1);
    metrics.addMetadata('failure', kind);
  },
  retried(kind) {
    metrics.addMetric('PublishRetried', MetricUnit.Count, 1);
    metrics.addMetadata('retry', kind);
  },
};
