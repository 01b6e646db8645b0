/** DELETE /api/v1/posts/{id}: cancel, remove or soft-delete a post (scope `write`). */
import { apiHandler } from '../lib/http/api-handler.js';
import { httpDependencies } from '../lib/http/http-dependencies.js';
import { platformDeletionQueue, postStore, scheduleCanceller } from '../lib/post-dependencies.js';
import { DeletePost, parseDeletePostQuery } from '../lib/use-cases/delete-post.js';

let deletePost: DeletePost | undefined;

export const handler = apiHandler(
  async (request, caller) => {
    const options = parseDeletePostQuery(request.query);
    deletePost ??= new DeletePost({
      posts: postStore(),
      dispatcher: scheduleCanceller(),
      deletionQueue: platformDeletionQueue(),
      clock: httpDependencies().clock,
    });
    return { status: 200, body: await deletePost.execute(caller, request.pathParameters.id ?? '', options) };
  },
  { scope: 'write' },
);
