/**
 * The composition root of the queue workers and the sweeper: each adapter built once per cold
 * start, on first use (so importing a function module reads no configuration), with the AWS SDK
 * clients shared by all of them. Each worker asks for its own set (publishWorkerDependencies,
 * platformDeletionWorkerDependencies, sweeperDependencies) and so reads only the settings of what
 * it uses: the sweeper has no directory table nor token key, the deletion worker no publish queue,
 * each exactly the variables its grants come with (infra/stacks/function-access.ts).
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
import { systemClock } from './use-cases/ports/clock.js';
import type { PlatformPublisher } from './use-cases/ports/platform-publisher.js';
import { directoryStores, type DirectoryStores } from './store/directory-stores.js';
import { DynamoDbPublishState } from './store/dynamodb-publish-state.js';
import { S3MediaSourceFactory } from './store/s3-media-source.js';
import { meterSdkClient } from './store/sdk-metering.js';
import { tokenCipherFromEnv } from './store/token-cipher.js';
import { AccessTokens } from './use-cases/access-tokens.js';
import type { PublishMetrics } from './use-cases/publish-post.js';

const sqs = new SQSClient({});
meterSdkClient(sqs, 'sqs');

let directory: DirectoryStores | undefined;
let state: DynamoDbPublishState | undefined;
let tokens: AccessTokens | undefined;
let publishers: Record<PublishablePlatform, PlatformPublisher> | undefined;
let publishQueue: SqsPublishQueue | undefined;
let deletionQueue: SqsPlatformDeletionQueue | undefined;
let mediaSources: S3MediaSourceFactory | undefined;

function directoryStore(): DirectoryStores {
  directory ??= directoryStores();
  return directory;
}

function publishState(): DynamoDbPublishState {
  state ??= new DynamoDbPublishState();
  return state;
}

/** The account tokens (directory table, token key), refreshed through the platforms' OAuth. */
function accessTokens(): AccessTokens {
  tokens ??= new AccessTokens({ credentials: directoryStore().accounts, cipher: tokenCipherFromEnv(), clock: systemClock });
  return tokens;
}

function platformPublishers(): Record<PublishablePlatform, PlatformPublisher> {
  publishers ??= { x: xClientFromEnv(), linkedin: linkedinClientFromEnv() };
  return publishers;
}

function publishQueueSender(): SqsPublishQueue {
  publishQueue ??= new SqsPublishQueue(sqs, requireEnv(ENV.publishQueueUrl));
  return publishQueue;
}

function platformDeletionQueue(): SqsPlatformDeletionQueue {
  deletionQueue ??= new SqsPlatformDeletionQueue(sqs, requireEnv(ENV.deletionQueueUrl));
  return deletionQueue;
}

function mediaSourceFactory(): S3MediaSourceFactory {
  mediaSources ??= new S3MediaSourceFactory();
  return mediaSources;
}

/** What sending a post and recording its outcome on a platform needs (both queue workers). */
export interface PlatformWorkerDependencies {
  directory: DirectoryStores;
  state: DynamoDbPublishState;
  tokens: AccessTokens;
  publishers: Record<PublishablePlatform, PlatformPublisher>;
  log: typeof logger;
}

function platformWorkerDependencies(): PlatformWorkerDependencies {
  return { directory: directoryStore(), state: publishState(), tokens: accessTokens(), publishers: platformPublishers(), log: logger };
}

export interface PublishWorkerDependencies extends PlatformWorkerDependencies {
  /** Re-delays a post that is not due yet or failed transiently. */
  publishQueue: SqsPublishQueue;
  /** Queues the deletion of a post deleted while it was being sent. */
  deletionQueue: SqsPlatformDeletionQueue;
  mediaSources: S3MediaSourceFactory;
}

/** The publish worker: everything above, plus both queues and the media bucket. */
export function publishWorkerDependencies(): PublishWorkerDependencies {
  return {
    ...platformWorkerDependencies(),
    publishQueue: publishQueueSender(),
    deletionQueue: platformDeletionQueue(),
    mediaSources: mediaSourceFactory(),
  };
}

/** The platform deletion worker: deletes live posts; it sends to no queue and reads no media. */
export function platformDeletionWorkerDependencies(): PlatformWorkerDependencies {
  return platformWorkerDependencies();
}

export interface SweeperDependencies {
  state: DynamoDbPublishState;
  publishQueue: SqsPublishQueue;
}

/** The sweeper: the posts table (byDue index) and the publish queue; no account, token or platform. */
export function sweeperDependencies(): SweeperDependencies {
  return { state: publishState(), publishQueue: publishQueueSender() };
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
