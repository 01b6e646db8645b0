import type { Post } from './model.js';

/**
 * The worker's bookkeeping on a post item, beside the Post (itemToPost leaves it out):
 * who holds the post now, how many attempts were made, when the next one is due, and whether a
 * create request went out without an answer.
 */
export interface PublishState {
  claimToken: string | null;
  /** ISO end of the current holder's lease; absent when nobody holds the post. */
  claimUntil: string | null;
  attempts: number;
  /** Attempts that ended in a transient failure; attempts a crash cut short are not among them. */
  failures: number;
  firstAttemptAt: string | null;
  /** ISO time of the next attempt after a transient failure. */
  retryAt: string | null;
  /**
   * The "sent" marker: set right before the platform create request of an attempt is sent,
   * removed when its outcome is known not to be live (Post.inFlightSince stays set meanwhile: the
   * post may be live).
   */
  platformCreateSentAt: string | null;
  /** The platform media ids that create carried (a lookup's match for a post without text). */
  platformCreateMediaIds: string[];
  /** Last time the sweeper put a message back for this post. */
  sweptAt: string | null;
  /** The live post was deleted from the platform (deleteFromPlatform). */
  platformDeletedAt: string | null;
  /** The first comment's lease: who is posting it now, until when (lib/use-cases/first-comment.ts). */
  commentClaimUntil: string | null;
  /** The first comment's next attempt after a transient failure. */
  commentRetryAt: string | null;
}

/** One attempt at a post's first comment (lib/use-cases/first-comment.ts). */
export interface CommentClaim {
  post: Post;
  token: string;
  /** 1 for the first attempt. */
  attempt: number;
  firstAttemptAt: string;
  /** A comment create of an earlier attempt went out unanswered at this time: look it up first. */
  sentAt: string | null;
}

export interface PostForPublishing {
  post: Post;
  state: PublishState;
}

export interface PublishClaim {
  token: string;
  /** 1 for the first attempt. */
  attempt: number;
  firstAttemptAt: string;
  /**
   * Earlier attempts that ended in a transient failure. The backoff grows with these, not with
   * `attempt`: an attempt cut short by a crash says nothing about the platform.
   */
  failures: number;
  /**
   * When this attempt's create goes out: the post's time, or its retry time. A claim may come up to
   * PREPARE_WINDOW_MS (lib/domain/publishing.ts) before it; the worker prepares, then waits.
   */
  sendAt: string;
  /**
   * A create of an earlier attempt was sent and its outcome never recorded (its answer was lost,
   * or the worker stopped): the post may be live already.
   */
  uncertain: boolean;
  /** When that earlier create was sent (set when uncertain). */
  platformCreateSentAt: string | null;
  /** The platform media ids that earlier create carried (empty when none, or not recorded). */
  sentMediaIds: string[];
}

/**
 * What a claim found. Claimed: the post as it is now. Not claimed: the post as it was when the
 * condition failed (null when there is no such post), so the worker can tell why (deleted, not
 * scheduled, held by another worker, or a retry time still ahead) without reading it again.
 */
export type ClaimResult = { claimed: true; post: Post; claim: PublishClaim } | { claimed: false; current: PostForPublishing | null };
