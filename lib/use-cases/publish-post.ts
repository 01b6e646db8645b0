/**
 * Publish one post (the publish worker's use case), from a publish message to a recorded outcome.
 *
 *  1. Early message (Scheduler fires minutes ahead; retries and sweeps carry their own time): put
 *     it back for the last stretch, or wait the final two seconds here, so the post goes out on time.
 *  2. Claim the post with one conditional write, with no read before it: scheduled, not deleted,
 *     due, nobody holding it. A duplicate delivery, a cancelled post, a draft or a post already
 *     published or failed stops here; the item the failed condition returns says which.
 *  3. Account and credentials (one Query), token (refreshed before expiry), media from the media
 *     bucket, then the platform.
 *  4. The outcome, by the class of what the platform said (lib/domain/platform-errors.ts):
 *     published; failed with the platform's message and one sentence of advice; retried with
 *     backoff for up to 15 minutes (429, 5xx, connection failures before sending); or, when a
 *     create went out without an answer, never resent blindly: X refuses a duplicate, so resending
 *     there is the check; elsewhere the post fails with advice to check the account.
 *
 * Right before the create request the worker records that it is sending (and that the post is
 * still not deleted). A later attempt that finds that record unresolved knows the earlier create
 * may be live, whatever stopped it.
 *
 * DynamoDB requests of an on-time text post: claim, account + credentials, the sending marker,
 * the outcome (4); media add one BatchGetItem. Every request saved is one fewer that a burst of
 * posts due at the same second waits for.
 */
import { randomUUID } from 'node:crypto';
import type { PublishMessage } from '../dispatch/messages.js';
import type { Post, PostError, PublishablePlatform } from '../domain/model.js';
import {
  PlatformAmbiguousError,
  PlatformAuthError,
  PlatformDuplicateError,
  PlatformError,
  PlatformRateLimitedError,
  PlatformRefusedError,
  PlatformUnavailableError,
} from '../domain/platform-errors.js';
import {
  ADVICE,
  AMBIGUOUS_RECHECK_MS,
  gaveUpMessage,
  nextDueAt,
  nextRetry,
  platformName,
  queueDelaySeconds,
  refusalAdvice,
  timingFor,
} from '../domain/publishing.js';
import type { PublishClaim } from '../domain/publish-state.js';
import type { AccountWithCredentialsReader } from './ports/accounts.js';
import type { Clock } from './ports/clock.js';
import type { PlatformDeletionQueue, PublishQueue } from './ports/dispatch.js';
import type { MediaReader, MediaSourceFactory } from './ports/media.js';
import type { PlatformAccount, PlatformPublishResult, PlatformPublisher } from './ports/platform-publisher.js';
import type { PublishStateStore } from './ports/publish-state-store.js';
import { CredentialsMissingError, TokenRefreshFailedError, type AccessTokens } from './access-tokens.js';

/** What the worker reports; the function turns these into metrics. */
export interface PublishMetrics {
  published(lagMs: number): void;
  failed(kind: string): void;
  retried(kind: string): void;
}

export interface PublishLog {
  warn(message: string, details: Record<string, unknown>): void;
  error(message: string, details: Record<string, unknown>): void;
}

export interface PublishPostDeps {
  state: PublishStateStore;
  accounts: AccountWithCredentialsReader;
  media: MediaReader;
  mediaSources: MediaSourceFactory;
  tokens: AccessTokens;
  setTokenHealth: (accountId: string, health: 'needs_reauth') => Promise<void>;
  publishers: Record<PublishablePlatform, PlatformPublisher>;
  queue: PublishQueue;
  deletionQueue: PlatformDeletionQueue;
  clock: Clock;
  metrics: PublishMetrics;
  log: PublishLog;
  sleep?: (ms: number) => Promise<void>;
  newClaimToken?: () => string;
  /** Wait after a lost answer before X is asked again by resending (AMBIGUOUS_RECHECK_MS). */
  ambiguousRecheckMs?: number;
}

export type PublishOutcome =
  | { outcome: 'published'; post: Post }
  | { outcome: 'failed'; post: Post | null; error: PostError }
  | { outcome: 'retry'; at: string }
  | { outcome: 'requeued'; delaySeconds: number }
  | { outcome: 'skipped'; reason: string };

