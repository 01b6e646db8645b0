/** The post lifecycle's writes on the posts table (PATCH, publish, retry): lib/store/post-change-writes.ts. */
import type { IdempotencyCompletion } from '../../domain/idempotency-record.js';
import type { Post } from '../../domain/model.js';
import type { PostProgress } from '../../domain/post-changes.js';

/** A post as a change reads it: the post, its revision (the condition of the write), and the worker's progress. */
export interface PostForChange {
  post: Post;
  /** Bumped by every lifecycle change; 0 for a post never changed since its create. */
  revision: number;
  progress: PostProgress;
}

export interface PostChangeWrite {
  before: PostForChange;
  after: Post;
  /** Spends one unit of `after.allowanceCycle`'s allowance in the same transaction (publish; a retry of a post whose unit was given back). */
  spend: { allowanceLimit: number } | null;
  /** Clears the worker's bookkeeping of earlier attempts (a retry starts afresh). */
  resetPublishState: boolean;
  /** Completed in the same transaction, so a change never exists without its replayable answer. */
  idempotency: IdempotencyCompletion | null;
}

/**
 * applied: written as asked. conflict: the post is not as it was read any more (changed, deleted,
 * claimed by the worker, another retry won); nothing was written. over_allowance: the plan's
 * allowance for the cycle is used up; nothing was written.
 */
export type PostChangeResult = { outcome: 'applied'; post: Post } | { outcome: 'conflict' } | { outcome: 'over_allowance' };

export interface PostChangeStore {
  /** One strongly consistent GetItem; null when there is no such item. */
  getPostForChange(postId: string): Promise<PostForChange | null>;
  /**
   * One conditional write (a transaction with the allowance counter and the idempotency record
   * when there are any): only while the post is still exactly as `before` says (same status and
   * revision, not deleted) and, for a draft or a scheduled post, no publish attempt has begun (no
   * claim, lease, or sent marker); for a failed post, while its error is retryable.
   */
  changePost(write: PostChangeWrite): Promise<PostChangeResult>;
}
