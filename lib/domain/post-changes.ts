/**
 * The post lifecycle's rules (beyond-v1.md "The post lifecycle"): what a PATCH may change, what
 * the bodies of publish and retry say, and when a post can no longer be changed or retried, with
 * the sentence the 409 gives. Pure: the use cases (lib/use-cases/update-post.ts, publish-draft.ts,
 * retry-post.ts) carry these out with one conditional write each (lib/store/post-change-writes.ts).
 *
 * PATCH body, first failure wins, in the order of a create's (lib/domain/create-request.ts), whose
 * field rules it reuses: invalid_body (an unknown field, or nothing to change), invalid_text,
 * invalid_media, invalid_scheduled_for / scheduled_for_in_past / scheduled_for_too_far,
 * invalid_option. Options name platforms as a create's do; only the post's own platform may appear.
 */
import { checkMedia, checkOptions, checkQueue, checkScheduledFor, describeJson, type PlatformOptions } from './create-request.js';
import { formatFields } from './format-rules.js';
import { ApiError } from './errors.js';
import type { MediaItem, Post } from './model.js';
import { platformName } from './publishing.js';
import { livePartCount } from './thread-progress.js';

export const UPDATE_BODY_FIELDS = ['text', 'media', 'scheduledFor', 'queue', 'options'] as const;
export const SEND_BODY_FIELDS = ['scheduledFor'] as const;
/** A draft's publish may also say `queue: true`; a retry goes out at once or at scheduledFor. */
export const PUBLISH_BODY_FIELDS = ['scheduledFor', 'queue'] as const;

/** A PATCH: null leaves the field as it is. */
export interface PostUpdateRequest {
  text: string | null;
  media: string[] | null;
  scheduledFor: Date | null;
  /** `queue: true`: the post moves to its account's earliest free queue slot (never with scheduledFor). */
  queue: boolean;
  options: PlatformOptions | null;
}

function unknownField(body: Record<string, unknown>, allowed: readonly string[]): void {
  const field = Object.keys(body).find((name) => !allowed.includes(name));
  if (field !== undefined) {
    throw new ApiError('invalid_body', `Unknown field \`${field}\`. Allowed fields: ${allowed.join(', ')}.`, { param: field });
  }
}

export function parseUpdatePostBody(body: Record<string, unknown>, now: Date): PostUpdateRequest {
  unknownField(body, UPDATE_BODY_FIELDS);
  if (Object.keys(body).length === 0) {
    throw new ApiError('invalid_body', `Nothing to change: send at least one of ${UPDATE_BODY_FIELDS.join(', ')}.`);
  }
  if (body.text !== undefined && typeof body.text !== 'string') {
    throw new ApiError('invalid_text', `text must be a string; got ${describeJson(body.text)}.`, { param: 'text' });
  }
  const media = body.media === undefined ? null : checkMedia(body.media);
  // null is not "leave it": it is a value of the wrong type, refused as a create refuses it.
  const scheduledFor = body.scheduledFor === undefined ? null : checkScheduledFor(body.scheduledFor ?? 0, now);
  const queue = checkQueue(body.queue, { scheduledFor: body.scheduledFor, draft: false });
  const options = body.options === undefined ? null : checkOptions(body.options);
  return { text: typeof body.text === 'string' ? body.text : null, media, scheduledFor, queue, options };
}

/** The body of publish and retry: optional, and then only `scheduledFor` (omitted: now). */
export function parseSendBody(
  body: Record<string, unknown> | null,
  now: Date,
  allowed: readonly string[] = SEND_BODY_FIELDS,
): { scheduledFor: Date | null; queue: boolean } {
  if (body === null) return { scheduledFor: null, queue: false };
  unknownField(body, allowed);
  const scheduledFor = body.scheduledFor === undefined ? null : checkScheduledFor(body.scheduledFor ?? 0, now);
  return { scheduledFor, queue: checkQueue(body.queue, { scheduledFor: body.scheduledFor, draft: false }) };
}

