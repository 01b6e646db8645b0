/**
 * What DELETE /posts/{id} does to a post, by state (api-v1.md "States and transitions",
 * decisions.md "Delete"). Pure: the store carries the plan out with a write conditioned on the
 * state the plan was made from, and the use case plans again if that state changed meanwhile.
 *
 * | state                              | record        | softDeleted | allowance unit | live post            |
 * |------------------------------------|---------------|-------------|----------------|----------------------|
 * | draft                              | removed       | false       | (none spent)   | -                    |
 * | failed                             | removed       | false       | kept spent     | - (never went out)   |
 * | scheduled, not claimed by worker   | removed       | false       | given back     | schedule deleted     |
 * | scheduled, claimed (being sent)    | kept, hidden  | true        | kept spent     | deleted by the worker once its id is known, when asked |
 * | published                          | kept, hidden  | true        | kept spent     | deletion queued when asked |
 *
 * A failed post is removed rather than kept: it never reached anyone, so there is nothing for
 * analytics to keep, and its unit is not given back (the contract gives units back only for a
 * scheduled post cancelled before it goes out). A post claimed by the worker may already be live,
 * so it is treated like a published one: its record stays (hidden from every read) and the worker,
 * which sees deleteFromPlatformRequested, deletes the live post after publishing it.
 */
import type { Post } from './model.js';

export type DeletionPlan =
  | {
      kind: 'remove';
      /** Give the post's allowance unit back (a scheduled post cancelled before it went out). */
      refundCycle: string | null;
      /** Delete the post's pending schedule (best effort). */
      cancelSchedule: boolean;
      softDeleted: false;
      platformDeletionQueuedFor: [];
    }
  | {
      kind: 'soft-delete';
      /** Record deleteFromPlatformRequested=true on the post. */
      recordDeleteFromPlatform: boolean;
      /** Put a message on the deletion queue now (published posts; a post being sent is left to the worker). */
      queuePlatformDeletion: boolean;
      softDeleted: true;
      platformDeletionQueuedFor: string[];
    };

export function planDeletion(post: Post, deleteFromPlatform: boolean): DeletionPlan {
  const claimed = post.inFlightSince !== undefined && post.inFlightSince !== null;
  if (post.status === 'draft' || post.status === 'failed' || (post.status === 'scheduled' && !claimed)) {
    const cancelled = post.status === 'scheduled';
    return {
      kind: 'remove',
      refundCycle: cancelled ? post.allowanceCycle : null,
      cancelSchedule: cancelled,
      softDeleted: false,
      platformDeletionQueuedFor: [],
    };
  }
  return {
    kind: 'soft-delete',
    recordDeleteFromPlatform: deleteFromPlatform,
    queuePlatformDeletion: deleteFromPlatform && post.status === 'published' && post.platformPostId !== null,
    softDeleted: true,
    platformDeletionQueuedFor: deleteFromPlatform ? [post.platform] : [],
  };
}

/**
 * A live copy that must still come down: the post was deleted with deleteFromPlatform=true and it
 * is published (its platform id known), and the platform deletion is not done. Such a post keeps
 * an entry in the byDue index (its "outbox" entry, lib/store/post-item.ts) until the deletion
 * worker settles it, so the sweeper queues the deletion again whatever was lost on the way (a
 * crash between the write and the queue message, a message lost with its queue).
 */
export function platformDeletionPending(post: Post, platformDeletedAt: string | null): boolean {
  return post.deletedAt !== null && post.deleteFromPlatformRequested && post.status === 'published' && post.platformPostId !== null && platformDeletedAt === null;
}

/**
 * When the deletion became pending: the later of the delete and the publish (whichever write made
 * it pending queued its message then). The byDue entry is sorted by this time, so the sweeper
 * gives that message its grace period before it counts as lost.
 */
export function platformDeletionPendingSince(post: Pick<Post, 'deletedAt' | 'publishedAt'>): string | null {
  if (post.deletedAt === null || post.publishedAt === null) return null;
  return post.deletedAt > post.publishedAt ? post.deletedAt : post.publishedAt;
}

/** The longest the sweeper waits between two resends of a pending platform deletion. */
export const DELETION_RESEND_MAX_INTERVAL_MS = 60 * 60 * 1000;

/**
 * How long the sweeper waits before it queues a pending platform deletion again (lib/use-cases/sweep.ts):
 * its usual resend interval at first, then a tenth of the time the deletion has been pending, at most
 * an hour. A platform that keeps failing (an outage) is then asked about 50 times in the first ten
 * hours and hourly after that, instead of every minute for as long as it lasts, so the bill stays
 * bounded. A transient failure never makes us give up: the person asked for the live post to come down.
 */
export function deletionResendIntervalMs(pendingSince: string, now: Date, minimumMs: number): number {
  const pendingMs = now.getTime() - Date.parse(pendingSince);
  return Math.min(DELETION_RESEND_MAX_INTERVAL_MS, Math.max(minimumMs, Math.floor(pendingMs / 10)));
}
