/**
 * The records the service keeps, in the contract's words (api-v1.md, decisions.md). These are the
 * shapes the use cases work with; lib/store maps them to DynamoDB items and lib/domain/views.ts
 * to the JSON objects of the API.
 */
import type { PostMetrics } from './post-metrics.js';
export const PUBLISHABLE_PLATFORMS = ['linkedin', 'x'] as const;
export type PublishablePlatform = (typeof PUBLISHABLE_PLATFORMS)[number];
export const KNOWN_PLATFORMS = [
  'linkedin',
  'x',
  'instagram',
  'facebook',
  'tiktok',
  'threads',
  'bluesky',
  'youtube',
] as const;

export const SCOPES = ['read', 'write', 'publish', 'media'] as const;
export type Scope = (typeof SCOPES)[number];

export const POST_STATUSES = ['draft', 'scheduled', 'published', 'failed'] as const;
export type PostStatus = (typeof POST_STATUSES)[number];

/**
 * What a post is on its platform (beyond-v1.md "Native formats"): plain text with media, an X
 * thread (the post and its further parts, each a reply to the one before), a poll, or a LinkedIn
 * document (one PDF with a title). Decided once, when the post is created or changed.
 */
export const POST_FORMATS = ['text', 'thread', 'poll', 'document'] as const;
export type PostFormat = (typeof POST_FORMATS)[number];

export const FIRST_COMMENT_STATUSES = ['pending', 'published', 'failed'] as const;
export type FirstCommentStatus = (typeof FIRST_COMMENT_STATUSES)[number];

export const TOKEN_HEALTH = ['healthy', 'expiring', 'needs_reauth', 'refresh_failed'] as const;
export type TokenHealth = (typeof TOKEN_HEALTH)[number];

export const ACCOUNT_TYPES = ['personal', 'organization'] as const;
export type AccountType = (typeof ACCOUNT_TYPES)[number];

/**
 * How a sandbox platform answers for this account (local stack and tests only). `refuse-comment`
 * takes posts but refuses first comments; `refuse-part-3` takes posts but refuses a thread's third
 * part (X), so a user can see both outcomes without a real platform misbehaving.
 */
export const SANDBOX_BEHAVIOURS = ['ok', 'refuse', 'expired', 'flaky', 'refuse-comment', 'refuse-part-3'] as const;
export type SandboxBehaviour = (typeof SANDBOX_BEHAVIOURS)[number];

export interface User {
  id: string;
  email: string;
  /** Active subscription; false gives 403 subscription_inactive. */
  active: boolean;
  /** Plan allowance: accepted non-draft posts per calendar month (UTC). */
  monthlyPostAllowance: number;
  /** Every workspace the user owns, kept on the user so auth + create need no extra Query. */
  workspaceIds: string[];
  createdAt: string;
  /** The IANA zone the person chose for the settings pages' times; unset, the browser's is used. */
  timeZone?: string;
}

export interface Workspace {
  id: string;
  userId: string;
  name: string;
  createdAt: string;
}

export interface Account {
  id: string;
  userId: string;
  workspaceId: string;
  platform: string;
  name: string;
  handle: string;
  accountType: AccountType;
  active: boolean;
  tokenHealth: TokenHealth;
  connectedAt: string;
  /** Platform-side id of the author (LinkedIn person/organization id, X user id). */
  platformUserId: string;
  sandbox?: SandboxBehaviour;
  /**
   * X only: `subscription_type` as X's users/me last said it (None, Basic, Premium, PremiumPlus);
   * Premium and PremiumPlus post up to 25,000 weighted characters (target-rules.ts textLimitFor).
   * Absent: never read (an ordinary account).
   */
  xSubscription?: string | null;
  /**
   * When access ends for good (ISO): set only when the token cannot be refreshed (LinkedIn without
   * a partner refresh token), null or absent otherwise. tokenHealth becomes `expiring` 7 days before
   * (the sweeper, token-expiry.ts).
   */
  tokenExpiresAt?: string | null;
  /** When xSubscription was last read from X (ISO); read again when a day old. */
  xSubscriptionCheckedAt?: string | null;
  /**
   * The sandbox X's answer for subscription_type (admin CLI `--x-subscription`; local stack and
   * tests only), as `sandbox` is its behaviour.
   */
  sandboxXSubscription?: XSubscription;
}

export const X_SUBSCRIPTIONS = ['None', 'Basic', 'Premium', 'PremiumPlus'] as const;
export type XSubscription = (typeof X_SUBSCRIPTIONS)[number];

/**
 * Platform tokens live in an item of their own that no index projects, so no read path that lists
 * accounts can ever carry them. Tokens are stored encrypted (lib/store/token-cipher.ts).
 */
export interface AccountCredentials {
  accountId: string;
  accessTokenEncrypted: string;
  refreshTokenEncrypted: string | null;
  /** ISO time the access token expires. */
  accessTokenExpiresAt: string | null;
  /**
   * Changes with every write of the tokens (set by the store). A refresh stores its result only
   * over the revision it started from, so an older result never overwrites a newer token.
   */
  revision?: string | null;
}