/** The message could not be put back on the queue: the function reports it failed so SQS delivers it again. */
export class RequeueFailedError extends Error {
  readonly code = 'requeue_failed';
  constructor(postId: string) {
    super(`Could not put the publish message of ${postId} back on the queue`);
    this.name = 'RequeueFailedError';
  }
}

/** Raised inside beforeCreate: the post was deleted (or the claim lost) just before sending. */
class SendStoppedError extends Error {
  readonly code = 'send_stopped';
  constructor() {
    super('The post was deleted or taken over before its create request was sent');
    this.name = 'SendStoppedError';
  }
}

class MediaMissingError extends Error {
  readonly code = 'media_missing';
  constructor(mediaId: string) {
    super(`Media ${mediaId} is no longer in the media library`);
    this.name = 'MediaMissingError';
  }
}

export class PublishPost {
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly newClaimToken: () => string;

  constructor(private readonly deps: PublishPostDeps) {
    this.sleep = deps.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
    this.newClaimToken = deps.newClaimToken ?? randomUUID;
  }

  async execute(message: PublishMessage, options: { leaseMs: number }): Promise<PublishOutcome> {
    // The message's own time first: an early message costs no read at all.
    const early = await this.onTime(message.postId, new Date(message.scheduledFor));
    if (early) return early;

    // Claim straight away: the claim's condition is the whole check, and what it returns is
    // either the post to send or the post as it was, which says why it was not claimed.
    for (let round = 1; ; round++) {
      const now = this.deps.clock.now();
      const result = await this.deps.state.claim(message.postId, {
        token: this.newClaimToken(),
        now,
        leaseUntil: new Date(now.getTime() + options.leaseMs),
      });
      if (result.claimed) return this.send(result.post, result.claim);
      if (!result.current) return { outcome: 'skipped', reason: 'post removed' };
      const { post, state } = result.current;
      if (post.deletedAt !== null) return { outcome: 'skipped', reason: 'post deleted' };
      if (post.status !== 'scheduled') return { outcome: 'skipped', reason: `post is ${post.status}` };
      if (state.claimUntil !== null && Date.parse(state.claimUntil) >= now.getTime()) {
        return { outcome: 'skipped', reason: 'another worker is sending the post' };
      }
      // Due later than the message said (a duplicate or a sweep older than a pending retry): put
      // back, or waited for here and claimed once more.
      const dueAt = nextDueAt(post.scheduledFor, state.retryAt);
      if (round > 1 || dueAt.getTime() <= now.getTime()) return { outcome: 'skipped', reason: 'post could not be claimed' };
      const wait = await this.onTime(post.id, dueAt);
      if (wait) return wait;
    }
  }

  /** Null when it is time; otherwise the message was put back (or it is waited for here). */
  private async onTime(postId: string, dueAt: Date): Promise<PublishOutcome | null> {
    const timing = timingFor(dueAt, this.deps.clock.now());
    if (timing.action === 'send') return null;
    if (timing.action === 'wait') {
      // A timer can fire a few milliseconds before the wall clock reaches its time, and the claim
      // compares the due time with the wall clock: wait until it has passed (a claim refused as
      // early would cost a request).
      let remaining = timing.ms;
      for (let round = 0; remaining > 0 && round < 3; round++) {
        await this.sleep(remaining);
        remaining = dueAt.getTime() - this.deps.clock.now().getTime();
      }
      return null;
    }
    const { failed } = await this.deps.queue.send([{ postId, scheduledFor: dueAt.toISOString(), delaySeconds: timing.delaySeconds }]);
    if (failed.length > 0) throw new RequeueFailedError(postId);
    return { outcome: 'requeued', delaySeconds: timing.delaySeconds };
  }

