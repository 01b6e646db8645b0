/** The posts table as the API routes use it (POST/GET/DELETE /posts): lib/store/dynamodb-post-store.ts. */
import type { IdempotencyLock, IdempotentResponse } from '../../domain/idempotency-record.js';
import type { Post, PostError, PostStatus } from '../../domain/model.js';

export interface NewPostsWrite {
  userId: string;
  /**
   * The posts of one create that passed every rule, in request order. A post with a non-null
   * allowanceCycle (all in the same cycle) spends one unit of the allowance; drafts spend none.
   */
  posts: Post[];
  allowanceLimit: number;
  /** Completed in the same transaction as the posts, so posts never exist without their replayable response. */
  idempotency: IdempotencyLock | null;
  /** The response to remember, given the ids actually written; null remembers nothing. */
  response(writtenIds: ReadonlySet<string>): IdempotentResponse | null;
  /**
   * Posts scheduled at an explicit time that is a slot of their account's queue: each takes that
   * slot's item if nobody holds it (so no queued post lands on it), and is written without it
   * otherwise, never refused. Their written copies say `queueSlot: true` when they hold it.
   */
  slotsAsked?: ReadonlySet<string>;
}

export interface NewPostsResult {
  /** Written, in request order: every draft and the first posts the allowance could cover. */
  written: Post[];
  /** Not written because the allowance was used up (the rest, in request order). */
  overAllowance: Post[];
}

export interface ScheduleFailureWrite {
  userId: string;
  /** Scheduled posts that were written but could not be queued: they become failed, units given back. */
  posts: Post[];
  error: PostError;
  now: Date;
  idempotency: IdempotencyLock | null;
  /** The response to remember now; null forgets the record (the answer is no longer a 202). */
  response: IdempotentResponse | null;
}

/** Continuation of a list: the key the previous page ended on (opaque to use cases, signed into the cursor). */
export type PostPageKey = Record<string, string>;

export interface PostListQuery {
  userId: string;
  status: PostStatus | null;
  limit: number;
  startKey: PostPageKey | null;
  /** Only posts created before this instant (ISO): the Calendar's bound on the index's sort key. */
  createdBefore?: string;
}

export interface PostPage {
  posts: Post[];
  /** Set only when more posts follow (every page before the last is full). */
  nextKey: PostPageKey | null;
}

export interface PostStore {
  /** One TransactWriteItems for the whole request (posts + allowance + idempotency record). */
  createPosts(write: NewPostsWrite): Promise<NewPostsResult>;
  /** Marks posts failed (schedule_failed) and gives their units back; returns the posts as now stored. */
  markScheduleFailed(write: ScheduleFailureWrite): Promise<Post[]>;
  /** The stored post, deleted or not (callers decide what is visible). */
  getPost(postId: string): Promise<Post | null>;
  /** Newest first, live posts only. Throws InvalidPageKeyError for a start key not of this user and filter. */
  listPosts(query: PostListQuery): Promise<PostPage>;
  /**
   * Removes the post if it is still in the state it was read in; gives its allowance unit back in
   * the same transaction when refundCycle is set. False when the state changed meanwhile.
   */
  removePost(post: Post, refundCycle: string | null): Promise<boolean>;
  /**
   * Hides the post from every read and keeps the record (deletedAt set, index attributes removed),
   * if it is still in the state it was read in. Null when the state changed meanwhile.
   */
  softDeletePost(post: Post, options: { deleteFromPlatform: boolean; now: Date }): Promise<Post | null>;
  /** Undoes softDeletePost (the platform deletion could not be queued, so the request fails whole). */
  restoreSoftDeleted(post: Post): Promise<void>;
}
