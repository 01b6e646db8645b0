/**
 * The small interfaces that use cases take in their constructors. Adapters in lib/store,
 * lib/dispatch and lib/platforms implement them; nothing in lib/domain or lib/use-cases imports
 * an AWS SDK. Post-side ports (post store, idempotency store, dispatcher, platform clients) live
 * beside these in this file as they are built.
 */
import type { Account, AccountCredentials, ApiKeyRecord, MediaItem, Scope, TokenHealth, User, Workspace } from './domain/model.js';
import type { AccountType, PublishablePlatform } from './domain/model.js';
import type { Post, PostError, PostStatus } from './domain/model.js';

export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** Reads of the directory that the request path needs. */
export interface ApiKeyReader {
  getApiKey(keyId: string): Promise<ApiKeyRecord | null>;
}

export interface UserReader {
  getUser(userId: string): Promise<User | null>;
}

export interface AccountReader {
  /** Every account of the user, optionally of one workspace; one Query on the byOwner index. */
  listAccounts(userId: string, filter: { workspaceId?: string }): Promise<Account[]>;
  /** BatchGetItem by account id; ids that do not exist are absent from the map. */
  getAccounts(accountIds: string[]): Promise<Map<string, Account>>;
  getAccount(accountId: string): Promise<Account | null>;
}

/**
 * The publish worker's read of an account: the account and its stored credentials together, one
 * strongly consistent Query on the account's partition (both items live there). Never used to
 * answer a request: account views come from AccountReader, which touches no credentials item.
 */
export interface AccountWithCredentialsReader {
  getAccountWithCredentials(accountId: string): Promise<{ account: Account | null; credentials: AccountCredentials | null }>;
}

export interface MediaReader {
  /** BatchGetItem by media id; ids that do not exist are absent from the map. */
  getMediaItems(mediaIds: string[]): Promise<Map<string, MediaItem>>;
}

export interface CredentialStore {
  getCredentials(accountId: string): Promise<AccountCredentials | null>;
  putCredentials(credentials: AccountCredentials): Promise<void>;
  setTokenHealth(accountId: string, tokenHealth: TokenHealth): Promise<void>;
}

/** Writes used by the admin CLI (the account-settings stand-in) and the demo seed. */
export interface DirectoryAdmin {
  putUser(user: User): Promise<void>;
  updateUser(userId: string, changes: { active?: boolean; monthlyPostAllowance?: number }): Promise<User>;
  putWorkspace(workspace: Workspace): Promise<void>;
  putAccount(account: Account): Promise<void>;
  updateAccount(accountId: string, changes: Partial<Pick<Account, 'tokenHealth' | 'sandbox' | 'active' | 'name'>>): Promise<Account>;
  putApiKey(key: ApiKeyRecord): Promise<void>;
  /** Returns the key's effective revokedAt: revoking twice keeps the first time. */
  revokeApiKey(keyId: string, revokedAt: string): Promise<string>;
  putMediaItem(item: MediaItem): Promise<void>;
}

/** Workspace lookup by id alone (the admin CLI's `account connect --workspace W` names no user). */
export interface WorkspaceReader {
  getWorkspace(workspaceId: string): Promise<Workspace | null>;
}

/**
 * Encrypts platform tokens at rest. The account id is bound into every ciphertext (KMS encryption
 * context on AWS, AES-GCM additional data locally), so a token copied onto another account's
 * credentials item does not decrypt.
 */
export interface TokenCipherContext {
  accountId: string;
}

export interface TokenCipher {
  encrypt(plain: string, context: TokenCipherContext): Promise<string>;
  decrypt(cipherText: string, context: TokenCipherContext): Promise<string>;
}

/** Where media library files are stored (the media bucket); used by the admin CLI's `media add`. */
export interface MediaObjectWriter {
  putObject(objectKey: string, body: Uint8Array, contentType: string): Promise<void>;
}

export type RateBucket = { kind: 'key'; keyId: string } | { kind: 'address'; address: string };

export interface RateDecision {
  allowed: boolean;
  /** Set when not allowed. */
  code: 'rate_limit_burst' | 'rate_limit_daily' | null;
  /** The window the headers describe (the minute, or the day once the daily budget is spent). */
  limit: number;
  remaining: number;
  /** Unix seconds at which the described window resets. */
  resetAt: number;
  /** Seconds until a retry can succeed (only meaningful when not allowed). */
  retryAfterSeconds: number;
}

/** Counts one request against a bucket, atomically, and says whether it may proceed. */
export interface RateLimiter {
  hit(bucket: RateBucket, now: Date): Promise<RateDecision>;
}

