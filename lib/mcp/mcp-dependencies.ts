/**
 * The use cases behind the MCP tools, built once per cold start from the same adapters the API's
 * functions build (functions/create-posts.ts, list-posts.ts, get-post.ts, delete-post.ts,
 * list-accounts.ts, update-post.ts, publish-draft.ts, retry-post.ts), so a tool and its API route run the very same code on the very same stores.
 */
import { SchedulerClient } from '@aws-sdk/client-scheduler';
import { SQSClient } from '@aws-sdk/client-sqs';
import { ENV, optionalEnv, requireEnv } from '../config.js';
import { notWired } from '../not-wired.js';
import { SqsPlatformDeletionQueue } from '../dispatch/platform-deletion-queue.js';
import { PublishDispatcher, publishDispatcherConfigFromEnv, ScheduleCanceller } from '../dispatch/publish-dispatcher.js';
import { requestCounting } from '../http/api-pipeline.js';
import { oauthUrls, tokenService } from '../oauth/oauth-dependencies.js';
import { readSecret } from '../secrets.js';
import { DynamoDbAllowanceReader } from '../store/allowance-counter.js';
import { DirectoryTable } from '../store/directory-table.js';
import { DynamoDbEventStore } from '../store/dynamodb-event-store.js';
import { DynamoDbAccountStore } from '../store/dynamodb-account-store.js';
import { DynamoDbIdempotencyStore } from '../store/dynamodb-idempotency-store.js';
import { DynamoDbMediaLibraryStore } from '../store/dynamodb-media-library.js';
import { SqsMediaImportQueue } from '../dispatch/media-import-queue.js';
import { MediaFiles } from '../use-cases/media-files.js';
import { DynamoDbMediaStore } from '../store/dynamodb-media-store.js';
import { AccountQueues } from '../use-cases/queues.js';
import { DynamoDbQueueStore } from '../store/dynamodb-queue-store.js';
import { DynamoDbPostStore } from '../store/dynamodb-post-store.js';
import { DynamoDbUserStore } from '../store/dynamodb-user-store.js';
import { DynamoDbWorkspaceStore } from '../store/dynamodb-workspace-store.js';
import { meterSdkClient } from '../store/sdk-metering.js';
import { CreatePosts } from '../use-cases/create-posts.js';
import { DeletePost } from '../use-cases/delete-post.js';
import { Events } from '../use-cases/events.js';
import { GetPost } from '../use-cases/get-post.js';
import { ListAccounts } from '../use-cases/list-accounts.js';
import { ListPosts } from '../use-cases/list-posts.js';
import { systemClock } from '../use-cases/ports/clock.js';
import { PreviewPosts } from '../use-cases/preview-posts.js';
import { PublishDraft } from '../use-cases/publish-draft.js';
import { RetryPost } from '../use-cases/retry-post.js';
import { UpdatePost } from '../use-cases/update-post.js';
import { DynamoDbPostChanges } from '../store/post-change-writes.js';
import type { McpEndpointDeps } from './mcp-endpoint.js';
import { DynamoDbPostMetrics } from '../store/dynamodb-post-metrics.js';
import { GetAnalytics, GetPostMetrics } from '../use-cases/post-metrics.js';

/**
 * Where a person sees a post in settings, and cancels it while it is scheduled: its row on the
 * Posts page (newest first, so a post an assistant just created is on the first page).
 */
export function postSettingsUrl(origin: string, post: { id: string }): string {
  return `${origin}/settings/posts#${encodeURIComponent(post.id)}`;
}

let deps: McpEndpointDeps | undefined;

export function mcpDependencies(): McpEndpointDeps {
  if (deps) return deps;
  const sqs = new SQSClient({});
  const scheduler = new SchedulerClient({});
  meterSdkClient(sqs, 'sqs');
  meterSdkClient(scheduler, 'scheduler');
  const directory = new DirectoryTable();
  const accounts = new DynamoDbAccountStore(directory);
  const workspaces = new DynamoDbWorkspaceStore(directory);
  const posts = new DynamoDbPostStore();
  const postMetrics = new DynamoDbPostMetrics();
  const library = new DynamoDbMediaLibraryStore(directory);
  const counting = requestCounting();
  const urls = oauthUrls();
  const reads = { accounts, workspaces, media: new DynamoDbMediaStore(directory), mediaBaseUrl: requireEnv(ENV.mediaBaseUrl) };
  const idempotency = new DynamoDbIdempotencyStore();
  const dispatcher = new PublishDispatcher(sqs, scheduler, publishDispatcherConfigFromEnv());
  const queues = new DynamoDbQueueStore(directory);
  const lifecycle = { ...reads, changes: new DynamoDbPostChanges(), idempotency, dispatcher, clock: systemClock, queues };
  deps = {
    tokens: tokenService(new DynamoDbUserStore(directory)),
    limiter: counting.rateLimiter,
    clock: systemClock,
    perMinute: counting.limits.perMinute,
    urls,
    tools: {
      listAccounts: new ListAccounts({ accounts, workspaces }),
      listPosts: new ListPosts({ posts, metrics: postMetrics, cursorSigningKey: () => readSecret(ENV.cursorSigningKey, ENV.cursorSigningKeySecretId) }),
      getPost: new GetPost({ posts, metrics: postMetrics }),
      events: new Events({ events: new DynamoDbEventStore(), clock: systemClock, cursorSigningKey: () => readSecret(ENV.cursorSigningKey, ENV.cursorSigningKeySecretId) }),
      createPosts: new CreatePosts({
        ...reads,
        posts,
        idempotency,
        dispatcher,
        clock: systemClock,
        queues,
      }),
      updatePost: new UpdatePost(lifecycle),
      publishDraft: new PublishDraft(lifecycle),
      retryPost: new RetryPost(lifecycle),
      queues: new AccountQueues({ accounts, queues, clock: systemClock }),
      previewPosts: new PreviewPosts({ ...reads, allowance: new DynamoDbAllowanceReader(), clock: systemClock, queues }),
      deletePost: new DeletePost({
        posts,
        dispatcher: new ScheduleCanceller(scheduler, requireEnv(ENV.schedulerGroup)),
        deletionQueue: new SqsPlatformDeletionQueue(sqs, requireEnv(ENV.deletionQueueUrl)),
        clock: systemClock,
      }),
      getPostMetrics: new GetPostMetrics({ store: postMetrics }),
      getAnalytics: new GetAnalytics({ store: postMetrics }),
      // The library as /media answers it; an import is queued as POST /media queues it. No upload
      // (an assistant has no bytes to PUT) and no delete: those parts are not wired.
      media: new MediaFiles({
        library,
        storage: notWired('The media bucket'),
        idempotency,
        posts: notWired('The posts table'),
        mediaBaseUrl: () => requireEnv(ENV.mediaBaseUrl),
        cursorSigningKey: () => readSecret(ENV.cursorSigningKey, ENV.cursorSigningKeySecretId),
        importQueue: new SqsMediaImportQueue(sqs, requireEnv(ENV.mediaImportQueueUrl)),
        allowLoopbackImports: optionalEnv(ENV.mediaImportAllowLoopback, 'false') === 'true',
        clock: systemClock,
      }),
      postSettingsUrl: (post) => postSettingsUrl(urls.origin, post),
    },
  };
  return deps;
}

