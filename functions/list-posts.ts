/** GET /api/v1/posts: the caller's posts, newest first, paginated (scope `read`). */
import { apiHandler } from '../lib/http/api-handler.js';
import { cursorSigningKey, postStore } from '../lib/post-dependencies.js';
import { ListPosts, parseListPostsQuery } from '../lib/use-cases/list-posts.js';

let listPosts: ListPosts | undefined;

export const handler = apiHandler(
  async (request, caller) => {
    const query = parseListPostsQuery(request.query);
    listPosts ??= new ListPosts({ posts: postStore(), cursorSigningKey });
    return { status: 200, body: await listPosts.execute(caller, query) };
  },
  { scope: 'read' },
);
