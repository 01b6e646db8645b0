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
 *   dueSk = <scheduledFor>#<id>
 * A deleted post (deletedAt set) carries none of them, so it leaves every index at once and no
 * page is ever shrunk by a filter. Fields that are null on the Post are absent from the item, so a
 * condition can say `attribute_not_exists(deletedAt)`.
 *
 * `sendStartedAt` (Post.sendStartedAt) is set by the worker's claim. Any further bookkeeping the
 * worker adds (leases, attempt counts) is not part of Post: itemToPost ignores it and postToItem
 * never writes it, so after create a post is only ever changed by conditional updates, never by a
 * full Put.
 */
import { createHash } from 'node:crypto';
import { POST_STATUSES, PUBLISHABLE_PLATFORMS, type Post, type PostError } from '../domain/model.js';
import { DUE_SHARDS } from './tables.js';

export type PostItem = Record<string, unknown>;

/** Set by the publish worker when it first claims a post; present means "being sent, or was". */
export const SEND_STARTED_ATTRIBUTE = 'sendStartedAt';

export const POST_INDEXES = { byUser: 'byUser', byUserStatus: 'byUserStatus', byDue: 'byDue' } as const;

export class PostItemError extends Error {
  readonly code = 'post_item_malformed';
  constructor(id: unknown, field: string) {
    super(`Post item ${String(id)} has a missing or malformed ${field}`);
    this.name = 'PostItemError';
  }
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
    scheduledFor: post.scheduledFor,
    createdAt: post.createdAt,
    updatedAt: post.updatedAt,
    deleteFromPlatformRequested: post.deleteFromPlatformRequested,
    ...indexAttributes(post),
  };
  if (post.publishedAt !== null) item.publishedAt = post.publishedAt;
  if (post.publishedUrl !== null) item.publishedUrl = post.publishedUrl;
  if (post.platformPostId !== null) item.platformPostId = post.platformPostId;
  if (post.error !== null) item.error = { message: post.error.message, advice: post.error.advice };
  if (post.deletedAt !== null) item.deletedAt = post.deletedAt;
  if (post.allowanceCycle !== null) item.allowanceCycle = post.allowanceCycle;
  if (post.sendStartedAt !== undefined && post.sendStartedAt !== null) item.sendStartedAt = post.sendStartedAt;
  return item;
}

function text(item: PostItem, field: string): string {
  const value = item[field];
  if (typeof value !== 'string') throw new PostItemError(item.id, field);
  return value;
}

function optionalText(item: PostItem, field: string): string | null {
  const value = item[field];
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') throw new PostItemError(item.id, field);
  return value;
}

function textList(item: PostItem, field: string): string[] {
  const value = item[field];
  if (value === undefined) return [];
  if (!Array.isArray(value) || !value.every((entry) => typeof entry === 'string')) throw new PostItemError(item.id, field);
  return [...(value as string[])];
}

function oneOf<T extends string>(item: PostItem, field: string, allowed: readonly T[]): T {
  const value = text(item, field);
  if (!(allowed as readonly string[]).includes(value)) throw new PostItemError(item.id, field);
  return value as T;
}

function postError(item: PostItem): PostError | null {
  const value = item.error;
  if (value === undefined || value === null) return null;
  if (typeof value !== 'object') throw new PostItemError(item.id, 'error');
  const { message, advice } = value as Record<string, unknown>;
  if (typeof message !== 'string' || typeof advice !== 'string') throw new PostItemError(item.id, 'error');
  return { message, advice };
}

/** Builds the Post field by field: attributes beyond the Post's (worker bookkeeping, index keys) stay behind. */
export function itemToPost(item: PostItem): Post {
  const options = item.options;
  return {
    id: text(item, 'id'),
    userId: text(item, 'userId'),
    workspaceId: text(item, 'workspaceId'),
    accountId: text(item, 'accountId'),
    platform: oneOf(item, 'platform', PUBLISHABLE_PLATFORMS),
    campaignId: text(item, 'campaignId'),
    status: oneOf(item, 'status', POST_STATUSES),
    text: text(item, 'text'),
    mediaUrls: textList(item, 'mediaUrls'),
    mediaIds: textList(item, 'mediaIds'),
    options: typeof options === 'object' && options !== null && !Array.isArray(options) ? { ...(options as Record<string, unknown>) } : {},
    scheduledFor: text(item, 'scheduledFor'),
    publishedAt: optionalText(item, 'publishedAt'),
    publishedUrl: optionalText(item, 'publishedUrl'),
    platformPostId: optionalText(item, 'platformPostId'),
    error: postError(item),
    createdAt: text(item, 'createdAt'),
    updatedAt: text(item, 'updatedAt'),
    deletedAt: optionalText(item, 'deletedAt'),
    allowanceCycle: optionalText(item, 'allowanceCycle'),
    deleteFromPlatformRequested: item.deleteFromPlatformRequested === true,
    sendStartedAt: optionalText(item, SEND_STARTED_ATTRIBUTE),
  };
}
