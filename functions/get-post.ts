/** GET /api/v1/posts/{id}: one post of the caller (scope `read`). */
import { apiHandler } from '../lib/http/api-handler.js';
import { postStore } from '../lib/post-dependencies.js';
import { GetPost } from '../lib/use-cases/get-post.js';
import { checkNoQuery } from '../lib/use-cases/post-lookup.js';

let getPost: GetPost | undefined;

export const handler = apiHandler(
  async (request, caller) => {
    checkNoQuery(request.query, 'GET /posts/{id}');
    getPost ??= new GetPost({ posts: postStore() });
    return { status: 200, body: await getPost.execute(caller, request.pathParameters.id ?? '') };
  },
  { scope: 'read' },
);
