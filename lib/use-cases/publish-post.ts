/**
 * Publish one post (the publish worker's use case), from a publish message to a recorded outcome.
 *
 *  1. Early message (Scheduler fires minutes ahead; retries and sweeps carry their own time): put
 *     it back to arrive one to two seconds before the post is due (lib/domain/publishing.ts).
 *  2. Prepare, within PREPARE_WINDOW_MS of the due time: claim the post with one conditional write,
 *     with no read before it (scheduled, not deleted, due by the end of the window, nobody holding
 *     it). A duplicate delivery, a cancelled post, a draft or a post already published or failed
 *     stops here; the item the failed condition returns says which. Then the account and
 *     credentials (one Query), the token (refreshed before expiry) and media uploaded to the
 *     platform; then wait for the due time.
 *  3. At the due time: the "sent" marker below, the create request, the outcome. Of a post's four
 *     DynamoDB requests, two fall in its due second; a burst of posts due at the same second waits
 *     for those alone.
 *  4. The outcome, by the class of what the platform said (lib/domain/platform-errors.ts):
 *     published; failed with the platform's message and one sentence of advice; retried with
 *     backoff for up to 15 minutes (429, 5xx, connection failures before sending); or, when a
 *     create went out without a clear answer (none, or a gateway's 502/503/504), never resent
 *     blindly: the next attempt looks the post up first.
 *
 * Right before the create request the worker records that it is sending (and that the post is
 * still not deleted, and its lease still held), with the media ids the create carries. From then
 * the post is in flight (a delete soft-deletes it: it may be live); before, it is not, however
 * early it was claimed and prepared: a delete cancels it, gives its unit back, and the marker's
 * condition stops the send. A later attempt that finds that record unresolved knows the earlier
 * create may be live, whatever stopped it (a lost answer, a crash, an expired lease), and settles
 * it by looking on the platform (findRecentPost, matched on text and media): found is published;
 * not there is sent again; a platform that cannot tell fails the post with advice to check the
 * account. A post deleted with deleteFromPlatform meanwhile is settled the same way and, if live,
 * deleted.
 *
 * The claim is a short lease renewed while the attempt runs (publish-lease.ts); every write after
 * it but the published one is conditional on still holding it.
 *
 * DynamoDB requests of an on-time text post: claim, account + credentials (before the due second),
 * the "sent" marker, the outcome (4); media add one BatchGetItem, before the second too.
 */
import { randomUUID } from 'node:crypto';
import type { PublishMessage } from '../dispatch/messages.js';
import type { Account, Post, PostError, PublishablePlatform } from '../domain/model.js';
import { textLimitFor } from '../domain/target-rules.js';
import { X_MAX_WEIGHTED_LENGTH, xTextLength } from '../domain/x-text-length.js';
import {
  PlatformAmbiguousError,
  PlatformAuthError,
  PlatformDuplicateError,
  PlatformError,
  PlatformRateLimitedError,
  PlatformRefusedError,
  PlatformVersionRetiredError,
  PlatformUnavailableError,
} from '../domain/platform-errors.js';
import {
  ADVICE,
  AMBIGUOUS_RECHECK_MS,
  gaveUpMessage,
  nextDueAt,
  platformName,
  PREPARE_WINDOW_MS,
  refusalAdvice,
  SENT_MARKER_LEAD_MS,
  sentMarkerLeadMs,
  RETRY_WINDOW_MS,
  timingFor,
} from '../domain/publishing.js';
import type { PublishClaim } from '../domain/publish-state.js';
import { isThread, livePartCount, type NextPart } from '../domain/thread-progress.js';
import type { AccountWithCredentialsReader } from './ports/accounts.js';
import type { Clock } from './ports/clock.js';
import type { PlatformDeletionQueue, PublishQueue } from './ports/dispatch.js';
import type { MediaReader, MediaSourceFactory } from './ports/media.js';
import type { PlatformAccount, PlatformPublishResult, PlatformPublisher } from './ports/platform-publisher.js';
import type { PublishStateStore } from './ports/publish-state-store.js';
import { CredentialsMissingError, TokenRefreshFailedError, type AccessTokens } from './access-tokens.js';
import type { CreatesInFlight } from './creates-in-flight.js';
import { holdingLease, leaseEnd, type HeldLease, type PublishLease } from './publish-lease.js';
import { FirstComments } from './first-comment.js';
import { PublishOutcomes, type PublishLog, type PublishMetrics, type PublishOutcome } from './publish-outcomes.js';
import { PublishThread } from './publish-thread.js';
import { xSubscriptionStale } from '../domain/x-subscription-check.js';

