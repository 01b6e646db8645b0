/**
 * Collecting post metrics (beyond-v2.md, "Post metrics"; docs/metrics.md). Two ways in, one way of
 * collecting:
 *   - `collectDue` (the metrics collector, every minute): the posts whose next collection is due,
 *     from the byMetricsDue index per shard, each taken by a claim (a conditional write, so two
 *     collectors never collect one post at once), grouped by account, and read a batch per
 *     platform request (X: 100 ids a lookup; a thread counts its parts);
 *   - `refresh` (POST /posts/{id}/metrics/refresh): one post now, at most once per 5 minutes.
 * A 429 moves the due entry to when the platform's window resets (never dropped); an outage
 * retries in 5 minutes; a refusal, an account that must reconnect, or a post gone from the
 * platform (it keeps its last figures) go on to the next scheduled point or stop. The due entry
 * moves only in the write that records (or postpones) under the claim, so a collector killed at
 * any instant leaves the entry due and the claim running out: the next run collects it.
 */
import type { Account, Post, PublishablePlatform } from '../domain/model.js';
import { PlatformAuthError, PlatformRateLimitedError, PlatformRefusedError } from '../domain/platform-errors.js';
import {
  METRICS_CLAIM_MS,
  METRICS_HISTORY_LIMIT,
  METRICS_REFRESH_INTERVAL_MS,
  mergeFigures,
  nextMetricsDueAt,
  sumFigures,
  type PostFigures,
  type PostMetrics,
} from '../domain/post-metrics.js';
import { CredentialsMissingError, TokenRefreshFailedError, type AccessTokens } from './access-tokens.js';
import type { AccountReader } from './ports/accounts.js';
import type { Clock } from './ports/clock.js';
import type { PlatformMetricsReader } from './ports/platform-metrics.js';
import type { PlatformPublisher } from './ports/platform-publisher.js';
import type { ClaimedPost, PostMetricsRecord, PostMetricsStore } from './ports/post-metrics-store.js';

/** After an outage (5xx, network), a collection is tried again this much later. */
const OUTAGE_RETRY_MS = 5 * 60_000;
/** A 429 that does not say when its window resets waits X's window. */
const RATE_LIMIT_FALLBACK_MS = 15 * 60_000;

export interface CollectMetricsDeps {
  store: PostMetricsStore;
  accounts: Pick<AccountReader, 'getAccount'>;
  tokens: Pick<AccessTokens, 'accessToken'>;
  setTokenHealth: (accountId: string, health: 'needs_reauth') => Promise<void>;
  platforms: Record<PublishablePlatform, PlatformMetricsReader & PlatformPublisher>;
  clock: Clock;
  /** Shards of the byMetricsDue index (METRICS_DUE_SHARDS). */
  shards: number;
  newToken: () => string;
  log: { warn(message: string, details: Record<string, unknown>): void };
  /** Posts taken per shard and run, so one run stays within its time. */
  limitPerShard?: number;
}

export interface CollectResult {
  examined: number;
  collected: number;
  postponed: number;
  /** Platform requests made (the bench's "requests per 1,000 posts"). */
  requests: number;
}

export type RefreshOutcome =
  | { status: 'collected'; record: PostMetricsRecord }
  | { status: 'not_found' }
  | { status: 'not_published' }
  | { status: 'too_soon'; retryAt: Date }
  /** Another collection holds the post: its figures arrive in a moment. */
  | { status: 'in_progress'; record: PostMetricsRecord }
  | { status: 'platform_failed'; message: string; retryAt: Date | null };

type Settled = { collected: number; postponed: number; requests: number };

export class CollectMetrics {
  private readonly limit: number;

  constructor(private readonly deps: CollectMetricsDeps) {
    this.limit = deps.limitPerShard ?? 400;
  }