/** Who is calling, once the API key is verified. */
export interface Caller {
  userId: string;
  keyId: string;
  scopes: Scope[];
  user: User;
}

/* ----- Platform publishing (lib/platforms implements; errors in lib/domain/platform-errors.ts) ----- */

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
  read(range?: { start: number; end: number }): Promise<Uint8Array>;
}

export interface PlatformPublishRequest {
  account: PlatformAccount;
  accessToken: string;
  text: string;
  media: PlatformMediaSource[];
  /** The validated `options` entry of this platform (x: communityId, shareWithFollowers). */
  options: Record<string, unknown>;
  /**
   * Called once media is uploaded, right before the create request. Throwing stops the send (the
   * post was deleted meanwhile); the worker also records here that a create is about to go out,
   * so a crash after this point is known to be ambiguous.
   */
  beforeCreate?: () => Promise<void>;
}

export interface PlatformPublishResult {
  platformPostId: string;
  publishedUrl: string;
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
   * Looks on the platform for a live post of this account with this text created since `since`
   * (after a duplicate refusal that did not name the post). null when not found or not checkable.
   */
  findRecentPost(request: {
    account: PlatformAccount;
    accessToken: string;
    text: string;
    since: Date;
  }): Promise<PlatformPublishResult | null>;
}

/* ----- Posts (POST/GET/DELETE /posts; lib/store/dynamodb-post-store.ts, lib/dispatch implement) ----- */

/** A response an idempotency record remembers and replays (only ever a 202). */
export interface IdempotentResponse {
  status: number;
  body: unknown;
}

/** Held by the one request that claimed an idempotency key; completing or releasing needs it. */
export interface IdempotencyLock {
  userId: string;
  key: string;
  lockToken: string;
}

export type IdempotencyClaim =
  | { outcome: 'started'; lock: IdempotencyLock }
  | { outcome: 'replay'; response: IdempotentResponse }
  | { outcome: 'in_flight' }
  | { outcome: 'body_mismatch' };

export interface IdempotencyStore {
  /** One conditional write: claims the key, or says why not (with the remembered response to replay). */
  claim(userId: string, key: string, bodyHash: string, now: Date): Promise<IdempotencyClaim>;
  /** Forgets the record of a request that was refused, so the key can be used again. */
  release(lock: IdempotencyLock): Promise<void>;
}

export interface NewPostsWrite {
  userId: string;
  /**
   * The posts of one create that passed every rule, in request order. A post with a non-null
   * allowanceCycle (all in the same cycle) spends one unit of the allowance; drafts spend none.
   */
  posts: Post[];
  allowanceLimit: number;
  /** Completed in the same transaction as the posts, so posts never exist without their replayable response. */
  idempotency: IdempotencyLock | null;
  /** The response to remember, given the ids actually written; null remembers nothing. */
  response(writtenIds: ReadonlySet<string>): IdempotentResponse | null;
}

export interface NewPostsResult {
  /** Written, in request order: every draft and the first posts the allowance could cover. */
  written: Post[];
  /** Not written because the allowance was used up (the rest, in request order). */
  overAllowance: Post[];
}

export interface ScheduleFailureWrite {
  userId: string;
  /** Scheduled posts that were written but could not be queued: they become failed, units given back. */
  posts: Post[];
  error: PostError;
  now: Date;
  idempotency: IdempotencyLock | null;
  /** The response to remember now; null forgets the record (the answer is no longer a 202). */
  response: IdempotentResponse | null;
}

/** Continuation of a list: the key the previous page ended on (opaque to use cases, signed into the cursor). */
export type PostPageKey = Record<string, string>;

export interface PostListQuery {
  userId: string;
  status: PostStatus | null;
  limit: number;
  startKey: PostPageKey | null;
}

export interface PostPage {
  posts: Post[];
  /** Set only when more posts follow (every page before the last is full). */
  nextKey: PostPageKey | null;
}

export interface PostStore {
  /** One TransactWriteItems for the whole request (posts + allowance + idempotency record). */
  createPosts(write: NewPostsWrite): Promise<NewPostsResult>;
  /** Marks posts failed (schedule_failed) and gives their units back; returns the posts as now stored. */
  markScheduleFailed(write: ScheduleFailureWrite): Promise<Post[]>;
  /** The stored post, deleted or not (callers decide what is visible). */
  getPost(postId: string): Promise<Post | null>;
  /** Newest first, live posts only. Throws InvalidPageKeyError for a start key not of this user and filter. */
  listPosts(query: PostListQuery): Promise<PostPage>;
  /**
   * Removes the post if it is still in the state it was read in; gives its allowance unit back in
   * the same transaction when refundCycle is set. False when the state changed meanwhile.
   */
  removePost(post: Post, refundCycle: string | null): Promise<boolean>;
  /**
   * Hides the post from every read and keeps the record (deletedAt set, index attributes removed),
   * if it is still in the state it was read in. Null when the state changed meanwhile.
   */
  softDeletePost(post: Post, options: { deleteFromPlatform: boolean; now: Date }): Promise<Post | null>;
  /** Undoes softDeletePost (the platform deletion could not be queued, so the request fails whole). */
  restoreSoftDeleted(post: Post): Promise<void>;
}