export type { PublishLog, PublishMetrics, PublishOutcome } from './publish-outcomes.js';

export interface PublishPostDeps {
  state: PublishStateStore;
  accounts: AccountWithCredentialsReader;
  media: MediaReader;
  mediaSources: MediaSourceFactory;
  tokens: AccessTokens;
  setTokenHealth: (accountId: string, health: 'needs_reauth') => Promise<void>;
  /** Stores X's subscription_type as read at publish (X long posts); absent: never read at publish. */
  setXSubscription?: (accountId: string, xSubscription: string | null, checkedAt: Date) => Promise<void>;
  publishers: Record<PublishablePlatform, PlatformPublisher>;
  queue: PublishQueue;
  deletionQueue: PlatformDeletionQueue;
  clock: Clock;
  metrics: PublishMetrics;
  log: PublishLog;
  sleep?: (ms: number) => Promise<void>;
  newClaimToken?: () => string;
  /** The process's create requests in flight: outcome writes wait for them (creates-in-flight.ts). */
  creates?: CreatesInFlight;
  /** Wait after a create with an unknown outcome was sent before the post is looked up (AMBIGUOUS_RECHECK_MS). */
  ambiguousRecheckMs?: number;
}

/**
 * The longest an outcome write waits for the other creates in flight (creates-in-flight.ts): long
 * enough for a burst's creates to go out first (a shorter wait let the outcome writes of the first
 * answers compete with the rest of the burst for the process's CPU; figures in
 * docs/performance.md, "Posts due at the same second"), short enough that a slow platform delays
 * the record only a little. The outcome's time is the answer's, however late it is written.
 */
const OUTCOME_WAIT_MAX_MS = 3_000;

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

