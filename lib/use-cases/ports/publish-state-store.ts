/** The worker's and sweeper's writes on a post item: lib/store/dynamodb-publish-state.ts. */
import type { Post, PostError } from '../../domain/model.js';
import type { ClaimResult, CommentClaim, PostForPublishing } from '../../domain/publish-state.js';

export interface PublishStateStore {
  /** One strongly consistent GetItem. */
  getPostForPublishing(postId: string): Promise<PostForPublishing | null>;
  /**
   * One conditional write, no read first: the post is scheduled, not deleted, due by `dueBy`
   * (default `now`; its scheduledFor and any pending retry time), and nobody holds it (or the
   * holder's lease ran out). A claim does not make the post in flight: a delete still cancels it.
   */
  claim(postId: string, input: { token: string; now: Date; leaseUntil: Date; dueBy?: Date }): Promise<ClaimResult>;
  /**
   * The "sent" marker, right before the create request: still held by `token` with its lease
   * unexpired at `now`, and not deleted. False means do not send. Records that the create may be
   * live from `now` and the media ids it carries; the post is in flight from here.
   */
  markCreateSending(postId: string, token: string, now: Date, mediaIds?: readonly string[]): Promise<boolean>;
  /** Extends the lease of the holder of `token` (a heartbeat while a send runs). False: the claim is lost. */
  renewLease(postId: string, token: string, until: Date): Promise<boolean>;
  /**
   * Gives the post up until `retryAt`; `uncertain` keeps the record that a create may have gone
   * out. When certain, the post counts as not being sent any more (a delete then cancels it), and a
   * post deleted meanwhile is not released (false): it is to be recorded as never sent.
   * `failed`: the attempt ended in a transient failure (counted: the backoff grows with them).
   */
  releaseForRetry(postId: string, token: string, input: { retryAt: Date; uncertain: boolean; failed: boolean; partsLive?: boolean }): Promise<boolean>;
  /**
   * A thread's part is live (`index` 0: the post itself, i ≥ 1: threadParts[i - 1]): its id
   * recorded and the sent marker cleared in one write, before the next part is sent. Like
   * recordPublished, conditional on the post still scheduled and not on the claim (a platform id in
   * hand is a fact). Returns the post as stored; null when it is not scheduled any more or the part
   * holds another id.
   */
  recordThreadPart(postId: string, index: number, result: { platformPostId: string; publishedUrl: string }, now: Date): Promise<Post | null>;
  /**
   * The first comment of a published post: claimed for one attempt (pending, not deleted, nobody
   * holding it, its retry time reached). Null when not claimed.
   */
  claimComment(postId: string, input: { token: string; now: Date; leaseUntil: Date }): Promise<CommentClaim | null>;
  /** The comment's "sent" marker, right before its create request; false: do not send. */
  markCommentSending(postId: string, token: string, now: Date): Promise<boolean>;
  /**
   * The comment's outcome (published with its id, or failed for good); the post's own status never
   * changes. `token`: only while that claim holds it (a published id is recorded whoever learnt it).
   */
  recordComment(postId: string, outcome: { status: 'published'; platformCommentId: string } | { status: 'failed'; error: PostError }, now: Date, token?: string): Promise<Post | null>;
  /** Gives the comment up until `retryAt`; `uncertain` keeps its sent marker (look it up first). */
  releaseComment(postId: string, token: string, input: { retryAt: Date; uncertain: boolean }): Promise<boolean>;
  /** The post went out; returns the post as stored (deletedAt set when it was deleted meanwhile). Null: not scheduled any more. */
  recordPublished(post: Post, outcome: { publishedAt: string; publishedUrl: string; platformPostId: string }, now: Date): Promise<Post | null>;
  /** The post did not go out; only while `token` still holds the claim (a worker whose lease was taken over writes nothing). */
  recordFailed(post: Post, error: PostError, now: Date, token: string): Promise<Post | null>;
  /**
   * A post deleted while it was being sent whose create certainly did not go out: recorded failed
   * with `error` and its allowance unit given back, together and at most once, only while `token`
   * holds the claim. False when that no longer holds (nothing written).
   */
  recordNeverSent(post: Post, error: PostError, now: Date, token: string): Promise<boolean>;
  /** Sweeper: Query byDue of one shard for posts due in [dueFrom, dueTo). */
  listDue(shard: number, input: { dueFrom: string | null; dueTo: string; limit: number }): Promise<PostForPublishing[]>;
  /** Sweeper: conditional stamp so a post is put back at most once per interval. False when it changed meanwhile. */
  markSwept(postId: string, input: { now: Date; sweptBefore: Date }): Promise<boolean>;
  /**
   * Sweeper: the same stamp for a published post whose platform deletion is pending, which also
   * moves its due entry to `resendAt`. False when it is not pending any more, or (with `lateBefore`)
   * its entry is not before that time any more (another sweeper moved it).
   */
  markDeletionSwept(postId: string, input: { now: Date; lateBefore: Date | null; resendAt: Date }): Promise<boolean>;
  /** The live post is gone: recorded, and its deletion leaves the due index. Idempotent. */
  markPlatformDeleted(postId: string, now: Date): Promise<void>;
  /** The platform refused the deletion for good: it leaves the due index, the reason stays on the post. */
  abandonPlatformDeletion(postId: string, input: { now: Date; reason: string }): Promise<void>;
}
