/**
 * POST /settings/posts/{id}/cancel: cancels a scheduled post through the API's own delete use
 * case (as DELETE /api/v1/posts/{id} without deleteFromPlatform): the schedule is deleted and
 * the allowance unit given back. Another user's post id is a 404.
 */
import { ApiError } from '../../lib/domain/errors.js';
import { SchedulerClient } from '@aws-sdk/client-scheduler';
import { SQSClient } from '@aws-sdk/client-sqs';
import { ENV, requireEnv } from '../../lib/config.js';
import { SqsPlatformDeletionQueue } from '../../lib/dispatch/platform-deletion-queue.js';
import { ScheduleCanceller } from '../../lib/dispatch/publish-dispatcher.js';
import { DynamoDbPostStore } from '../../lib/store/dynamodb-post-store.js';
import { DeletePost } from '../../lib/use-cases/delete-post.js';
import { webClock } from '../../lib/web/web-dependencies.js';
import { badRequest, notFound } from '../../lib/web/web-errors.js';
import { isPostId, visiblePost } from '../../lib/use-cases/post-lookup.js';
import { signedInHandler } from '../../lib/web/web-handler.js';

// Endpoints come from the SDK's own AWS_ENDPOINT_URL_* variables (set by the local stack, unset on AWS).
const sqs = new SQSClient({});
const scheduler = new SchedulerClient({});
let deletePost: DeletePost | undefined;
let posts: DynamoDbPostStore | undefined;

export const handler = signedInHandler(async (request, signedIn) => {
  posts ??= new DynamoDbPostStore();
  deletePost ??= new DeletePost({
    posts,
    dispatcher: new ScheduleCanceller(scheduler, requireEnv(ENV.schedulerGroup)),
    deletionQueue: new SqsPlatformDeletionQueue(sqs, requireEnv(ENV.deletionQueueUrl)),
    clock: webClock,
  });
  const postId = request.pathParameters.id ?? '';
  // Cancel means a scheduled post: a draft or a published post is not touched from this button.
  const post = isPostId(postId) ? visiblePost(await posts.getPost(postId), signedIn.caller.userId) : null;
  if (!post) throw notFound('post');
  if (post.status !== 'scheduled') throw badRequest(`This post is ${post.status}: only a scheduled post can be cancelled.`);
  try {
    await deletePost.execute(signedIn.caller, postId, { deleteFromPlatform: false });
  } catch (error) {
    if (error instanceof ApiError && error.code === 'post_not_found') throw notFound('post');
    throw error;
  }
  return { kind: 'redirect', location: '/settings/posts?done=cancelled' };
});
