import type { Post, PostStatus } from '../model.js';

/** The `post` object of api-v1.md: what GET /posts/{id} and GET /posts return. */
export interface PostView {
  object: 'post';
  id: string;
  workspaceId: string;
  accountId: string;
  platform: string;
  campaignId: string;
  status: PostStatus;
  text: string;
  mediaUrls: string[];
  scheduledFor: string;
  publishedAt: string | null;
  publishedUrl: string | null;
  platformPostId: string | null;
  /** `retryable` (beyond-v1.md): an addition to v1's error; false when it was not decided. */
  error: { message: string; advice: string; retryable: boolean } | null;
  createdAt: string;
  updatedAt: string;
}

/** Every timestamp leaves the API as UTC with milliseconds (decisions.md, Timestamps). */
function utc(value: string): string {
  return new Date(value).toISOString();
}

/**
 * Picks the public fields one by one, so internal fields (owner id, media ids, options, deletion
 * and allowance bookkeeping, anything the worker adds to the error) never reach a response. Fields
 * not set yet are present as null.
 */
export function postView(post: Post): PostView {
  return {
    object: 'post',
    id: post.id,
    workspaceId: post.workspaceId,
    accountId: post.accountId,
    platform: post.platform,
    campaignId: post.campaignId,
    status: post.status,
    text: post.text,
    mediaUrls: [...post.mediaUrls],
    scheduledFor: utc(post.scheduledFor),
    publishedAt: post.publishedAt === null ? null : utc(post.publishedAt),
    publishedUrl: post.publishedUrl,
    platformPostId: post.platformPostId,
    error: post.error === null ? null : { message: post.error.message, advice: post.error.advice, retryable: post.error.retryable === true },
    createdAt: utc(post.createdAt),
    updatedAt: utc(post.updatedAt),
  };
}