export interface ApiKeyRecord {
  id: string;
  userId: string;
  /** hex SHA-256 of the secret part; compared in constant time. */
  secretHash: string;
  scopes: Scope[];
  createdAt: string;
  revokedAt: string | null;
}

export interface MediaItem {
  id: string;
  userId: string;
  /** The service-hosted URL that the caller puts in `media`. */
  url: string;
  contentType: string;
  sizeBytes: number;
  durationSeconds: number | null;
  /**
   * A PDF's pages when they could be read cheaply (lib/domain/pdf-pages.ts); null when unknown or
   * not a PDF. Absent on items written before PDFs were taken: read as null.
   */
  pageCount?: number | null;
  /** Object key in the media bucket. */
  objectKey: string;
  createdAt: string;
  /**
   * Where the file is in its life (beyond-v2.md "Media through the API"): an API upload is
   * `pending` until completed, an import `processing` until fetched; only a `ready` file is served
   * and may be posted. Absent on items made by settings or the admin CLI before API uploads: ready.
   * A file not ready has no URL yet (`url` is '').
   */
  status?: MediaStatus;
  /** The name the file was given (absent on older items: the object key's last part). */
  fileName?: string;
  altText?: string | null;
  width?: number | null;
  height?: number | null;
  /** Why a `failed` file failed. */
  error?: { code: string; message: string } | null;
  updatedAt?: string;
  /** An import's address (POST /media with sourceUrl); absent on uploads. */
  sourceUrl?: string;
  /**
   * While not settled (`pending` or `processing`): when the sweeper looks at it next (an import
   * whose worker's lease ran out, an upload abandoned). Cleared once ready or failed.
   */
  dueAt?: string | null;
  /** How many times a worker took the import on (lib/domain/media-import.ts MAX_IMPORT_CLAIMS). */
  importClaims?: number;
}

export const MEDIA_STATUSES = ['pending', 'processing', 'ready', 'failed'] as const;
export type MediaStatus = (typeof MEDIA_STATUSES)[number];

/** An item's status: items from before API uploads carry none and are ready. */
export function mediaStatus(item: Pick<MediaItem, 'status'>): MediaStatus {
  return item.status ?? 'ready';
}

export interface PostError {
  message: string;
  advice: string;
  /**
   * True only when the platform certainly holds no such post and sending it again can help
   * (decided by isRetryableFailure in lib/domain/publishing.ts): POST /posts/{id}/retry takes only
   * these. Absent on errors recorded before the field existed: read as false.
   */
  retryable?: boolean;
}

/**
 * One further part of an X thread; the first part is the post itself (its text, media and
 * platformPostId). The publish worker records each part's id before it sends the next.
 */
export interface ThreadPart {
  text: string;
  mediaUrls: string[];
  /** Media library ids behind mediaUrls, in the same order. */
  mediaIds: string[];
  /** Set once this part is live. */
  platformPostId: string | null;
  publishedUrl: string | null;
}

/**
 * The first comment asked for with `options.<platform>.firstComment`: posted as a reply (X) or a
 * comment (LinkedIn) on the post right after it is live. It never changes the post's own status.
 */
export interface FirstComment {
  text: string;
  status: FirstCommentStatus;
  platformCommentId: string | null;
  error: PostError | null;
}

export interface Post {
  id: string;
  userId: string;
  workspaceId: string;
  accountId: string;
  platform: PublishablePlatform;
  campaignId: string;
  status: PostStatus;
  text: string;
  mediaUrls: string[];
  /** Media library ids behind mediaUrls, in the same order. */
  mediaIds: string[];
  /**
   * The `options` entry for this post's platform, as validated. `thread` and `firstComment` are
   * not kept here: they live in threadParts and firstComment.
   */
  options: Record<string, unknown>;
  format: PostFormat;
  /** The further parts of a thread, in order ([] unless format is `thread`). */
  threadParts: ThreadPart[];
  firstComment: FirstComment | null;
  scheduledFor: string;
  publishedAt: string | null;
  publishedUrl: string | null;
  platformPostId: string | null;
  error: PostError | null;
  createdAt: string;
  updatedAt: string;
  /** Set when DELETE removed the post from every read. */
  deletedAt: string | null;
  /** Calendar month (YYYY-MM) whose allowance this post spent a unit of; null for drafts. */
  allowanceCycle: string | null;
  /** DELETE asked with deleteFromPlatform=true (also when the send was still running). */
  deleteFromPlatformRequested: boolean;
  /**
   * Set by the publish worker's claim: from then on the post is being sent or may be live, so
   * DELETE keeps the record (soft delete) instead of cancelling it. Cleared when an attempt gives
   * the post back knowing nothing went out (a retry after a refusal before sending, a 429), so a
   * post waiting out a backoff is cancelled and refunded like any post that has not gone out.
   * Absent = null.
   */
  inFlightSince?: string | null;
  /**
   * The post holds its account's queue slot at scheduledFor (created or changed with `queue: true`):
   * cancelling or moving it gives the slot back (lib/store/dynamodb-queue-store.ts). Absent = false.
   */
  queueSlot?: boolean;
  /** The latest collected figures (post metrics, beyond-v2.md); null or absent until the first collection. */
  metrics?: PostMetrics | null;
}
