/**
 * The posts' metrics bookkeeping (lib/store/dynamodb-post-metrics.ts): the due index, the claim, the
 * figures and their history. They live on an item of their own beside the post (a collection
 * writes ~0.5 KB, not the whole post and its list indexes); a post published before its first
 * collection still carries its first due entry on the post item (set by the write that published
 * it), and the first record there moves everything to the metrics item.
 */
import type { Post } from '../../domain/model.js';
import type { PostMetrics } from '../../domain/post-metrics.js';

/** Where a post's due entry and claim are: on the post item until its first record, on its metrics item after. */
export type MetricsTracking = 'post' | 'metrics';

/** One entry of the byMetricsDue index: the post due, and which item holds the entry. */
export interface DueCollection {
  postId: string;
  on: MetricsTracking;
}

/** A post held by one collection: what the collector needs of it, as the claim's write left it. */
export interface ClaimedPost {
  post: Post;
  history: PostMetrics[];
  /** Only this claim may record or postpone (a collector whose claim ran out writes nothing). */
  claimToken: string;
  /** The item the claim is on; a claim on the post item moves the post's metrics to their own item when it records. */
  on: MetricsTracking;
  /** The due entry when claimed (a refresh keeps it: moved as it is when the metrics change item). */
  dueAt: Date | null;
  /** The last refresh counted (the 5-minute limit), carried along when the metrics change item. */
  refreshedAt: string | null;
}

export interface PostMetricsRecord {
  post: Post;
  history: PostMetrics[];
  /** The last refresh asked through the API (the 5-minute limit), null when none. */
  refreshedAt: string | null;
}

export type RefreshClaim =
  | { claimed: ClaimedPost }
  | { refused: 'not_found' | 'not_published' | 'too_soon' | 'in_progress'; retryAt?: Date };

/** One page of a user's published posts for the backfill: what it needs of each, and where the next page starts. */
export interface PublishedPage {
  posts: Array<{ id: string; publishedAt: string }>;
  /** Index entries read for this page, before the filter kept `posts`. */
  read: number;
  /** Passed back to read the next page; null after the last. */
  cursor: string | null;
}

export interface PostMetricsStore {
  /** Posts whose next collection is due by `dueBy` in one shard of byMetricsDue, oldest first. */
  listDue(shard: number, dueBy: Date, limit: number): Promise<DueCollection[]>;
  /**
   * Takes due posts for one collection each: those not due any more or held by another collection
   * are left out, and so is one whose post item is gone (its entry removed: nothing to collect).
   */
  claimDue(due: readonly DueCollection[], input: { now: Date; dueBy: Date; claimMs: number; token: string }): Promise<ClaimedPost[]>;
  /**
   * Takes a published post of this user for a refresh, counting the refresh in the same write
   * (at most one per `refreshIntervalMs`), or says why not.
   */
  claimRefresh(userId: string, postId: string, input: { now: Date; claimMs: number; refreshIntervalMs: number; token: string }): Promise<RefreshClaim>;
  /**
   * Writes a collection's history (its last entry is the post's latest metrics) and moves the
   * post's due entry to `nextDueAt` (removed when null; kept as it was when undefined: a refresh),
   * releasing the claim. False when the claim was lost.
   */
  record(claim: ClaimedPost, input: { history: PostMetrics[]; nextDueAt: Date | null | undefined }): Promise<boolean>;
  /** Releases the claim and moves the due entry to `dueAt` (a rate limit, an outage), or removes it (null). */
  postpone(claim: ClaimedPost, dueAt: Date | null): Promise<boolean>;
  /** Releases the claim and nothing else (a refresh that failed: the schedule stays as it was). */
  release(claim: ClaimedPost): Promise<boolean>;
  /**
   * The latest metrics of these posts, by post id (one BatchGetItem per 100): absent for a post
   * with none on its metrics item (the post item's own `metrics`, if any, is then the latest).
   */
  latestMetrics(postIds: readonly string[]): Promise<Map<string, PostMetrics>>;
  /** A post of this user with its metrics history; null when absent, deleted or another user's. */
  get(userId: string, postId: string): Promise<PostMetricsRecord | null>;
  /**
   * The user's published posts created in [createdFrom, createdTo] (byUserStatus, newest first),
   * with their metrics: GET /analytics reads the posts published in its period among them.
   */
  listPublished(userId: string, createdFrom: Date, createdTo: Date): Promise<Post[]>;
  /**
   * A page of at most `limit` of the user's published posts (byUserStatus, newest created first),
   * keeping only those published after `publishedAfter`; the page may hold fewer (even none) with
   * a cursor still to follow.
   */
  listPublishedPage(userId: string, input: { publishedAfter: Date; limit: number; cursor: string | null }): Promise<PublishedPage>;
  /**
   * Gives a published post with no due entry its next collection at `dueAt` (the backfill of
   * posts published before collection existed). False when it already has one, is deleted, or was
   * published at or before `publishedAfter` (its 30 days are over): a conditional write, so two
   * backfills never schedule one post twice.
   */
  scheduleUnscheduled(postId: string, input: { dueAt: Date; publishedAfter: Date }): Promise<boolean>;
}
