/** GET /posts/{id} (scope `read`): the post, or 404 post_not_found for a missing, foreign or deleted one. */
import { postView, type PostView } from '../domain/views/post-view.js';
import type { Caller } from '../domain/caller.js';
import type { PostStore } from './ports/post-store.js';
import { isPostId, postNotFound, visiblePost } from './post-lookup.js';

export class GetPost {
  constructor(private readonly deps: { posts: PostStore }) {}

  async execute(caller: Caller, postId: string): Promise<PostView> {
    if (!isPostId(postId)) throw postNotFound();
    const post = visiblePost(await this.deps.posts.getPost(postId), caller.userId);
    if (!post) throw postNotFound();
    return postView(post);
  }
}
