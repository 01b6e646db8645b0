/** GET /posts/{id} (scope `read`): the post, or 404 post_not_found for a missing, foreign or deleted one. */
import { postView, type PostView } from '../domain/views/post-view.js';
import type { Caller } from '../domain/caller.js';
import type { PostMetricsStore } from './ports/post-metrics-store.js';
import type { PostStore } from './ports/post-store.js';
import { isPostId, postNotFound, visiblePost, withLatestMetrics } from './post-lookup.js';

export class GetPost {
  constructor(private readonly deps: { posts: PostStore; metrics: Pick<PostMetricsStore, 'latestMetrics'> }) {}

  async execute(caller: Caller, postId: string): Promise<PostView> {
    if (!isPostId(postId)) throw postNotFound();
    // Both reads at once: the metrics are keyed by the post's id, so waiting for the post costs a round trip.
    const [found, latest] = await Promise.all([this.deps.posts.getPost(postId), this.deps.metrics.latestMetrics([postId])]);
    const post = visiblePost(found, caller.userId);
    if (!post) throw postNotFound();
    return postView(withLatestMetrics(post, latest));
  }
}