/** What the worker has done to a post, as far as changing it goes. */
export interface PostProgress {
  /** A publish attempt has begun (claimed, being sent, or waiting out a retry): its text is the worker's now. */
  attemptStarted: boolean;
}

/** Why PATCH cannot change this post now (409 post_not_editable), or null when it can. */
export function notEditableReason(post: Post, progress: PostProgress): string | null {
  switch (post.status) {
    case 'draft':
      return null;
    case 'scheduled':
      return progress.attemptStarted
        ? 'The post is being sent (an attempt to publish it has begun), so it can no longer be changed; delete it if it must not go out.'
        : null;
    case 'published':
      return 'The post is published, so it can no longer be changed.';
    case 'failed':
      return 'The post failed: a failed post is not changed; retry it (POST /posts/{id}/retry) when its error is retryable, or create a new one.';
  }
}

/** Why publish cannot send this post (409 post_not_editable), or null for a draft. */
export function notPublishableReason(post: Post): string | null {
  return post.status === 'draft' ? null : `Only a draft is published this way; this post is ${post.status}.`;
}

/** Why retry cannot send this post again (409 post_not_retryable), or null when it can. */
export function notRetryableReason(post: Post): string | null {
  if (post.status !== 'failed') return `Only a failed post is retried; this post is ${post.status}.`;
  if (post.error?.retryable !== true) {
    return `This failure is not retryable: the post may already be live on ${platformName(post.platform)}, or sending it again cannot help. ${post.error?.advice ?? ''}`.trim();
  }
  return null;
}

/**
 * The post as a PATCH leaves it: the fields asked for, the rest as they were. Options given replace
 * the post's platform's entry whole, so its format, thread parts and first comment are made again
 * from them (`threadMedia`: the new thread parts' media items, in part order); a PATCH applies only
 * before anything was sent, so no part or comment id is lost.
 */
export function applyUpdate(
  post: Post,
  request: PostUpdateRequest,
  resolved: { media: MediaItem[] | null; threadMedia: MediaItem[][] | null },
  now: Date,
): Post {
  const { media } = resolved;
  return {
    ...post,
    text: request.text ?? post.text,
    mediaUrls: media === null ? post.mediaUrls : media.map((item) => item.url),
    mediaIds: media === null ? post.mediaIds : media.map((item) => item.id),
    ...(request.options === null ? {} : formatFields(request.options, post.platform, resolved.threadMedia)),
    scheduledFor: request.scheduledFor?.toISOString() ?? post.scheduledFor,
    // A time of its own gives the queue slot back (post-change-writes.ts); `queue: true` takes one (update-post.ts).
    queueSlot: request.scheduledFor === null && post.queueSlot === true,
    updatedAt: now.toISOString(),
  };
}

/**
 * The post as publish or retry leaves it: scheduled for `at`, no error, nothing of an earlier
 * attempt; `allowanceCycle` the cycle whose unit it holds (publish: the current one, spent in the
 * same write; retry: the unit it kept, or, for a post whose unit was given back when it could not
 * be queued, the current one, spent again).
 */
export function sendAgain(post: Post, at: Date, allowanceCycle: string, now: Date): Post {
  // A thread that failed midway keeps its live parts' ids (and stays in flight: a delete must not
  // cancel what is live): the retry continues from the first missing part (lib/use-cases/publish-thread.ts).
  const partsLive = livePartCount(post) > 0;
  return {
    ...post,
    status: 'scheduled',
    scheduledFor: at.toISOString(),
    error: null,
    publishedAt: null,
    publishedUrl: partsLive ? post.publishedUrl : null,
    platformPostId: partsLive ? post.platformPostId : null,
    inFlightSince: partsLive ? (post.inFlightSince ?? null) : null,
    allowanceCycle,
    // Sent at `at`, not at a queue slot (a draft's publish with `queue: true` takes one: publish-draft.ts).
    queueSlot: false,
    updatedAt: now.toISOString(),
  };
}
