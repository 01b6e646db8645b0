/**
 * The adapters a draft's publish and a failed post's retry share (lib/use-cases/publish-draft.ts,
 * retry-post.ts), wired once for their four functions: the API's POST /posts/{id}/publish and
 * /retry, and the settings page's Send now and Retry. Each function still builds its one use case;
 * only what they build it from lives here. The route around it is api-handler.ts or
 * settings-handler.ts, apart so neither face's pipeline is bundled into the other's functions.
 * The SQS and Scheduler clients are made at module scope, so at the cold start.
 */
import { SchedulerClient } from '@aws-sdk/client-scheduler';
import { SQSClient } from '@aws-sdk/client-sqs';
import type { Caller } from '../../lib/domain/caller.js';
import { PublishDispatcher, publishDispatcherConfigFromEnv } from '../../lib/dispatch/publish-dispatcher.js';
import type { DirectoryTable } from '../../lib/store/directory-table.js';
import { DynamoDbAccountStore } from '../../lib/store/dynamodb-account-store.js';
import { DynamoDbMediaStore } from '../../lib/store/dynamodb-media-store.js';
import { DynamoDbPostChanges } from '../../lib/store/post-change-writes.js';
import { meterSdkClient } from '../../lib/store/sdk-metering.js';
import type { IdempotentOutcome } from '../../lib/use-cases/idempotent-request.js';
import type { SendPostDeps } from '../../lib/use-cases/publish-draft.js';

// Endpoints come from the SDK's own AWS_ENDPOINT_URL_* variables (set by the local stack, unset on AWS).
const sqs = new SQSClient({});
const scheduler = new SchedulerClient({});
meterSdkClient(sqs, 'sqs');
meterSdkClient(scheduler, 'scheduler');

/** What sends a post (a draft's publish, a retry) is built from. */
export function sendPostDeps(directory: DirectoryTable, idempotency: SendPostDeps['idempotency'], clock: SendPostDeps['clock']): SendPostDeps {
  return {
    changes: new DynamoDbPostChanges(),
    idempotency,
    accounts: new DynamoDbAccountStore(directory),
    media: new DynamoDbMediaStore(directory),
    dispatcher: new PublishDispatcher(sqs, scheduler, publishDispatcherConfigFromEnv()),
    clock,
  };
}

/** A use case that sends a post: PublishDraft or RetryPost. */
export interface SendsPost {
  execute(caller: Caller, postId: string, body: Record<string, unknown> | null, idempotencyKey: string | undefined): Promise<IdempotentOutcome>;
}