/** What a publish message asks: send this post at scheduledFor. */
export interface DueRequest {
  postId: string;
  /** ISO time the post is due. */
  scheduledFor: string;
}

export interface PostDispatcher {
  /**
   * Makes each post due at its time: SQS with a delay when due within 15 minutes, else an
   * EventBridge Scheduler one-time schedule. Returns the ids that could not be queued.
   */
  dispatch(requests: readonly DueRequest[], now: Date): Promise<{ failed: string[] }>;
  /** Deletes the post's pending schedule, if it has one. Never throws for a schedule that is gone. */
  cancel(postId: string): Promise<void>;
}

/** The deletion queue: the worker deletes the live post of a soft-deleted published post. */
export interface PlatformDeletionQueue {
  enqueue(postId: string): Promise<void>;
}

/* ----- Publish worker, platform deletion, sweeper (lib/store/dynamodb-publish-state.ts, lib/dispatch/publish-queue.ts) ----- */

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
  firstAttemptAt: string | null;
  /** ISO time of the next attempt after a transient failure. */
  retryAt: string | null;
  /** Set right before a create request is sent, removed when its outcome is known not to be live. */
  createSentAt: string | null;
  /** Last time the sweeper put a message back for this post. */
  sweptAt: string | null;
  /** The live post was deleted from the platform (deleteFromPlatform). */
  platformDeletedAt: string | null;
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
   * A create of an earlier attempt was sent and its outcome never recorded (its answer was lost,
   * or the worker stopped): the post may be live already.
   */
  uncertain: boolean;
}

/**
 * What a claim found. Claimed: the post as it is now. Not claimed: the post as it was when the
 * condition failed (null when there is no such post), so the worker can tell why (deleted, not
 * scheduled, held by another worker, or a retry time still ahead) without reading it again.
 */
export type ClaimResult = { claimed: true; post: Post; claim: PublishClaim } | { claimed: false; current: PostForPublishing | null };

export interface PublishStateStore {
  /** One strongly consistent GetItem. */
  getPostForPublishing(postId: string): Promise<PostForPublishing | null>;
  /**
   * One conditional write, no read first: the post is scheduled, not deleted, due by `now` (its
   * scheduledFor and any pending retry time), and nobody holds it (or the holder's lease ran out).
   */
  claim(postId: string, input: { token: string; now: Date; leaseUntil: Date }): Promise<ClaimResult>;
  /** Right before the create request: still held by `token` and not deleted. False means do not send. */
  markCreateSending(postId: string, token: string, now: Date): Promise<boolean>;
  /** Gives the post up until `retryAt`; `uncertain` keeps the record that a create may have gone out. */
  releaseForRetry(postId: string, token: string, input: { retryAt: Date; uncertain: boolean }): Promise<boolean>;
  /** Gives the post up without a retry time (the send was stopped, e.g. the post was deleted meanwhile). */
  release(postId: string, token: string): Promise<void>;
  /** The post went out; returns the post as stored (deletedAt set when it was deleted meanwhile). Null: not scheduled any more. */
  recordPublished(post: Post, outcome: { publishedAt: string; publishedUrl: string; platformPostId: string }, now: Date): Promise<Post | null>;
  recordFailed(post: Post, error: PostError, now: Date): Promise<Post | null>;
  /** Sweeper: Query byDue of one shard for posts due in [dueFrom, dueTo). */
  listDue(shard: number, input: { dueFrom: string | null; dueTo: string; limit: number }): Promise<PostForPublishing[]>;
  /** Sweeper: conditional stamp so a post is put back at most once per interval. False when it changed meanwhile. */
  markSwept(postId: string, input: { now: Date; sweptBefore: Date }): Promise<boolean>;
  markPlatformDeleted(postId: string, now: Date): Promise<void>;
}

/** Puts publish messages on the publish queue, each with its own delay (at most 900 s). */
export interface PublishQueue {
  send(entries: readonly { postId: string; scheduledFor: string; delaySeconds: number }[]): Promise<{ failed: string[] }>;
}

/** Opens a media library file (the media bucket) as a source an adapter can read in ranges. */
export interface MediaSourceFactory {
  open(item: MediaItem): PlatformMediaSource;
}
