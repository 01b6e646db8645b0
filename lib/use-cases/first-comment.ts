/**
 * A published post's first comment (issue 22, "A first comment that never costs the post"): X
 * posts it as a reply, LinkedIn as a comment. The post is `published` already and stays so, whatever
 * becomes of the comment; `firstComment.status` tells the rest.
 *
 * One attempt: claim the comment (its own lease on the post item), look up an earlier comment whose
 * answer was lost (its own "sent" marker; findComment, never a blind resend), write the marker,
 * post it, record the outcome. A refusal fails it for good; anything transient is retried with
 * the post's backoff within the same 15-minute window, by a publish message at the retry time (the
 * worker hands a message for a published post with a pending comment here) and, if that message
 * is lost, by the sweeper through the post's byDue entry (kept while the comment is pending).
 */
import { randomUUID } from 'node:crypto';
import type { Post, PostError } from '../domain/model.js';
import {
  PlatformAmbiguousError,
  PlatformDuplicateError,
  PlatformError,
  PlatformRateLimitedError,
  PlatformUnavailableError,
} from '../domain/platform-errors.js';
import { AMBIGUOUS_RECHECK_MS, nextRetry, platformName, PUBLISH_LEASE_MS, queueDelaySeconds } from '../domain/publishing.js';
import type { CommentClaim } from '../domain/publish-state.js';
import type { AccessTokens } from './access-tokens.js';
import type { AccountWithCredentialsReader } from './ports/accounts.js';
import type { Clock } from './ports/clock.js';
import type { PublishQueue } from './ports/dispatch.js';
import type { PlatformCommentRequest, PlatformPublisher } from './ports/platform-publisher.js';
import type { PublishStateStore } from './ports/publish-state-store.js';
import type { PublishLog, PublishOutcome } from './publish-outcomes.js';

export interface FirstCommentDeps {
  state: PublishStateStore;
  accounts: AccountWithCredentialsReader;
  tokens: AccessTokens;
  publishers: Record<Post['platform'], PlatformPublisher>;
  queue: PublishQueue;
  clock: Clock;
  log: PublishLog;
  newClaimToken?: () => string;
  /** Wait after a comment went out unanswered before it is looked up (AMBIGUOUS_RECHECK_MS). */
  ambiguousRecheckMs?: number;
}

/** The comment's outcome as the worker reports it (the post's own outcome is `published`). */
export type FirstCommentOutcome = PublishOutcome;

/** A transient failure: try again later; `uncertain` when the comment may be live. */
class TryLater extends Error {
  constructor(
    readonly said: string,
    readonly uncertain: boolean,
    readonly notBefore: Date | null = null,
    readonly minDelayMs = 0,
  ) {
    super(said);
    this.name = 'TryLater';
  }
}

export class FirstComments {
  private readonly newClaimToken: () => string;

  constructor(private readonly deps: FirstCommentDeps) {
    this.newClaimToken = deps.newClaimToken ?? randomUUID;
  }

  private get recheckMs(): number {
    return this.deps.ambiguousRecheckMs ?? AMBIGUOUS_RECHECK_MS;
  }

  /** One attempt at the comment of `postId`, if it is pending and nobody holds it. */
  async execute(postId: string): Promise<FirstCommentOutcome> {
    const now = this.deps.clock.now();
    const claim = await this.deps.state.claimComment(postId, { token: this.newClaimToken(), now, leaseUntil: new Date(now.getTime() + PUBLISH_LEASE_MS) });
    if (!claim) return { outcome: 'skipped', reason: 'first comment not pending, not due, or held by another worker' };
    return this.attempt(claim);
  }

  private async attempt(claim: CommentClaim): Promise<FirstCommentOutcome> {
    const { post } = claim;
    const comment = post.firstComment;
    if (!comment || post.platformPostId === null) return { outcome: 'skipped', reason: 'no first comment to post' };
    const platform = post.platform;
    let sent = false;
    try {
      if (claim.sentAt !== null) {
        // Only once the earlier create has surely finished does "not there" mean "not posted".
        const settledAt = Date.parse(claim.sentAt) + this.recheckMs;
        if (settledAt > this.deps.clock.now().getTime()) return await this.retry(claim, new TryLater('waiting to look up an earlier comment', true, new Date(settledAt)));
      }
      const { account, credentials } = await this.deps.accounts.getAccountWithCredentials(post.accountId);
      if (!account || !account.active) {
        return await this.fail(claim, { message: `The ${platformName(platform)} account of this post is not connected any more.`, advice: `Reconnect the account and post the comment yourself.` });
      }
      const publisher = this.deps.publishers[platform];
      const accessToken = await this.deps.tokens.accessToken(account, publisher, { credentials });
      const request: PlatformCommentRequest = {
        account: { id: account.id, platformUserId: account.platformUserId, handle: account.handle, accountType: account.accountType },
        accessToken,
        platformPostId: post.platformPostId,
        text: comment.text,
      };
      if (claim.sentAt !== null) {
        const found = await publisher.findComment({ ...request, since: new Date(Date.parse(claim.sentAt) - 60_000) });
        if (found) return await this.published(claim, found.platformCommentId);
      }
      if (!(await this.deps.state.markCommentSending(post.id, claim.token, this.deps.clock.now()))) {
        return { outcome: 'skipped', reason: 'the first comment was taken over or the post deleted before it was sent' };
      }
      sent = true;
      const result = await publisher.publishComment(request);
      return await this.published(claim, result.platformCommentId);
    } catch (error) {
      return this.onError(claim, error, sent || claim.sentAt !== null);
    }
  }

