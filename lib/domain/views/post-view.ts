import type { PostMetrics } from '../post-metrics.js';
import type { FirstCommentStatus, Post, PostError, PostFormat, PostStatus } from '../model.js';

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
  error: ErrorView | null;
  /** Native formats (beyond-v1.md): additions to v1's post. */
  format: PostFormat;
  /** A thread's further parts, in order; each part's ids are null until it is live. */
  threadParts: { platformPostId: string | null; publishedUrl: string | null }[];
  firstComment: { status: FirstCommentStatus; platformCommentId: string | null; error: ErrorView | null } | null;
  createdAt: string;
  updatedAt: string;
  /** Post metrics (beyond-v2.md): null until first collected; a figure the platform does not give is null. */
  metrics: PostMetrics | null;
}

type ErrorView = { message: string; advice: string; retryable: boolean };

function errorView(error: PostError): ErrorView {
  return { message: error.message, advice: error.advice, retryable: error.retryable === true };
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
    error: post.error === null ? null : errorView(post.error),
    format: post.format,
    threadParts: post.threadParts.map((part) => ({ platformPostId: part.platformPostId, publishedUrl: part.publishedUrl })),
    firstComment:
      post.firstComment === null
        ? null
        : {
            status: post.firstComment.status,
            platformCommentId: post.firstComment.platformCommentId,
            error: post.firstComment.error === null ? null : errorView(post.firstComment.error),
          },
    createdAt: utc(post.createdAt),
    updatedAt: utc(post.updatedAt),
    metrics: post.metrics ? { ...post.metrics, collectedAt: utc(post.metrics.collectedAt) } : null,
  };
}
