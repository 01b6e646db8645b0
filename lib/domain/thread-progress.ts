/**
 * How far a thread has gone out (issue 22, "A thread that survives a crash"). The post itself is
 * part 1; `Post.threadParts` are parts 2..n. A part is live once its platform id is recorded, and
 * parts go out in order, each answering the one before it, so the first part without an id is the
 * next to send (or, after a create whose answer was lost, the one to look up first).
 */
import type { Post, PostError } from './model.js';
import { platformName } from './publishing.js';

/** The part to send next: 0 is the post itself, i ≥ 1 is threadParts[i - 1]. */
export interface NextPart {
  index: number;
  /** 1-based, as a user counts them. */
  number: number;
  total: number;
  text: string;
  mediaIds: string[];
  /** The platform id of the part it answers (absent for part 1). */
  replyTo?: string;
}

export function isThread(post: Pick<Post, 'threadParts'>): boolean {
  return post.threadParts.length > 0;
}

/** How many parts of a thread are live, counting the post itself (0 for a post that is no thread). */
export function livePartCount(post: Pick<Post, 'platformPostId' | 'threadParts'>): number {
  if (!isThread(post) || post.platformPostId === null) return 0;
  const missing = post.threadParts.findIndex((part) => part.platformPostId === null);
  return 1 + (missing === -1 ? post.threadParts.length : missing);
}

/** The first part not yet live; null when every part is. */
export function nextPart(post: Pick<Post, 'text' | 'mediaIds' | 'platformPostId' | 'threadParts'>): NextPart | null {
  const total = 1 + post.threadParts.length;
  if (post.platformPostId === null) return { index: 0, number: 1, total, text: post.text, mediaIds: post.mediaIds };
  let previous = post.platformPostId;
  for (const [position, part] of post.threadParts.entries()) {
    if (part.platformPostId === null) {
      return { index: position + 1, number: position + 2, total, text: part.text, mediaIds: part.mediaIds, replyTo: previous };
    }
    previous = part.platformPostId;
  }
  return null;
}

/**
 * A thread that stopped with some parts live: the failure's message says which are, so the user
 * knows what readers see (they stay; a retry continues from the first missing part). Unchanged for
 * any other post.
 */
export function withLiveParts<T extends Omit<PostError, 'retryable'>>(post: Post, failure: T): T {
  const live = livePartCount(post);
  const next = nextPart(post);
  if (!isThread(post) || live === 0 || next === null) return failure;
  const parts = live === 1 ? 'Part 1' : `Parts 1-${live}`;
  return {
    ...failure,
    message: `${parts} of ${next.total} ${live === 1 ? 'is' : 'are'} live on ${platformName(post.platform)}; part ${next.number} did not go out: ${failure.message}`,
  };
}

/**
 * A thread refused midway is retryable, unlike a post refused outright: its first parts are live,
 * so creating it again would post them twice, and a retry is the one way to send the rest (from
 * the first missing part). Any other failure follows the post's rule (publishing.ts isRetryableFailure).
 */
export function isRetryableThreadFailure(post: Pick<Post, 'platformPostId' | 'threadParts'>, kind: string, mayBeLive: boolean): boolean {
  return kind === 'refused' && !mayBeLive && livePartCount(post) > 0 && nextPart({ text: '', mediaIds: [], ...post }) !== null;
}
