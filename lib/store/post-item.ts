/**
 * The one mapping between a Post and its item in the posts table, used by every writer of posts
 * (the create/get/list/delete store and the publish worker), so the index attributes can never
 * disagree with the post's state.
 *
 * Layout (see tables.ts):
 *   id                                   table key
 *   listPk = <userId>                    byUser:        every live post, newest first
 *   listSk = <createdAt>#<id>            (also the sort key of byUserStatus)
 *   statusPk = <userId>#<status>         byUserStatus:  the status filter of GET /posts
 *   duePk = due#<shard>                  byDue:         scheduled posts (sweeper safety net)
 *   dueSk = <scheduledFor>#<id>           (<retryAt>#<id> while it waits to be tried again)
 * A deleted post (deletedAt set) carries none of them, so it leaves every index at once and no
 * page is ever shrunk by a filter. One exception, in byDue only (never read by the API): a post
 * deleted with deleteFromPlatform=true keeps an entry there while its live copy must still come
 * down: while it is being sent (dueSk as above), then once published until the platform deletion
 * is settled (dueSk = <time it became pending>#<id>, platformDeletionDueKeys; once the sweeper
 * has queued it again, the time of its next resend, lib/use-cases/sweep.ts). That entry is the
 * outbox of the deletion: written in the same update that makes the deletion pending, removed in
 * the one that settles it, so a crash at any instant leaves the sweeper something to find.
 * Fields that are null on the Post are absent from the item, so a condition can say
 * `attribute_not_exists(deletedAt)`.
 *
 * `inFlightSince` (Post.inFlightSince) is set by the worker's claim and cleared by a release that
 * knows nothing went out (lib/store/dynamodb-publish-state.ts). Any further bookkeeping the
 * worker adds (leases, attempt counts) is not part of Post: itemToPost ignores it and postToItem
 * never writes it, so after create a post is only ever changed by conditional updates, never by a
 * full Put.
 */
import { createHash } from 'node:crypto';
import * as v from 'valibot';
import {
  FIRST_COMMENT_STATUSES,
  POST_FORMATS,
  POST_STATUSES,
  PUBLISHABLE_PLATFORMS,
  type FirstComment,
  type Post,
  type PostError,
  type ThreadPart,
} from '../domain/model.js';
import { nullableString, readItem, stringList } from './item-schema.js';
import { DUE_SHARDS, METRICS_DUE_SHARDS } from './tables.js';

export type PostItem = Record<string, unknown>;

/** Set by the publish worker when it first claims a post, never cleared; present means "being sent, or was". */
export const IN_FLIGHT_ATTRIBUTE = 'inFlightSince';

export const POST_INDEXES = { byUser: 'byUser', byUserStatus: 'byUserStatus', byDue: 'byDue', byMetricsDue: 'byMetricsDue' } as const;

/** The byMetricsDue entry of a published post whose next metrics collection is at `dueAt` (tables.ts). */
export function metricsDueKeys(postId: string, dueAt: Date): { metricsDuePk: string; metricsDueSk: string } {
  return { metricsDuePk: `metrics#${dueShard(postId) % METRICS_DUE_SHARDS}`, metricsDueSk: `${dueAt.toISOString()}#${postId}` };
}

/** Stable shard of a post in the byDue index: spreads the sweeper's reads over DUE_SHARDS partitions. */
export function dueShard(postId: string): number {
  return createHash('sha256').update(postId).digest().readUInt32BE(0) % DUE_SHARDS;
}

export function listSortKey(post: Pick<Post, 'createdAt' | 'id'>): string {
  return `${post.createdAt}#${post.id}`;
}

export function statusPartitionKey(userId: string, status: string): string {
  return `${userId}#${status}`;
}

export function duePartitionKey(shard: number): string {
  return `due#${shard}`;
}

export function dueSortKey(post: Pick<Post, 'scheduledFor' | 'id'>): string {
  return `${post.scheduledFor}#${post.id}`;
}

/** The byDue entry of a published post whose platform deletion is pending (see the layout above). */
export function platformDeletionDueKeys(postId: string, pendingSince: string): { duePk: string; dueSk: string } {
  return { duePk: duePartitionKey(dueShard(postId)), dueSk: dueSortKey({ scheduledFor: pendingSince, id: postId }) };
}

export interface PostIndexAttributes {
  listPk?: string;
  listSk?: string;
  statusPk?: string;
  duePk?: string;
  dueSk?: string;
}

/** The index attributes a post in this state carries (none once deleted). */
export function indexAttributes(post: Post): PostIndexAttributes {
  if (post.deletedAt !== null) return {};
  const attributes: PostIndexAttributes = {
    listPk: post.userId,
    listSk: listSortKey(post),
    statusPk: statusPartitionKey(post.userId, post.status),
  };
  if (post.status === 'scheduled') {
    attributes.duePk = duePartitionKey(dueShard(post.id));
    attributes.dueSk = dueSortKey(post);
  }
  return attributes;
}

/** A post's error as stored (`retryable` only when decided). */
export function errorToItem(error: PostError): Record<string, unknown> {
  return { message: error.message, advice: error.advice, ...(error.retryable === undefined ? {} : { retryable: error.retryable }) };
}