  async collectDue(): Promise<CollectResult> {
    const now = this.deps.clock.now();
    const due = (await Promise.all(Array.from({ length: this.deps.shards }, (_, shard) => this.deps.store.listDue(shard, now, this.limit)))).flat();
    const claimed = await this.deps.store.claimDue(due, { now, dueBy: now, claimMs: METRICS_CLAIM_MS, token: this.deps.newToken() });
    const byAccount = new Map<string, ClaimedPost[]>();
    for (const claim of claimed) {
      const list = byAccount.get(claim.post.accountId) ?? [];
      list.push(claim);
      byAccount.set(claim.post.accountId, list);
    }
    const settled = await Promise.all([...byAccount.entries()].map(([accountId, claims]) => this.collectAccount(accountId, claims, now, 'scheduled')));
    return settled.reduce<CollectResult>(
      (sum, one) => ({ ...sum, collected: sum.collected + one.collected, postponed: sum.postponed + one.postponed, requests: sum.requests + one.requests }),
      { examined: due.length, collected: 0, postponed: 0, requests: 0 },
    );
  }

  async refresh(userId: string, postId: string): Promise<RefreshOutcome> {
    const now = this.deps.clock.now();
    const claim = await this.deps.store.claimRefresh(userId, postId, {
      now,
      claimMs: METRICS_CLAIM_MS,
      refreshIntervalMs: METRICS_REFRESH_INTERVAL_MS,
      token: this.deps.newToken(),
    });
    if ('refused' in claim) {
      if (claim.refused === 'too_soon') return { status: 'too_soon', retryAt: claim.retryAt ?? new Date(now.getTime() + METRICS_REFRESH_INTERVAL_MS) };
      if (claim.refused === 'in_progress') {
        const record = await this.deps.store.get(userId, postId);
        return record ? { status: 'in_progress', record } : { status: 'not_found' };
      }
      return { status: claim.refused };
    }
    const failure: { message: string; retryAt: Date | null }[] = [];
    await this.collectAccount(claim.claimed.post.accountId, [claim.claimed], now, 'refresh', failure);
    const record = await this.deps.store.get(userId, postId);
    if (!record) return { status: 'not_found' };
    const failed = failure[0];
    if (failed) return { status: 'platform_failed', ...failed };
    return { status: 'collected', record };
  }