/** The platform could not say whether an earlier create went out (its lookup was refused). */
class CannotTellError extends Error {
  readonly code = 'cannot_tell';
  constructor(readonly said: string) {
    super(`The platform could not be asked whether the post went out: ${said}`);
    this.name = 'CannotTellError';
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

  private readonly outcomes: PublishOutcomes;
  private readonly thread: PublishThread;
  private readonly firstComments: FirstComments;

  constructor(private readonly deps: PublishPostDeps) {
    this.sleep = deps.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
    this.newClaimToken = deps.newClaimToken ?? randomUUID;
    this.outcomes = new PublishOutcomes({ ...deps, sleep: this.sleep });
    this.thread = new PublishThread(deps, this.outcomes);
    this.firstComments = new FirstComments({ ...deps, newClaimToken: this.newClaimToken, ...(deps.ambiguousRecheckMs === undefined ? {} : { ambiguousRecheckMs: deps.ambiguousRecheckMs }) });
  }

  /**
   * `prepareMs`: how long before its time the post is prepared (PREPARE_WINDOW_MS, or the lead of
   * its second's count: publish-batch.ts); a message earlier than that is put back.
   */
  async execute(message: PublishMessage, lease: PublishLease, prepareMs: number = PREPARE_WINDOW_MS): Promise<PublishOutcome> {
    // The message's own time first: an early message costs no read at all.
    const tooEarlyOutcome = await this.onTime(message.postId, new Date(message.scheduledFor), prepareMs);
    if (tooEarlyOutcome) return tooEarlyOutcome;

    // Claim straight away: the claim's condition is the whole check, and what it returns is
    // either the post to send or the post as it was, which says why it was not claimed.
    for (let round = 1; ; round++) {
      const now = this.deps.clock.now();
      const dueBy = new Date(now.getTime() + prepareMs);
      // A post claimed ahead of its time is held until its time plus a lease (never past the
      // invocation's end), not a lease from now: the wait costs no renewal, and a worker that dies
      // while holding it frees it a lease after its time, as one that claimed it at its time would.
      const leaseUntil = leaseEnd(lease, new Date(Math.max(now.getTime(), Date.parse(message.scheduledFor))));
      const result = await this.deps.state.claim(message.postId, { token: this.newClaimToken(), now, dueBy, leaseUntil });
      if (result.claimed) {
        const { post, claim } = result;
        const outcome = await holdingLease(this.deps, post.id, claim.token, lease, (held) => this.send(post, claim, sentMarkerLeadMs(prepareMs), held), leaseUntil);
        // Live: its first comment next (first-comment.ts), which never changes the post's outcome.
        if (outcome.outcome === 'published' && outcome.post.firstComment?.status === 'pending' && outcome.post.deletedAt === null) {
          await this.firstComments.execute(post.id).catch((error: unknown) => {
            // Its due entry stays while it is pending: the sweeper brings it back.
            this.deps.log.warn('First comment attempt stopped; the sweeper will bring it back', { postId: post.id, error: String(error) });
          });
        }
        return outcome;
      }
      if (!result.current) return { outcome: 'skipped', reason: 'post removed' };
      const { post, state } = result.current;
      // A retry (or a sweep) of a published post's first comment.
      if (post.status === 'published' && post.firstComment?.status === 'pending' && post.deletedAt === null) {
        // Its message comes up to the prepare window early: the comment's retry time is the message's.
        await this.until(new Date(message.scheduledFor));
        return this.firstComments.execute(post.id);
      }
      if (post.deletedAt !== null) return { outcome: 'skipped', reason: 'post deleted' };
      if (post.status !== 'scheduled') return { outcome: 'skipped', reason: `post is ${post.status}` };
      if (state.claimUntil !== null && Date.parse(state.claimUntil) >= now.getTime()) {
        return { outcome: 'skipped', reason: 'another worker is sending the post' };
      }
      // Due later than the message said (a duplicate or a sweep older than a pending retry): put
      // back, or claimed once more if it is within the window by now.
      const dueAt = nextDueAt(post.scheduledFor, state.retryAt);
      if (round > 1 || dueAt.getTime() <= dueBy.getTime()) return { outcome: 'skipped', reason: 'post could not be claimed' };
      const putBackOutcome = await this.onTime(post.id, dueAt, PREPARE_WINDOW_MS);
      if (putBackOutcome) return putBackOutcome;
    }
  }

  /** Null when it is time to prepare (or send); otherwise the message was put back. */
  private async onTime(postId: string, dueAt: Date, prepareMs: number): Promise<PublishOutcome | null> {
    const timing = timingFor(dueAt, this.deps.clock.now(), prepareMs);
    if (timing.action !== 'requeue') return null;
    const { failed } = await this.deps.queue.send([{ postId, scheduledFor: dueAt.toISOString(), delaySeconds: timing.delaySeconds }]);
    if (failed.length > 0) throw new RequeueFailedError(postId);
    return { outcome: 'requeued', delaySeconds: timing.delaySeconds };
  }

  /** Waits until `at`, the attempt's due time (nothing to wait when it has passed). */
  private async until(at: Date): Promise<void> {
    // A timer can fire a few milliseconds before the wall clock reaches its time, and a post sent
    // before its time would be early: wait until it has passed.
    let remaining = at.getTime() - this.deps.clock.now().getTime();
    for (let round = 0; remaining > 0 && round < 3; round++) {
      await this.sleep(remaining);
      remaining = at.getTime() - this.deps.clock.now().getTime();
    }
  }

  /** `markerLeadMs`: how long before its time the "sent" marker is written (sentMarkerLeadMs). */
  private async send(post: Post, initialClaim: PublishClaim, markerLeadMs = SENT_MARKER_LEAD_MS, held?: HeldLease): Promise<PublishOutcome> {
    const publisher = this.deps.publishers[post.platform];
    // A thread moves on part by part (publish-thread.ts): `current` is the post as last recorded,
    // and once a part is recorded its sent marker is gone, so the claim is no longer uncertain.
    let current = post;
    let claim = initialClaim;
    let createSent = false;
    try {
      // The account and its credentials in one read (they share a partition).
      const { account, credentials } = await this.deps.accounts.getAccountWithCredentials(post.accountId);
      if (!account || !account.active) {
        return this.outcomes.fail(post, claim, { message: `The ${platformName(post.platform)} account of this post is not connected any more.`, advice: this.reconnectAdvice(post, claim, ADVICE.accountGone()) }, 'account_gone');
      }
      if (claim.uncertain) {
        // Only once the earlier create has certainly finished on the platform does "not there" mean "not created".
        const settledAt = Date.parse(claim.platformCreateSentAt ?? claim.firstAttemptAt) + this.recheckMs;
        if (settledAt > this.deps.clock.now().getTime()) return this.checkLater(post, claim, new Date(settledAt));
      }
      const accessToken = await this.deps.tokens.accessToken(account, publisher, { credentials });
      const platformAccount: PlatformAccount = { id: account.id, platformUserId: account.platformUserId, handle: account.handle, accountType: account.accountType };
      if (claim.uncertain) {
        const live = await this.lookUp(post, claim, platformAccount, accessToken);
        if (live) {
          if (!isThread(post)) return await this.outcomes.published(post, live);
          const recorded = await this.thread.recordPart(post, live);
          if (!recorded) return { outcome: 'skipped', reason: 'post was no longer scheduled when a thread part was recorded' };
          current = recorded;
          claim = { ...claim, uncertain: false };
        } else if (post.deletedAt !== null && livePartCount(post) === 0) {
          // Deleted while its outcome was unknown, and nothing went out: never sent, its unit back.
          return this.outcomes.neverSent(post, claim, 'deleted');
        }
        // Looked up: the earlier create left nothing live, so sending now is not a blind resend.
      }
      // After the look-up: a post already live is recorded as such whatever X says now.
      const overLimit = await this.xLongPostProblem(current, account, publisher, accessToken);
      if (overLimit) return await this.outcomes.fail(current, claim, overLimit, 'text_too_long');
      for (;;) {
        const part = this.thread.next(current);
        // A thread whose every part is live, or deleted with some live: recorded as it is.
        if (part === null || (current.deletedAt !== null && livePartCount(current) > 0)) return await this.thread.published(current);
        const sent = await this.create(current, claim, part, platformAccount, accessToken, markerLeadMs, () => {
          createSent = true;
        });
        if ('outcome' in sent) return sent;
        if (!isThread(current)) {
          // Answered: recorded published whoever holds the post (publish-lease.ts), so no more renewals.
          held?.stopRenewing();
          // Send first, record after: the other creates under way go out before this write competes with them.
          await this.deps.creates?.settled(OUTCOME_WAIT_MAX_MS, this.sleep);
          return await this.outcomes.published(current, sent.result, sent.answeredAt);
        }
        const recorded = await this.thread.recordPart(current, sent.result);
        if (!recorded) return { outcome: 'skipped', reason: 'post was no longer scheduled when a thread part was recorded' };
        current = recorded;
        claim = { ...claim, uncertain: false };
        createSent = false;
      }
    } catch (error) {
      return this.onError(current, claim, error, createSent);
    }
  }

  /**
   * X long posts (beyond-v2.md): a text over 280 goes out only while X still says the account is
   * Premium, read from X right before sending, so a post whose account lost Premium since it was
   * created fails with advice instead of being cut. Any X post also reads the subscription again
   * when the last read is a day old (best effort: a short post does not wait on it).
   */
  private async xLongPostProblem(post: Post, account: Account, publisher: PlatformPublisher, accessToken: string): Promise<Omit<PostError, 'retryable'> | null> {
    if (post.platform !== 'x' || !publisher.subscriptionType || !this.deps.setXSubscription) return null;
    const now = this.deps.clock.now();
    const unsent = [post.text, ...post.threadParts.filter((part) => part.platformPostId === null).map((part) => part.text)];
    const needsPremium = unsent.some((text) => xTextLength(text, X_MAX_WEIGHTED_LENGTH).length > X_MAX_WEIGHTED_LENGTH);
    const stale = xSubscriptionStale(account.xSubscriptionCheckedAt, now);
    if (!needsPremium) {
      if (stale) {
        await publisher
          .subscriptionType({ accessToken })
          .then((subscription) => this.deps.setXSubscription?.(account.id, subscription, now))
          .catch(() => undefined);
      }
      return null;
    }
    const subscription = await publisher.subscriptionType({ accessToken });
    await this.deps.setXSubscription(account.id, subscription, now);
    const limit = textLimitFor({ platform: 'x', xSubscription: subscription }) ?? X_MAX_WEIGHTED_LENGTH;
    if (!unsent.some((text) => xTextLength(text, limit).length > limit)) return null;
    return {
      message: `The text is longer than the ${limit} characters X lets this account post: X says its subscription is ${subscription ?? 'not known'}, no longer Premium, so nothing was sent rather than a cut text.`,
      advice: ADVICE.lostPremium(limit),
    };
  }

  /** One create request: the post itself, or a thread's further part (answering the part before it). */
  private async create(
    post: Post,
    claim: PublishClaim,
    part: NextPart,
    platformAccount: PlatformAccount,
    accessToken: string,
    markerLeadMs: number,
    onSent: () => void,
  ): Promise<{ result: PlatformPublishResult; answeredAt: Date } | PublishOutcome> {
    const media = await this.mediaOf(part.mediaIds);
    let createDone = (): void => undefined;
    try {
      const result = await this.deps.publishers[post.platform].publish({
        account: platformAccount,
        accessToken,
        text: part.text,
        media,
        // A poll, a community: the post's own; a further part carries none of them.
        options: part.index === 0 ? post.options : {},
        ...(part.replyTo === undefined ? {} : { replyTo: part.replyTo }),
        beforeCreate: async (sent) => {
          // Everything else is done: the marker half a second ahead (more in a big burst), the create at the due time.
          const sendAt = new Date(claim.sendAt);
          await this.until(new Date(sendAt.getTime() - markerLeadMs));
          if (!(await this.deps.state.markCreateSending(post.id, claim.token, this.deps.clock.now(), sent.mediaIds))) throw new SendStoppedError();
          onSent();
          await this.until(sendAt);
          if (this.deps.creates) createDone = this.deps.creates.begin();
        },
      });
      createDone();
      // Live from the moment the platform answered, whenever the record is written.
      return { result, answeredAt: this.deps.clock.now() };
    } catch (error) {
      createDone();
      if (error instanceof PlatformDuplicateError && claim.uncertain) {
        // The lookup did not show it, yet X says an identical post is live: look once more.
        const live = await this.lookUp(post, claim, platformAccount, accessToken).catch(() => null);
        if (live) return { result: live, answeredAt: this.deps.clock.now() };
        return this.outcomes.fail(post, claim, { message: error.message, advice: ADVICE.checkAccount(post.platform) }, 'ambiguous');
      }
      throw error;
    }
  }

  /**
   * The advice of a post failed for its connection (gone, refused, not refreshed). While an
   * earlier create is unsettled the post may be live: "create it again" would post it twice.
   */
  private reconnectAdvice(post: Post, claim: PublishClaim, advice: string): string {
    return claim.uncertain ? ADVICE.reconnectAndCheck(post.platform) : advice;
  }

  private get recheckMs(): number {
    return this.deps.ambiguousRecheckMs ?? AMBIGUOUS_RECHECK_MS;
  }

  /** The live post of an earlier create whose outcome is unknown, null when the platform shows none. */
  private async lookUp(post: Post, claim: PublishClaim, account: PlatformAccount, accessToken: string): Promise<PlatformPublishResult | null> {
    // The sent marker stands for the first part not yet live (for a post of one part, the post).
    const part = this.thread.next(post) ?? { text: post.text, replyTo: undefined };
    try {
      return await this.deps.publishers[post.platform].findRecentPost({
        account,
        accessToken,
        text: part.text,
        ...(part.replyTo === undefined ? {} : { replyTo: part.replyTo }),
        ...(claim.sentMediaIds.length > 0 ? { mediaIds: claim.sentMediaIds } : {}),
        // A minute of slack for the clocks of two machines.
        since: new Date(Date.parse(claim.platformCreateSentAt ?? claim.firstAttemptAt) - 60_000),
      });
    } catch (error) {
      if (error instanceof PlatformRefusedError) throw new CannotTellError(error.message);
      throw error;
    }
  }

  /** Too early to look an uncertain create up: give the post back until it can be. */
  private async checkLater(post: Post, claim: PublishClaim, at: Date): Promise<PublishOutcome> {
    if (at.getTime() > Date.parse(claim.firstAttemptAt) + RETRY_WINDOW_MS) {
      return this.outcomes.fail(post, claim, { message: `${platformName(post.platform)} did not confirm whether the post went out.`, advice: ADVICE.checkAccount(post.platform) }, 'ambiguous_gave_up');
    }
    return this.outcomes.requeueRetry(post, claim, at, { kind: 'ambiguous', uncertain: true, lastSaid: 'waiting to look up an earlier create' });
  }

  private async mediaOf(mediaIds: readonly string[]) {
    if (mediaIds.length === 0) return [];
    const items = await this.deps.media.getMediaItems([...mediaIds]);
    return mediaIds.map((id) => {
      const item = items.get(id);
      if (!item) throw new MediaMissingError(id);
      return this.deps.mediaSources.open(item);
    });
  }

  /** The create was stopped before it went out: deleted meanwhile, or this worker's lease ran out. */
  private async stopped(post: Post, claim: PublishClaim): Promise<PublishOutcome> {
    const current = await this.deps.state.getPostForPublishing(post.id);
    // Cancelled before it went out: the delete removed the post and gave its unit back.
    if (!current) return { outcome: 'skipped', reason: 'post cancelled before it was sent' };
    if (current.state.claimToken !== claim.token) return { outcome: 'skipped', reason: 'another worker took the post over' };
    if (current.post.deletedAt !== null && livePartCount(current.post) > 0) {
      // A thread deleted between parts: what is live stays live, recorded so.
      return this.thread.published(current.post);
    }
    if (current.post.deletedAt !== null) {
      // Never sent, and hidden from every read: recorded so nothing comes back for it, its unit back.
      return this.outcomes.neverSent(current.post, claim, 'deleted');
    }
    return this.outcomes.requeueRetry(post, claim, this.deps.clock.now(), { kind: 'lease_lost', uncertain: false, lastSaid: 'the lease ran out before the create was sent' });
  }

  private async onError(post: Post, claim: PublishClaim, error: unknown, createSent: boolean): Promise<PublishOutcome> {
    const platform = post.platform;
    if (error instanceof SendStoppedError) return this.stopped(post, claim);
    if (error instanceof CannotTellError) {
      return this.outcomes.fail(post, claim, { message: `${platformName(platform)} did not confirm whether the post went out, and could not be asked (${error.said}).`, advice: ADVICE.checkAccount(platform) }, 'ambiguous_unknown');
    }
    if (error instanceof PlatformDuplicateError) {
      return this.outcomes.fail(post, claim, { message: error.message, advice: ADVICE.duplicate(platform) }, 'duplicate');
    }
    if (error instanceof PlatformVersionRetiredError) {
      // Refused before anything was created; an earlier attempt whose outcome was unknown may still be live.
      const advice = ADVICE.versionRetired(platform, error.version, error.setting, claim.uncertain);
      return this.outcomes.fail(post, claim, { message: error.message, advice }, 'version_retired');
    }
    if (error instanceof PlatformRefusedError) {
      return this.outcomes.fail(post, claim, { message: error.message, advice: refusalAdvice(platform, error.message) }, 'refused');
    }
    if (error instanceof PlatformAuthError) {
      await this.deps.setTokenHealth(post.accountId, 'needs_reauth');
      return this.outcomes.fail(post, claim, { message: error.message, advice: this.reconnectAdvice(post, claim, ADVICE.reconnect(platform)) }, 'auth');
    }
    if (error instanceof TokenRefreshFailedError) {
      return this.outcomes.fail(post, claim, { message: error.message, advice: this.reconnectAdvice(post, claim, ADVICE.refreshFailed(platform)) }, 'refresh_failed');
    }
    if (error instanceof CredentialsMissingError) {
      return this.outcomes.fail(post, claim, { message: `The ${platformName(platform)} account has no stored connection.`, advice: this.reconnectAdvice(post, claim, ADVICE.reconnect(platform)) }, 'account_gone');
    }
    if (error instanceof MediaMissingError) {
      return this.outcomes.fail(post, claim, { message: error.message, advice: ADVICE.mediaGone() }, 'media_gone');
    }
    if (error instanceof PlatformAmbiguousError) {
      // Never resent blindly: the next attempt looks the post up once the platform is done with it.
      return this.outcomes.retryOrFail(post, claim, {
        kind: 'ambiguous',
        uncertain: true,
        minDelayMs: this.recheckMs,
        lastSaid: error.message,
        giveUp: { message: error.message, advice: ADVICE.checkAccount(platform) },
      });
    }
    // While an earlier create is unsettled, giving up means the post may be live: say so.
    if (error instanceof PlatformRateLimitedError) {
      return this.outcomes.retryOrFail(post, claim, {
        kind: 'rate_limited',
        uncertain: claim.uncertain,
        notBefore: error.resetAt,
        lastSaid: error.message,
        giveUp: { message: error.message, advice: claim.uncertain ? ADVICE.checkAccount(platform) : ADVICE.rateLimited(platform, error.resetAt) },
      });
    }
    if (error instanceof PlatformUnavailableError || error instanceof PlatformError) {
      return this.outcomes.retryOrFail(post, claim, {
        kind: 'unavailable',
        uncertain: claim.uncertain,
        lastSaid: error.message,
        giveUp: { message: gaveUpMessage(platform, error.message), advice: claim.uncertain ? ADVICE.checkAccount(platform) : ADVICE.gaveUp(platform) },
      });
    }
    // Our own side failed (DynamoDB, S3, KMS): the same retry window. If the create had gone
    // out, its outcome is unknown, so the next attempt must check rather than resend.
    this.deps.log.error('Publish attempt failed on our side', { postId: post.id, error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) });
    return this.outcomes.retryOrFail(post, claim, {
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

