/**
 * The sweeper: nothing scheduled may be lost. A message can be lost (a schedule that failed to
 * deliver, a queue emptied by a restart of the local stack, a send that failed after the claim was
 * released), and the post then sits in the byDue index with nothing on its way. Every run Queries
 * byDue per shard for posts whose time (scheduledFor, or retryAt after a transient failure) is
 * more than `graceMs` past, and puts a message back for each one that nobody holds.
 *
 * "In flight" is known from the post alone: a live claim (claimUntil ahead) means a worker is on
 * it; otherwise a message is expected by the post's time, so one still missing after the grace
 * period is lost. `sweptAt` keeps a post from being put back more than once per `resendIntervalMs`.
 * A duplicate message is harmless (the worker's claim), a lost one is not, so the sweeper errs
 * towards sending.
 *
 * The first run of a process also looks ahead over the next 15 minutes (the SQS delay window): a
 * restart may have lost messages that are not late yet, and they are put back with their delay so
 * they still go out on time.
 *
 * The same index holds the outbox of platform deletions (lib/store/post-item.ts): a published post
 * deleted with deleteFromPlatform=true keeps an entry there until its live copy is down. Its
 * deletion message was sent by whoever made it pending (DELETE, or the publish worker), but a
 * crash right after that write, or a queue lost with a restart, loses it; so a pending deletion
 * found past the grace period (at once in a look-ahead run) is queued again, and its entry moves
 * to the time of the next resend: `resendIntervalMs` on at first, later a tenth of the time it has
 * been pending, at most an hour (deletionResendIntervalMs: a platform that keeps failing). So a
 * deletion waiting for its next resend is not among the late entries a run reads (at most
 * `limitPerShard` a shard, oldest first), and many of them cannot hide a lost post behind them.
 * The deletion worker is idempotent, so a duplicate costs one read.
 *
 * With `deliveries`, the same run also sweeps the outbox of webhook deliveries
 * (lib/use-cases/webhooks/sweep-deliveries.ts), beside the posts' shards.
 */
import { MAX_QUEUE_DELAY_SECONDS, nextDueAt, queueDelaySeconds } from '../domain/publishing.js';
import { deletionResendIntervalMs, platformDeletionPending, platformDeletionPendingSince } from '../domain/post-deletion.js';
import type { PostForPublishing } from '../domain/publish-state.js';
import type { Clock } from './ports/clock.js';
import type { PlatformDeletionQueue, PublishQueue } from './ports/dispatch.js';
import type { PublishStateStore } from './ports/publish-state-store.js';
import type { SweepMedia } from './media-import.js';
import type { SweepDeliveries } from './webhooks/sweep-deliveries.js';

export interface SweepDeps {
  state: PublishStateStore;
  queue: PublishQueue;
  deletionQueue: PlatformDeletionQueue;
  clock: Clock;
  /** Shards of the byDue index (DUE_SHARDS). */
  shards: number;
  /** How late a post may be before its message counts as lost. */
  graceMs?: number;
  resendIntervalMs?: number;
  /** Posts examined per shard and pass, so one run stays within its time. */
  limitPerShard?: number;
  /** The webhook deliveries' sweep, run beside the posts' (absent: posts only). */
  deliveries?: SweepDeliveries;
  /** Tokens that warn before they end (token-expiry.ts): accounts whose warning time has come (absent: not swept). */
  expiries?: TokenExpiryWarnings;
  /** Media not settled whose time has come (lib/use-cases/media-import.ts): imports queued again, uploads abandoned (absent: not swept). */
  media?: Pick<SweepMedia, 'sweep'>;
}

/** The accounts' side of the expiry warning (lib/store/dynamodb-account-store.ts, the sparse byTokenExpiry index). */
export interface TokenExpiryWarnings {
  listExpiryWarningsDue(now: Date, limit: number): Promise<{ accountId: string; expirySk: string }[]>;
  markExpiring(accountId: string, expirySk: string): Promise<boolean>;
}