  /**
   * Collects the claimed posts of one account, a platform request per batch. `refresh` leaves
   * the schedule where it is and reports a platform failure instead of postponing.
   */
  private async collectAccount(accountId: string, claims: ClaimedPost[], now: Date, kind: 'scheduled' | 'refresh', failure: { message: string; retryAt: Date | null }[] = []): Promise<Settled> {
    const settled: Settled = { collected: 0, postponed: 0, requests: 0 };
    const giveUp = async (batch: ClaimedPost[], dueAt: (claim: ClaimedPost) => Date | null, reason: string, retryAt: Date | null = null) => {
      if (batch.length === 0) return;
      if (kind === 'refresh') failure.push({ message: reason, retryAt });
      for (const claim of batch) {
        // A refresh gives the post back as it was (its schedule untouched).
        const moved = kind === 'refresh' ? await this.deps.store.release(claim) : await this.deps.store.postpone(claim, dueAt(claim));
        if (moved) settled.postponed++;
      }
      if (kind === 'scheduled') this.deps.log.warn('Metrics collection postponed', { accountId, posts: batch.length, reason });
    };
    const nextPoint = (claim: ClaimedPost) => nextMetricsDueAt(claim.post.publishedAt ?? now.toISOString(), now);

    // Nothing to collect for a post deleted here or not live: its entry is removed.
    const live = claims.filter((claim) => claim.post.deletedAt === null && claim.post.status === 'published' && claim.post.platformPostId !== null);
    await giveUp(claims.filter((claim) => !live.includes(claim)), () => null, 'post not live');
    if (live.length === 0) return settled;

    const account = await this.deps.accounts.getAccount(accountId);
    if (!account) {
      await giveUp(live, () => null, 'the account is gone');
      return settled;
    }
    const platform = (this.deps.platforms as Partial<Record<string, PlatformMetricsReader & PlatformPublisher>>)[account.platform];
    if (!platform) {
      await giveUp(live, () => null, `no metrics on ${account.platform}`);
      return settled;
    }
    let accessToken: string;
    try {
      accessToken = await this.deps.tokens.accessToken(account, platform);
    } catch (error) {
      if (error instanceof CredentialsMissingError || error instanceof TokenRefreshFailedError) {
        await giveUp(live, nextPoint, error.message);
        return settled;
      }
      throw error;
    }
    const batches = batchesOf(live, platform.maxPostsPerRequest);
    for (let index = 0; index < batches.length; index++) {
      const batch = batches[index] ?? [];
      try {
        settled.requests++;
        const figures = await platform.fetchMetrics({ account: platformAccount(account), accessToken, platformPostIds: batch.flatMap((claim) => liveIds(claim.post)) });
        for (const claim of batch) {
          if (await this.recordOne(claim, figures, now, kind)) settled.collected++;
        }
      } catch (error) {
        const rest = batches.slice(index).flat();
        if (error instanceof PlatformRateLimitedError) {
          // Postponed to the window's reset, never dropped: the rest of this account waits too.
          const resetAt = error.resetAt && error.resetAt > now ? error.resetAt : new Date(now.getTime() + RATE_LIMIT_FALLBACK_MS);
          await giveUp(rest, () => resetAt, `rate limited until ${resetAt.toISOString()}`, resetAt);
          return settled;
        }
        if (error instanceof PlatformAuthError) {
          await this.deps.setTokenHealth(account.id, 'needs_reauth');
          await giveUp(rest, nextPoint, error.message);
          return settled;
        }
        if (error instanceof PlatformRefusedError) {
          await giveUp(batch, nextPoint, error.message);
          continue;
        }
        const retryAt = new Date(now.getTime() + OUTAGE_RETRY_MS);
        await giveUp(batch, () => retryAt, error instanceof Error ? error.message : String(error), retryAt);
      }
    }
    return settled;
  }

  /** Records one post's figures (its parts' sum) under its claim; a post gone from the platform keeps its last ones and stops. */
  private async recordOne(claim: ClaimedPost, figures: Map<string, PostFigures | null>, now: Date, kind: 'scheduled' | 'refresh'): Promise<boolean> {
    const parts = liveIds(claim.post).map((id) => figures.get(id) ?? null);
    const given = parts.filter((part): part is PostFigures => part !== null);
    if (given.length === 0) {
      await this.deps.store.postpone(claim, null);
      return false;
    }
    const previous = claim.post.metrics ?? null;
    const metrics: PostMetrics = { ...mergeFigures(sumFigures(given), previous), collectedAt: now.toISOString() };
    const history = [...claim.history, metrics].slice(-METRICS_HISTORY_LIMIT);
    const nextDueAt = kind === 'refresh' ? undefined : nextMetricsDueAt(claim.post.publishedAt ?? now.toISOString(), now);
    return this.deps.store.record(claim, { history, nextDueAt });
  }
}

/** The platform ids whose figures make up the post: the post itself and a thread's further parts. */
export function liveIds(post: Post): string[] {
  const parts = post.threadParts.map((part) => part.platformPostId).filter((id): id is string => id !== null);
  return [...(post.platformPostId === null ? [] : [post.platformPostId]), ...parts];
}

/** The posts in batches of at most `max` platform ids, a post's ids never split. */
function batchesOf(claims: ClaimedPost[], max: number): ClaimedPost[][] {
  const batches: ClaimedPost[][] = [];
  let current: ClaimedPost[] = [];
  let size = 0;
  for (const claim of claims) {
    const ids = Math.min(liveIds(claim.post).length, max);
    if (size + ids > max && current.length > 0) {
      batches.push(current);
      current = [];
      size = 0;
    }
    current.push(claim);
    size += ids;
  }
  if (current.length > 0) batches.push(current);
  return batches;
}

function platformAccount(account: Account) {
  return { id: account.id, platformUserId: account.platformUserId, handle: account.handle, accountType: account.accountType };
}
