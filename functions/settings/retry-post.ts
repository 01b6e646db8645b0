/**
 * POST /settings/posts/{id}/retry: Retry on a failed post whose error is retryable: it goes out again now under the same id through the API's own retry use case (as POST /api/v1/posts/{id}/retry), spending no new unit. A refusal (the
 * allowance used up, a connection to reconnect first, a second click: the post has moved on) is
 * shown as a page saying why; another user's post id is a 404. No Idempotency-Key: a second click
 * is refused by the change's own condition.
 */
import { SchedulerClient } from '@aws-sdk/client-scheduler';
import { SQSClient } from '@aws-sdk/client-sqs';
import { ApiError } from '../../lib/domain/errors.js';
import { PublishDispatcher, publishDispatcherConfigFromEnv } from '../../lib/dispatch/publish-dispatcher.js';
import { DynamoDbAccountStore } from '../../lib/store/dynamodb-account-store.js';
import { DynamoDbMediaStore } from '../../lib/store/dynamodb-media-store.js';
import { DynamoDbPostChanges } from '../../lib/store/post-change-writes.js';
import { WITHOUT_IDEMPOTENCY_KEYS } from '../../lib/use-cases/post-change-requests.js';
import { RetryPost } from '../../lib/use-cases/retry-post.js';
import { directoryTable, webClock } from '../../lib/web/web-dependencies.js';
import { badRequest, notFound } from '../../lib/web/web-errors.js';
import { signedInHandler } from '../../lib/web/web-handler.js';

// Endpoints come from the SDK's own AWS_ENDPOINT_URL_* variables (set by the local stack, unset on AWS).
const sqs = new SQSClient({});
const scheduler = new SchedulerClient({});
let useCase: RetryPost | undefined;

export const handler = signedInHandler(async (request, signedIn) => {
  useCase ??= new RetryPost({
    changes: new DynamoDbPostChanges(),
    idempotency: WITHOUT_IDEMPOTENCY_KEYS,
    accounts: new DynamoDbAccountStore(directoryTable()),
    media: new DynamoDbMediaStore(directoryTable()),
    dispatcher: new PublishDispatcher(sqs, scheduler, publishDispatcherConfigFromEnv()),
    clock: webClock,
  });
  try {
    await useCase.execute(signedIn.caller, request.pathParameters.id ?? '', null, undefined);
  } catch (error) {
    if (error instanceof ApiError && error.code === 'post_not_found') throw notFound('post');
    if (error instanceof ApiError && error.status < 500) throw badRequest(error.message);
    throw error;
  }
  return { kind: 'redirect', location: '/settings/posts?done=retried' };
});