  private async send(post: Post, claim: PublishClaim): Promise<PublishOutcome> {
    const publisher = this.deps.publishers[post.platform];
    let createSent = false;
    try {
      // The account and its credentials in one read (they share a partition).
      const { account, credentials } = await this.deps.accounts.getAccountWithCredentials(post.accountId);
      if (!account || !account.active) {
        return this.fail(post, { message: `The ${platformName(post.platform)} account of this post is not connected any more.`, advice: ADVICE.accountGone() }, 'account_gone');
      }
      if (claim.uncertain && !publisher.refusesDuplicates) {
        // Resending could post twice and the platform cannot be asked: the user has to look.
        return this.fail(
          post,
          { message: `${platformName(post.platform)} did not confirm whether the post went out (the answer to the create request was lost).`, advice: ADVICE.checkAccount(post.platform) },
          'ambiguous',
        );
      }
      const accessToken = await this.deps.tokens.accessToken(account, publisher, { credentials });
      const media = await this.mediaOf(post);
      const platformAccount: PlatformAccount = { id: account.id, platformUserId: account.platformUserId, handle: account.handle, accountType: account.accountType };
      try {
        const result = await publisher.publish({
          account: platformAccount,
          accessToken,
          text: post.text,
          media,
          options: post.options,
          beforeCreate: async () => {
            if (!(await this.deps.state.markCreateSending(post.id, claim.token, this.deps.clock.now()))) throw new SendStoppedError();
            createSent = true;
          },
        });
        return await this.published(post, result);
      } catch (error) {
        if (error instanceof PlatformDuplicateError && claim.uncertain) {
          // An earlier create may have gone out: this refusal says it did. Find it to record its id.
          const live = await this.findLive(post, claim, platformAccount, accessToken);
          if (live) return await this.published(post, live);
          return this.fail(post, { message: error.message, advice: ADVICE.checkAccount(post.platform) }, 'ambiguous');
        }
        throw error;
      }
    } catch (error) {
      return this.onError(post, claim, error, createSent);
    }
  }

  /** After a duplicate refusal that follows a lost answer: the live post, when the platform can show it. */
  private async findLive(post: Post, claim: PublishClaim, account: PlatformAccount, accessToken: string): Promise<PlatformPublishResult | null> {
    try {
      return await this.deps.publishers[post.platform].findRecentPost({
        account,
        accessToken,
        text: post.text,
        since: new Date(Date.parse(claim.firstAttemptAt) - 60_000),
      });
    } catch (lookupError) {
      this.deps.log.warn('Could not look for the live post after a duplicate refusal', { postId: post.id, error: String(lookupError) });
      return null;
    }
  }

  private async mediaOf(post: Post) {
    if (post.mediaIds.length === 0) return [];
    const items = await this.deps.media.getMediaItems(post.mediaIds);
    return post.mediaIds.map((id) => {
      const item = items.get(id);
      if (!item) throw new MediaMissingError(id);
      return this.deps.mediaSources.open(item);
    });
  }

  private async published(post: Post, result: PlatformPublishResult): Promise<PublishOutcome> {
    const now = this.deps.clock.now();
    const outcome = { publishedAt: now.toISOString(), publishedUrl: result.publishedUrl, platformPostId: result.platformPostId };
    // The post is live: the record must be written, or a later attempt would have to check again.
    let stored: Post | null = null;
    for (let attempt = 1; ; attempt++) {
      try {
        stored = await this.deps.state.recordPublished(post, outcome, now);
        break;
      } catch (error) {
        if (attempt >= 3) throw error;
        await this.sleep(100 * attempt);
      }
    }
    this.deps.metrics.published(now.getTime() - Date.parse(post.scheduledFor));
    if (!stored) return { outcome: 'skipped', reason: 'post was no longer scheduled when the outcome was recorded' };
    if (stored.deletedAt !== null && stored.deleteFromPlatformRequested) {
      // Deleted while it was being sent, with deleteFromPlatform: now that its id is known, it goes.
      for (let attempt = 1; ; attempt++) {
        try {
          await this.deps.deletionQueue.enqueue(post.id);
          break;
        } catch (error) {
          if (attempt >= 3) {
            this.deps.log.error('Could not queue the deletion of a post deleted while it was sent', { postId: post.id, error: String(error) });
            break;
          }
          await this.sleep(200 * attempt);
        }
      }
    }
    return { outcome: 'published', post: stored };
  }

  private async fail(post: Post, error: PostError, kind: string): Promise<PublishOutcome> {
    const stored = await this.deps.state.recordFailed(post, error, this.deps.clock.now());
    this.deps.metrics.failed(kind);
    return { outcome: 'failed', post: stored, error };
  }

