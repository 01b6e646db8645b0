/** Platform publishing: lib/platforms implements it; its errors are in lib/domain/platform-errors.ts. */
import type { AccountType, PublishablePlatform } from '../../domain/model.js';

/** The account fields an adapter needs: who the author is and how the public URL is built. */
export interface PlatformAccount {
  id: string;
  /** Platform-side id of the author (LinkedIn person/organization id, X user id). */
  platformUserId: string;
  handle: string;
  accountType: AccountType;
}

/**
 * One attached file, read from the media bucket. `read` with a range returns bytes
 * [start, end) so a large video is sent in parts without holding it all in memory.
 */
export interface PlatformMediaSource {
  contentType: string;
  sizeBytes: number;
  durationSeconds: number | null;
  /** The media library's alt text (beyond-v2.md): X gets it through POST /2/media/metadata, LinkedIn in the post's `altText`. */
  altText?: string | null;
  read(range?: { start: number; end: number }): Promise<Uint8Array>;
}

export interface PlatformPublishRequest {
  account: PlatformAccount;
  accessToken: string;
  text: string;
  media: PlatformMediaSource[];
  /**
   * The validated `options` entry of this platform (x: communityId, shareWithFollowers, poll;
   * linkedin: poll, documentTitle). Never `thread` or `firstComment`: the worker sends those as
   * posts of their own (replyTo) and comments (publishComment).
   */
  options: Record<string, unknown>;
  /**
   * X: the platform id of the post this one answers (a thread's previous part); the create then
   * carries `reply.in_reply_to_tweet_id`. Absent for a post of its own.
   */
  replyTo?: string;
  /**
   * Called once media is uploaded, right before the create request. Throwing stops the send (the
   * post was deleted meanwhile); the worker also records here that a create is about to go out,
   * so a crash after this point is known to be ambiguous. `sent.mediaIds` are the platform's ids
   * of the media attached to this create, kept so a later lookup can recognise a post with no text.
   */
  beforeCreate?: (sent: { mediaIds: string[] }) => Promise<void>;
}

export interface PlatformPublishResult {
  platformPostId: string;
  publishedUrl: string;
}

/** A comment on a live post: X posts it as a reply, LinkedIn as a comment (socialActions). */
export interface PlatformCommentRequest {
  account: PlatformAccount;
  accessToken: string;
  /** The live post's platform id (the post's platformPostId). */
  platformPostId: string;
  text: string;
}

export interface PlatformCommentResult {
  platformCommentId: string;
}

export interface PlatformTokens {
  accessToken: string;
  /** The refresh token to keep from now on (X rotates it; LinkedIn returns the same one). */
  refreshToken: string | null;
  /** ISO time the new access token expires; null when the platform did not say. */
  expiresAt: string | null;
}

/**
 * One per platform (lib/platforms/x-client.ts, linkedin-client.ts). Failures are the classes of
 * lib/domain/platform-errors.ts; nothing thrown carries a token.
 */
export interface PlatformPublisher {
  readonly platform: PublishablePlatform;
  /**
   * True when resending a create after an ambiguous outcome is itself a check: the platform
   * refuses an identical post with PlatformDuplicateError instead of posting it twice (X).
   */
  readonly refusesDuplicates: boolean;
  publish(request: PlatformPublishRequest): Promise<PlatformPublishResult>;
  /** Deleting a post that is already gone succeeds. */
  deletePost(request: { account: PlatformAccount; accessToken: string; platformPostId: string }): Promise<void>;
  refreshAccessToken(request: { refreshToken: string }): Promise<PlatformTokens>;
  /**
   * Looks on the platform for a live post of this account created since `since` with this text
   * and, when `mediaIds` is given, exactly these attached media (platform ids, as handed to
   * beforeCreate). Used to settle an ambiguous outcome. null: the platform shows no such post.
   * Throws PlatformRefusedError when the platform cannot tell (e.g. the app may not read the
   * account's posts), or a transient PlatformError.
   */
  findRecentPost(request: {
    account: PlatformAccount;
    accessToken: string;
    text: string;
    mediaIds?: readonly string[];
    since: Date;
    /** X: only a reply to this post matches (a thread part, looked up after a lost answer). */
    replyTo?: string;
  }): Promise<PlatformPublishResult | null>;
  /**
   * Posts a comment on a live post (a first comment). Failures as publish's: a PlatformRefusedError
   * is final, anything transient is retried by the caller with backoff.
   */
  publishComment(request: PlatformCommentRequest): Promise<PlatformCommentResult>;
  /**
   * Looks for this account's comment with this text on the post, made since `since`: how a comment
   * whose answer was lost is settled without posting it twice. null: no such comment.
   */
  findComment(request: PlatformCommentRequest & { since: Date }): Promise<PlatformCommentResult | null>;
  /** X only: the account's `subscription_type` as X says it now (users/me); null when X does not say. */
  subscriptionType?(request: { accessToken: string }): Promise<string | null>;
}
