/**
 * Recording what became of a publish attempt (PublishPost's last step): published with the
 * platform's id, failed with one sentence of advice, or given back for a retry. Every write is
 * conditional on the claim that made the attempt (lib/store/dynamodb-publish-state.ts), except the
 * published one: a platform id in hand is the truth about the post whoever learnt it.
 */
import type { Post, PostError } from '../domain/model.js';
import { isRetryableFailure, nextRetry, queueDelaySeconds } from '../domain/publishing.js';
import type { PublishClaim } from '../domain/publish-state.js';
import { isRetryableThreadFailure, livePartCount, withLiveParts } from '../domain/thread-progress.js';
import type { Clock } from './ports/clock.js';
import type { PlatformDeletionQueue, PublishQueue } from './ports/dispatch.js';
import type { PlatformPublishResult } from './ports/platform-publisher.js';
import type { PublishStateStore } from './ports/publish-state-store.js';

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

export type PublishOutcome =
  | { outcome: 'published'; post: Post }
  | { outcome: 'failed'; post: Post | null; error: PostError }
  | { outcome: 'retry'; at: string }
  | { outcome: 'requeued'; delaySeconds: number }
  | { outcome: 'skipped'; reason: string };

/** The outcome of a post deleted while it was being sent, when its create certainly did not go out. */
export const DELETED_BEFORE_SENT: PostError = { message: 'The post was deleted before it went out.', advice: 'Nothing to do: the post never went out.', retryable: false };

export interface PublishOutcomesDeps {
  state: PublishStateStore;
  queue: PublishQueue;
  deletionQueue: PlatformDeletionQueue;
  clock: Clock;
  metrics: PublishMetrics;
  log: PublishLog;
  sleep: (ms: number) => Promise<void>;
}

export class PublishOutcomes {
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(private readonly deps: PublishOutcomesDeps) {
    this.sleep = deps.sleep;
  }

  /** `answeredAt`: when the platform answered (the post's publishedAt); now by default. */
  async published(post: Post, result: PlatformPublishResult, answeredAt?: Date): Promise<PublishOutcome> {
    const now = answeredAt ?? this.deps.clock.now();
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
      // The published write above left the deletion pending in byDue (post-outcome.ts), so if this
      // message never goes (or the worker dies right here), the sweeper queues it.
      for (let attempt = 1; ; attempt++) {
        try {
          await this.deps.deletionQueue.enqueue(post.id);
          break;
        } catch (error) {
          if (attempt >= 3) {
            this.deps.log.warn('Could not queue the deletion of a post deleted while it was sent; the sweeper will', { postId: post.id, error: String(error) });
            break;
          }
          await this.sleep(200 * attempt);
        }
      }
    }
    return { outcome: 'published', post: stored };
  }

  /**
   * `mayBeLive`: a create of this or an earlier attempt may have gone out (by default: the claim
   * found one unsettled). Decides the error's `retryable` (isRetryableFailure).
   */
  async fail(post: Post, claim: PublishClaim, failure: Omit<PostError, 'retryable'>, kind: string, mayBeLive = claim.uncertain): Promise<PublishOutcome> {
    // A thread stopped midway says which parts are live (they stay; a retry sends the rest).
    const error: PostError = { ...withLiveParts(post, failure), retryable: isRetryableFailure(kind, mayBeLive) || isRetryableThreadFailure(post, kind, mayBeLive) };
    const stored = await this.deps.state.recordFailed(post, error, this.deps.clock.now(), claim.token);
    // Refused: another worker took the post over (this one outlived its lease), and it decides.
    if (!stored) return { outcome: 'skipped', reason: 'the claim was lost before the outcome was recorded' };
    this.deps.metrics.failed(kind);
    return { outcome: 'failed', post: stored, error };
  }

  /**
   * The post was deleted while it was being sent and its create certainly did not go out (refused,
   * or an unknown outcome the lookup did not find): recorded as never sent, and its allowance unit
   * given back in the same write, as for any post cancelled before it went out.
   */
  async neverSent(post: Post, claim: PublishClaim, kind: string): Promise<PublishOutcome> {
    if (!(await this.deps.state.recordNeverSent(post, DELETED_BEFORE_SENT, this.deps.clock.now(), claim.token))) {
      return { outcome: 'skipped', reason: 'the claim was lost before the outcome was recorded' };
    }
    this.deps.metrics.failed(kind);
    return { outcome: 'skipped', reason: 'post deleted before it was sent' };
  }

  async retryOrFail(
    post: Post,
    claim: PublishClaim,
    input: { kind: string; uncertain: boolean; notBefore?: Date | null; minDelayMs?: number; lastSaid: string; giveUp: PostError },
  ): Promise<PublishOutcome> {
    const decision = nextRetry({
      // The backoff counts failures, not attempts: one cut short by a crash says nothing of the platform.
      attempt: claim.failures + 1,
      firstAttemptAt: new Date(claim.firstAttemptAt),
      now: this.deps.clock.now(),
      notBefore: input.notBefore ?? null,
      minDelayMs: input.minDelayMs ?? 0,
    });
    if (!decision.retry) return this.fail(post, claim, input.giveUp, `${input.kind}_gave_up`, input.uncertain);
    return this.requeueRetry(post, claim, decision.at, { ...input, failed: true });
  }

  /** `failed`: the attempt ended in a transient failure (not a wait to look an earlier create up, nor a lost lease). */
  async requeueRetry(
    post: Post,
    claim: PublishClaim,
    retryAt: Date,
    input: { kind: string; uncertain: boolean; lastSaid: string; failed?: boolean },
  ): Promise<PublishOutcome> {
    const released = await this.deps.state.releaseForRetry(post.id, claim.token, {
      retryAt,
      uncertain: input.uncertain,
      failed: input.failed ?? false,
      partsLive: livePartCount(post) > 0,
    });
    if (!released) {
      // Nothing went out and the post was deleted meanwhile (with or without deleteFromPlatform):
      // recorded, so it leaves the due index (no claim or sweep would take it up again), and its
      // unit given back.
      if (!input.uncertain && (await this.deps.state.recordNeverSent(post, DELETED_BEFORE_SENT, this.deps.clock.now(), claim.token))) {
        return { outcome: 'skipped', reason: 'post deleted before it was sent' };
      }
      return { outcome: 'skipped', reason: 'post changed while it was being sent' };
    }
    const at = retryAt.toISOString();
    await this.deps.queue
      .send([{ postId: post.id, scheduledFor: at, delaySeconds: queueDelaySeconds(retryAt, this.deps.clock.now()) }])
      .then(({ failed }) => {
        // The sweeper puts back a post whose retry time passed with nothing in flight.
        if (failed.length > 0) this.deps.log.warn('Retry message not queued; the sweeper will bring the post back', { postId: post.id });
      });
    this.deps.metrics.retried(input.kind);
    this.deps.log.warn('Publish attempt failed; retrying', { postId: post.id, attempt: claim.attempt, retryAt: at, kind: input.kind, said: input.lastSaid });
    return { outcome: 'retry', at };
  }
}