export function postToItem(post: Post): PostItem {
  const item: PostItem = {
    id: post.id,
    userId: post.userId,
    workspaceId: post.workspaceId,
    accountId: post.accountId,
    platform: post.platform,
    campaignId: post.campaignId,
    status: post.status,
    text: post.text,
    mediaUrls: [...post.mediaUrls],
    mediaIds: [...post.mediaIds],
    options: { ...post.options },
    format: post.format,
    scheduledFor: post.scheduledFor,
    createdAt: post.createdAt,
    updatedAt: post.updatedAt,
    deleteFromPlatformRequested: post.deleteFromPlatformRequested,
    ...indexAttributes(post),
  };
  if (post.publishedAt !== null) item.publishedAt = post.publishedAt;
  if (post.publishedUrl !== null) item.publishedUrl = post.publishedUrl;
  if (post.platformPostId !== null) item.platformPostId = post.platformPostId;
  if (post.error !== null) item.error = errorToItem(post.error);
  if (post.deletedAt !== null) item.deletedAt = post.deletedAt;
  if (post.allowanceCycle !== null) item.allowanceCycle = post.allowanceCycle;
  if (post.inFlightSince !== undefined && post.inFlightSince !== null) item.inFlightSince = post.inFlightSince;
  if (post.queueSlot === true) item.queueSlot = true;
  // Absent for a post without them, so a text post's item is no bigger than before formats existed.
  if (post.threadParts.length > 0) item.threadParts = post.threadParts.map(threadPartToItem);
  if (post.firstComment !== null) item.firstComment = firstCommentToItem(post.firstComment);
  if (post.metrics !== undefined && post.metrics !== null) item.metrics = { ...post.metrics };
  return item;
}

/** A thread part as stored (null ids absent, as on the post item itself). */
export function threadPartToItem(part: ThreadPart): Record<string, unknown> {
  const item: Record<string, unknown> = { text: part.text, mediaUrls: [...part.mediaUrls], mediaIds: [...part.mediaIds] };
  if (part.platformPostId !== null) item.platformPostId = part.platformPostId;
  if (part.publishedUrl !== null) item.publishedUrl = part.publishedUrl;
  return item;
}

/** A first comment as stored (null fields absent). */
export function firstCommentToItem(comment: FirstComment): Record<string, unknown> {
  const item: Record<string, unknown> = { text: comment.text, status: comment.status };
  if (comment.platformCommentId !== null) item.platformCommentId = comment.platformCommentId;
  if (comment.error !== null) item.error = errorToItem(comment.error);
  return item;
}

/**
 * A post item as a Post: the schema names the Post's fields, so attributes beyond them (worker
 * bookkeeping, index keys) stay behind. Fields null on the Post are absent from the item.
 */
const ERROR_ITEM = v.pipe(
  v.object({ message: v.string(), advice: v.string(), retryable: v.optional(v.boolean()) }),
  v.transform((error): PostError => (error.retryable === undefined ? { message: error.message, advice: error.advice } : error)),
);

const THREAD_PART_ITEM = v.object({
  text: v.string(),
  mediaUrls: stringList,
  mediaIds: stringList,
  platformPostId: nullableString,
  publishedUrl: nullableString,
});

const FIRST_COMMENT_ITEM = v.object({
  text: v.string(),
  status: v.picklist(FIRST_COMMENT_STATUSES),
  platformCommentId: nullableString,
  error: v.nullish(ERROR_ITEM, null),
});

const FIGURE = v.nullish(v.pipe(v.number(), v.integer(), v.minValue(0)), null);

/** The latest figures of a post as stored (post metrics; lib/domain/post-metrics.ts). */
export const POST_METRICS_ITEM = v.object({
  impressions: FIGURE,
  likes: FIGURE,
  comments: FIGURE,
  reposts: FIGURE,
  quotes: FIGURE,
  bookmarks: FIGURE,
  clicks: FIGURE,
  collectedAt: v.string(),
});

const POST_ITEM = v.object({
  id: v.string(),
  userId: v.string(),
  workspaceId: v.string(),
  accountId: v.string(),
  platform: v.picklist(PUBLISHABLE_PLATFORMS),
  campaignId: v.string(),
  status: v.picklist(POST_STATUSES),
  text: v.string(),
  mediaUrls: stringList,
  mediaIds: stringList,
  // Written by create as an object; anything else reads as no options.
  options: v.fallback(v.record(v.string(), v.unknown()), () => ({})),
  scheduledFor: v.string(),
  publishedAt: nullableString,
  publishedUrl: nullableString,
  platformPostId: nullableString,
  error: v.nullish(ERROR_ITEM, null),
  // Items written before native formats have none of these: a text post.
  format: v.optional(v.picklist(POST_FORMATS), 'text'),
  threadParts: v.optional(v.array(THREAD_PART_ITEM), () => []),
  firstComment: v.nullish(FIRST_COMMENT_ITEM, null),
  createdAt: v.string(),
  updatedAt: v.string(),
  deletedAt: nullableString,
  allowanceCycle: nullableString,
  deleteFromPlatformRequested: v.pipe(
    v.unknown(),
    v.transform((value) => value === true),
  ),
  [IN_FLIGHT_ATTRIBUTE]: nullableString,
  queueSlot: v.optional(v.boolean()),
  // Absent until the first collection (post metrics); an item it cannot read shows none.
  metrics: v.fallback(v.optional(v.nullable(POST_METRICS_ITEM)), undefined),
});

export function itemToPost(item: PostItem): Post {
  return readItem(POST_ITEM, item, `Post item ${String(item.id)}`);
}