export interface SweepResult {
  examined: number;
  /** Publish messages put back. */
  resent: number;
  /** Platform deletions queued again. */
  deletionsResent: number;
  /** Webhook deliveries queued again (their attempt's message was lost). */
  deliveriesResent: number;
  failedToSend: number;
  /** Accounts marked `expiring` (their token ends within 7 days and cannot be refreshed). */
  tokensExpiring: number;
  /** Media imports queued again (nobody held them: a lost message, a worker killed). */
  mediaImportsRequeued: number;
  /** API uploads never completed within their hour, now failed. */
  uploadsAbandoned: number;
}

export class Sweep {
  private readonly shards: number;
  private readonly graceMs: number;
  private readonly resendIntervalMs: number;
  private readonly limit: number;

  constructor(private readonly deps: SweepDeps) {
    this.shards = deps.shards;
    this.graceMs = deps.graceMs ?? 10_000;
    this.resendIntervalMs = deps.resendIntervalMs ?? 60_000;
    this.limit = deps.limitPerShard ?? 500;
  }

  async execute(options: { lookAhead: boolean }): Promise<SweepResult> {
    const now = this.deps.clock.now();
    // The shards are swept side by side, each sending what it stamped as soon as it is through its
    // candidates: stamping one by one across every shard before sending anything could outlast the
    // run's timeout with a large backlog (8 shards of 1,000 candidates), and a run cut short then
    // would have stamped posts (so the next runs skip them for the interval) without sending them.
    const [perShard, deliveries, tokensExpiring, media] = await Promise.all([
      Promise.all(Array.from({ length: this.shards }, (_, shard) => this.sweepShard(shard, now, options.lookAhead))),
      this.deps.deliveries?.execute(options) ?? { examined: 0, resent: 0, failedToSend: 0 },
      this.markExpiringTokens(now),
      this.deps.media?.sweep() ?? { requeued: 0, abandoned: 0 },
    ]);
    const initial: SweepResult = {
      examined: deliveries.examined,
      resent: 0,
      deletionsResent: 0,
      deliveriesResent: deliveries.resent,
      failedToSend: deliveries.failedToSend,
      tokensExpiring,
      mediaImportsRequeued: media.requeued,
      uploadsAbandoned: media.abandoned,
    };
    return perShard.reduce<SweepResult>(
      (sum, one) => ({
        examined: sum.examined + one.examined,
        resent: sum.resent + one.resent,
        deletionsResent: sum.deletionsResent + one.deletionsResent,
        deliveriesResent: sum.deliveriesResent,
        failedToSend: sum.failedToSend + one.failedToSend,
        tokensExpiring: sum.tokensExpiring,
        mediaImportsRequeued: sum.mediaImportsRequeued,
        uploadsAbandoned: sum.uploadsAbandoned,
      }),
      initial,
    );
  }

  /**
   * Accounts whose token ends within 7 days and cannot be refreshed become `expiring` (the account
   * item's change is the account.token_health_changed event). One Query on the sparse index: only
   * the accounts due are read, and each leaves the index as it is marked.
   */
  private async markExpiringTokens(now: Date): Promise<number> {
    if (!this.deps.expiries) return 0;
    const due = await this.deps.expiries.listExpiryWarningsDue(now, this.limit);
    let marked = 0;
    for (const entry of due) if (await this.deps.expiries.markExpiring(entry.accountId, entry.expirySk)) marked++;
    return marked;
  }

