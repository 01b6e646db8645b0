/** What "a post on the caller's account" means for GET and DELETE /posts/{id}. */
import { ApiError } from '../domain/errors.js';
import { checkQueryParameters } from '../domain/query-parameters.js';
import type { Post } from '../domain/model.js';
import type { PostMetrics } from '../domain/post-metrics.js';

/** Ids are `post_` + 20 base62 characters (lib/ids.ts); anything else cannot exist, so it is not looked up. */
const POST_ID = /^post_[0-9A-Za-z]{20}$/;

export function isPostId(id: string): boolean {
  return POST_ID.test(id);
}

export function postNotFound(): ApiError {
  return new ApiError('post_not_found', 'No such post on your account.', { param: 'id' });
}

/**
 * Visible to this caller: exists, is theirs, is not deleted. Someone else's post answers exactly
 * like a missing one, so ids of other tenants cannot be probed.
 */
export function visiblePost(post: Post | null, userId: string): Post | null {
  return post && post.userId === userId && post.deletedAt === null ? post : null;
}

/** Strict like every endpoint: a misspelt parameter is refused rather than ignored. */
export function checkNoQuery(query: Record<string, string>, endpoint: string): void {
  checkQueryParameters(query, [], `${endpoint} takes none.`);
}

/**
 * The post with its latest metrics, which live on an item of their own (lib/store/dynamodb-post-metrics.ts);
 * a post collected before that item existed keeps its own until its next collection.
 */
export function withLatestMetrics(post: Post, latest: ReadonlyMap<string, PostMetrics>): Post {
  const metrics = latest.get(post.id);
  return metrics ? { ...post, metrics } : post;
}
