/**
 * The API's post metrics (beyond-v2.md, "Post metrics"): a post's metrics with their history,
 * a refresh now, and analytics over a period. The same use cases serve the settings pages and the
 * assistant's tools.
 */
import type { Caller } from '../domain/caller.js';
import { ApiError } from '../domain/errors.js';
import type { Post } from '../domain/model.js';
import {
  checkAnalyticsPeriod,
  emptyFigures,
  sumFigures,
  type PostFigures,
  type PostMetrics,
} from '../domain/post-metrics.js';
import type { CollectMetrics } from './collect-metrics.js';
import type { Clock } from './ports/clock.js';
import type { PostMetricsRecord, PostMetricsStore } from './ports/post-metrics-store.js';
import { isPostId, postNotFound } from './post-lookup.js';

export interface PostMetricsView {
  object: 'post_metrics';
  postId: string;
  platform: string;
  metrics: PostMetrics | null;
  /** Oldest first. */
  history: PostMetrics[];
}

export type AnalyticsTotals = { posts: number } & PostFigures;

export interface AnalyticsView {
  object: 'analytics';
  from: string;
  to: string;
  accountId: string | null;
  campaignId: string | null;
  totals: AnalyticsTotals;
  byAccount: ({ accountId: string; platform: string } & AnalyticsTotals)[];
  /** Post ids by impressions, most first, at most 10. */
  topPosts: string[];
  /** One point per UTC day of the period, by the day each post was published: the chart's series. */
  byDay: ({ date: string } & AnalyticsTotals)[];
}

/** Posts older than this when the period starts cannot have been published in it (scheduled at most 30 days ahead). */
const CREATED_BEFORE_PUBLISHED_MS = 31 * 86_400_000;
const TOP_POSTS = 10;

function utc(value: string): string {
  return new Date(value).toISOString();
}

function metricsOut(metrics: PostMetrics): PostMetrics {
  return { ...metrics, collectedAt: utc(metrics.collectedAt) };
}

export function postMetricsView(record: Pick<PostMetricsRecord, 'post' | 'history'>): PostMetricsView {
  return {
    object: 'post_metrics',
    postId: record.post.id,
    platform: record.post.platform,
    metrics: record.post.metrics ? metricsOut(record.post.metrics) : null,
    history: record.history.map(metricsOut),
  };
}

export class GetPostMetrics {
  constructor(private readonly deps: { store: PostMetricsStore }) {}

  async execute(caller: Caller, postId: string): Promise<PostMetricsView> {
    if (!isPostId(postId)) throw postNotFound();
    const record = await this.deps.store.get(caller.userId, postId);
    if (!record) throw postNotFound();
    return postMetricsView(record);
  }
}

export class RefreshPostMetrics {
  constructor(private readonly deps: { collect: CollectMetrics; clock: Clock }) {}

  async execute(caller: Caller, postId: string): Promise<PostMetricsView> {
    if (!isPostId(postId)) throw postNotFound();
    const outcome = await this.deps.collect.refresh(caller.userId, postId);
    switch (outcome.status) {
      case 'collected':
      case 'in_progress':
        return postMetricsView(outcome.record);
      case 'not_found':
        throw postNotFound();
      case 'not_published':
        throw new ApiError('post_not_published', 'Only a published post has metrics to refresh.', { param: 'id' });
      case 'too_soon': {
        const seconds = Math.max(1, Math.ceil((outcome.retryAt.getTime() - this.deps.clock.now().getTime()) / 1000));
        throw new ApiError('metrics_refresh_too_soon', `A post's metrics can be refreshed once every 5 minutes; try again in ${seconds} s.`, {
          headers: { 'Retry-After': String(seconds) },
        });
      }
      case 'platform_failed':
        throw new ApiError('metrics_unavailable', `The platform did not give the figures now: ${outcome.message}`, {
          ...(outcome.retryAt ? { headers: { 'Retry-After': String(Math.max(1, Math.ceil((outcome.retryAt.getTime() - this.deps.clock.now().getTime()) / 1000))) } } : {}),
        });
    }
  }
}

export interface AnalyticsQuery {
  from?: string;
  to?: string;
  accountId?: string;
  campaignId?: string;
}

export class GetAnalytics {
  constructor(private readonly deps: { store: PostMetricsStore }) {}

  async execute(caller: Caller, query: AnalyticsQuery): Promise<AnalyticsView> {
    const period = checkAnalyticsPeriod(query.from, query.to);
    if (!period.ok) throw new ApiError('invalid_period', period.message, { param: query.from === undefined ? 'from' : 'to' });
    const candidates = await this.deps.store.listPublished(caller.userId, new Date(period.from.getTime() - CREATED_BEFORE_PUBLISHED_MS), period.to);
    const posts = candidates.filter(
      (post) =>
        post.deletedAt === null &&
        post.publishedAt !== null &&
        Date.parse(post.publishedAt) >= period.from.getTime() &&
        Date.parse(post.publishedAt) < period.to.getTime() &&
        (query.accountId === undefined || post.accountId === query.accountId) &&
        (query.campaignId === undefined || post.campaignId === query.campaignId),
    );
    return analyticsOf(posts, { from: period.from, to: period.to, accountId: query.accountId ?? null, campaignId: query.campaignId ?? null });
  }
}

function totalsOf(posts: readonly Post[]): AnalyticsTotals {
  const figures = posts.length === 0 ? emptyFigures() : sumFigures(posts.map((post) => post.metrics ?? emptyFigures()));
  return { posts: posts.length, ...figures };
}

/** The analytics of these posts: every total is the sum of its posts' figures (tested as a property). */
export function analyticsOf(posts: readonly Post[], period: { from: Date; to: Date; accountId: string | null; campaignId: string | null }): AnalyticsView {
  const byAccount = new Map<string, Post[]>();
  for (const post of posts) byAccount.set(post.accountId, [...(byAccount.get(post.accountId) ?? []), post]);
  const days: AnalyticsView['byDay'] = [];
  for (let day = Date.UTC(period.from.getUTCFullYear(), period.from.getUTCMonth(), period.from.getUTCDate()); day < period.to.getTime(); day += 86_400_000) {
    const date = new Date(day).toISOString().slice(0, 10);
    days.push({ date, ...totalsOf(posts.filter((post) => post.publishedAt?.slice(0, 10) === date)) });
  }
  const ranked = [...posts].sort((a, b) => (b.metrics?.impressions ?? -1) - (a.metrics?.impressions ?? -1) || a.id.localeCompare(b.id));
  return {
    object: 'analytics',
    from: period.from.toISOString(),
    to: period.to.toISOString(),
    accountId: period.accountId,
    campaignId: period.campaignId,
    totals: totalsOf(posts),
    byAccount: [...byAccount.entries()]
      .map(([accountId, mine]) => ({ accountId, platform: mine[0]?.platform ?? '', ...totalsOf(mine) }))
      .sort((a, b) => a.accountId.localeCompare(b.accountId)),
    topPosts: ranked.filter((post) => post.metrics?.impressions !== undefined && post.metrics.impressions !== null).slice(0, TOP_POSTS).map((post) => post.id),
    byDay: days,
  };
}