  private async sweepShard(shard: number, now: Date, lookAhead: boolean): Promise<Omit<SweepResult, 'deliveriesResent' | 'tokensExpiring' | 'mediaImportsRequeued' | 'uploadsAbandoned'>> {
    const lateBefore = new Date(now.getTime() - this.graceMs).toISOString();
    const horizon = new Date(now.getTime() + MAX_QUEUE_DELAY_SECONDS * 1000).toISOString();
    const overdue = await this.deps.state.listDue(shard, { dueFrom: null, dueTo: lateBefore, limit: this.limit });
    const dueSoon = lookAhead ? await this.deps.state.listDue(shard, { dueFrom: lateBefore, dueTo: horizon, limit: this.limit }) : [];
    const candidates = [...overdue, ...dueSoon];
    // The resend throttle (sweptAt) stops a routine run from putting a post back every few seconds.
    // A look-ahead run happens exactly when earlier sends may be gone (a new process, or a publish
    // queue created anew after a restart), so a post swept just before must be put back again.
    const sweptBefore = lookAhead ? now : new Date(now.getTime() - this.resendIntervalMs);
    const toSend: { postId: string; scheduledFor: string; delaySeconds: number }[] = [];
    const deletions: string[] = [];
    for (const candidate of candidates) {
      if (platformDeletionPending(candidate.post, candidate.state.platformDeletedAt)) {
        // Listed late (or in a look-ahead run): its message counts as lost, or its resend is due.
        const stamp = { now, lateBefore: lookAhead ? null : new Date(lateBefore), resendAt: this.deletionResendAt(candidate.post, now) };
        if (await this.deps.state.markDeletionSwept(candidate.post.id, stamp)) deletions.push(candidate.post.id);
        continue;
      }
      const entry = this.entryFor(candidate, now, lookAhead, sweptBefore);
      if (!entry) continue;
      const marked = await this.deps.state.markSwept(candidate.post.id, { now, sweptBefore });
      if (marked) toSend.push(entry);
    }
    const { failed } = toSend.length > 0 ? await this.deps.queue.send(toSend) : { failed: [] };
    // One message each (the port's shape); a failure is left to the next run after the interval.
    const queued = await Promise.allSettled(deletions.map((postId) => this.deps.deletionQueue.enqueue(postId)));
    const deletionsFailed = queued.filter((result) => result.status === 'rejected').length;
    return {
      examined: candidates.length,
      resent: toSend.length - failed.length,
      deletionsResent: deletions.length - deletionsFailed,
      failedToSend: failed.length + deletionsFailed,
    };
  }

  /** When a pending platform deletion queued now is queued again if it is still pending then. */
  private deletionResendAt(post: PostForPublishing['post'], now: Date): Date {
    const since = platformDeletionPendingSince(post) ?? now.toISOString();
    return new Date(now.getTime() + deletionResendIntervalMs(since, now, this.resendIntervalMs));
  }

  private entryFor({ post, state }: PostForPublishing, now: Date, lookAhead: boolean, sweptBefore: Date) {
    if (post.status === 'published') return this.commentEntryFor({ post, state }, now, lookAhead, sweptBefore);
    if (post.status !== 'scheduled') return null;
    // A deleted post is only brought back to settle a create that may be live: to take it down
    // (deleteFromPlatform), or to give its unit back when nothing went out; or a thread with parts
    // live, to record them.
    if (post.deletedAt !== null && state.platformCreateSentAt === null && post.platformPostId === null) return null;
    if (state.claimUntil !== null && Date.parse(state.claimUntil) > now.getTime()) return null;
    // An expired claim is a worker that stopped mid-send: its post is due again now, also when it
    // was swept a moment before that worker claimed it.
    const abandoned = state.claimUntil !== null;
    const abandonedSinceSwept = abandoned && state.sweptAt !== null && state.sweptAt < (state.claimUntil as string);
    if (state.sweptAt !== null && Date.parse(state.sweptAt) >= sweptBefore.getTime() && !abandonedSinceSwept) return null;
    const dueAt = nextDueAt(post.scheduledFor, state.retryAt);
    const overdue = dueAt.getTime() < now.getTime() - this.graceMs;
    if (!overdue && !lookAhead && !abandoned) return null;
    return { postId: post.id, scheduledFor: dueAt.toISOString(), delaySeconds: queueDelaySeconds(dueAt, now) };
  }

  /** A published post whose first comment is still to post: its message is put back like a post's (first-comment.ts). */
  private commentEntryFor({ post, state }: PostForPublishing, now: Date, lookAhead: boolean, sweptBefore: Date) {
    if (post.firstComment?.status !== 'pending' || post.deletedAt !== null) return null;
    if (state.commentClaimUntil !== null && Date.parse(state.commentClaimUntil) > now.getTime()) return null;
    const abandoned = state.commentClaimUntil !== null;
    if (state.sweptAt !== null && Date.parse(state.sweptAt) >= sweptBefore.getTime() && !abandoned) return null;
    const dueAt = new Date(state.commentRetryAt ?? post.publishedAt ?? now.toISOString());
    const overdue = dueAt.getTime() < now.getTime() - this.graceMs;
    if (!overdue && !lookAhead && !abandoned) return null;
    return { postId: post.id, scheduledFor: dueAt.toISOString(), delaySeconds: queueDelaySeconds(dueAt, now) };
  }
}