  private async retryOrFail(
    post: Post,
    claim: PublishClaim,
    input: { kind: string; uncertain: boolean; notBefore?: Date | null; minDelayMs?: number; lastSaid: string; giveUp: PostError },
  ): Promise<PublishOutcome> {
    const decision = nextRetry({
      attempt: claim.attempt,
      firstAttemptAt: new Date(claim.firstAttemptAt),
      now: this.deps.clock.now(),
      notBefore: input.notBefore ?? null,
      minDelayMs: input.minDelayMs ?? 0,
    });
    if (!decision.retry) return this.fail(post, input.giveUp, `${input.kind}_gave_up`);
    const released = await this.deps.state.releaseForRetry(post.id, claim.token, { retryAt: decision.at, uncertain: input.uncertain });
    if (!released) return { outcome: 'skipped', reason: 'post changed while it was being sent' };
    const at = decision.at.toISOString();
    await this.deps.queue
      .send([{ postId: post.id, scheduledFor: at, delaySeconds: queueDelaySeconds(decision.at, this.deps.clock.now()) }])
      .then(({ failed }) => {
        // The sweeper puts back a post whose retry time passed with nothing in flight.
        if (failed.length > 0) this.deps.log.warn('Retry message not queued; the sweeper will bring the post back', { postId: post.id });
      });
    this.deps.metrics.retried(input.kind);
    this.deps.log.warn('Publish attempt failed; retrying', { postId: post.id, attempt: claim.attempt, retryAt: at, kind: input.kind, said: input.lastSaid });
    return { outcome: 'retry', at };
  }

  private async onError(post: Post, claim: PublishClaim, error: unknown, createSent: boolean): Promise<PublishOutcome> {
    const platform = post.platform;
    if (error instanceof SendStoppedError) {
      await this.deps.state.release(post.id, claim.token);
      return { outcome: 'skipped', reason: 'post deleted before it was sent' };
    }
    if (error instanceof PlatformDuplicateError) {
      return this.fail(post, { message: error.message, advice: ADVICE.duplicate(platform) }, 'duplicate');
    }
    if (error instanceof PlatformRefusedError) {
      return this.fail(post, { message: error.message, advice: refusalAdvice(platform, error.message) }, 'refused');
    }
    if (error instanceof PlatformAuthError) {
      await this.deps.setTokenHealth(post.accountId, 'needs_reauth');
      return this.fail(post, { message: error.message, advice: ADVICE.reconnect(platform) }, 'auth');
    }
    if (error instanceof TokenRefreshFailedError) {
      return this.fail(post, { message: error.message, advice: ADVICE.refreshFailed(platform) }, 'refresh_failed');
    }
    if (error instanceof CredentialsMissingError) {
      return this.fail(post, { message: `The ${platformName(platform)} account has no stored connection.`, advice: ADVICE.reconnect(platform) }, 'account_gone');
    }
    if (error instanceof MediaMissingError) {
      return this.fail(post, { message: error.message, advice: ADVICE.mediaGone() }, 'media_gone');
    }
    if (error instanceof PlatformAmbiguousError) {
      if (!this.deps.publishers[platform].refusesDuplicates) {
        return this.fail(post, { message: error.message, advice: ADVICE.checkAccount(platform) }, 'ambiguous');
      }
      return this.retryOrFail(post, claim, {
        kind: 'ambiguous',
        uncertain: true,
        minDelayMs: this.deps.ambiguousRecheckMs ?? AMBIGUOUS_RECHECK_MS,
        lastSaid: error.message,
        giveUp: { message: error.message, advice: ADVICE.checkAccount(platform) },
      });
    }
    if (error instanceof PlatformRateLimitedError) {
      return this.retryOrFail(post, claim, {
        kind: 'rate_limited',
        uncertain: claim.uncertain,
        notBefore: error.resetAt,
        lastSaid: error.message,
        giveUp: { message: error.message, advice: ADVICE.rateLimited(platform, error.resetAt) },
      });
    }
    if (error instanceof PlatformUnavailableError || error instanceof PlatformError) {
      return this.retryOrFail(post, claim, {
        kind: 'unavailable',
        uncertain: claim.uncertain,
        lastSaid: error.message,
        giveUp: { message: gaveUpMessage(platform, error.message), advice: ADVICE.gaveUp(platform) },
      });
    }
    // Our own side failed (DynamoDB, S3, KMS): the same retry window. If the create had gone
    // out, its outcome is unknown, so the next attempt must check rather than resend.
    this.deps.log.error('Publish attempt failed on our side', { postId: post.id, error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) });
    return this.retryOrFail(post, claim, {
      kind: 'internal',
      uncertain: claim.uncertain || createSent,
      lastSaid: error instanceof Error ? error.message : String(error),
      giveUp: {
        message: 'The post could not be sent because of an error on our side.',
        advice: createSent ? ADVICE.checkAccount(platform) : 'Create the post again; if it keeps failing, contact support.',
      },
    });
  }
}