  private async onError(claim: CommentClaim, error: unknown, mayBeLive: boolean): Promise<FirstCommentOutcome> {
    const platform = claim.post.platform;
    if (error instanceof PlatformAmbiguousError) return this.retry(claim, new TryLater(error.message, true, null, this.recheckMs));
    if (error instanceof PlatformRateLimitedError) return this.retry(claim, new TryLater(error.message, mayBeLive, error.resetAt));
    if (error instanceof PlatformDuplicateError) {
      // X says an identical reply is live: ours from an earlier attempt, or one the user made.
      return this.fail(claim, { message: error.message, advice: `Check the post on ${platformName(platform)}: the comment may be there already.` });
    }
    if (error instanceof PlatformUnavailableError) return this.retry(claim, new TryLater(error.message, mayBeLive));
    if (error instanceof PlatformError) {
      // Refused, or the connection refused (auth): asking again gets the same answer.
      return this.fail(claim, { message: error.message, advice: `The post is live; post the comment yourself on ${platformName(platform)} if it is still wanted.` });
    }
    // Our own side (DynamoDB, KMS, a token refresh): the same window, looked up first if it was sent.
    this.deps.log.error('First comment attempt failed on our side', { postId: claim.post.id, error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) });
    return this.retry(claim, new TryLater(error instanceof Error ? error.message : String(error), mayBeLive));
  }

  private async published(claim: CommentClaim, platformCommentId: string): Promise<FirstCommentOutcome> {
    const stored = await this.deps.state.recordComment(claim.post.id, { status: 'published', platformCommentId }, this.deps.clock.now());
    return stored ? { outcome: 'published', post: stored } : { outcome: 'skipped', reason: 'first comment already settled' };
  }

  private async fail(claim: CommentClaim, failure: Omit<PostError, 'retryable'>): Promise<FirstCommentOutcome> {
    const error: PostError = { ...failure, retryable: false };
    const stored = await this.deps.state.recordComment(claim.post.id, { status: 'failed', error }, this.deps.clock.now(), claim.token);
    return stored ? { outcome: 'failed', post: stored, error } : { outcome: 'skipped', reason: 'the first comment claim was lost before its outcome was recorded' };
  }

  private async retry(claim: CommentClaim, later: TryLater): Promise<FirstCommentOutcome> {
    const now = this.deps.clock.now();
    const decision = nextRetry({ attempt: claim.attempt, firstAttemptAt: new Date(claim.firstAttemptAt), now, notBefore: later.notBefore, minDelayMs: later.minDelayMs });
    const platform = platformName(claim.post.platform);
    if (!decision.retry) {
      return this.fail(claim, {
        message: later.uncertain ? `${platform} did not confirm whether the comment went out: ${later.said}` : `${platform} was unavailable: ${later.said}`,
        advice: later.uncertain ? `Check the post on ${platform}: the comment may be there.` : `The post is live; post the comment yourself on ${platform} if it is still wanted.`,
      });
    }
    if (!(await this.deps.state.releaseComment(claim.post.id, claim.token, { retryAt: decision.at, uncertain: later.uncertain }))) {
      return { outcome: 'skipped', reason: 'first comment changed while it was being sent' };
    }
    const { failed } = await this.deps.queue.send([{ postId: claim.post.id, scheduledFor: decision.at.toISOString(), delaySeconds: queueDelaySeconds(decision.at, now) }]);
    // The sweeper puts it back through its due entry.
    if (failed.length > 0) this.deps.log.warn('First comment retry message not queued; the sweeper will bring it back', { postId: claim.post.id });
    this.deps.log.warn('First comment attempt failed; retrying', { postId: claim.post.id, retryAt: decision.at.toISOString(), said: later.said });
    return { outcome: 'retry', at: decision.at.toISOString() };
  }
}
