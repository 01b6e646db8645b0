/**
 * Post metrics (beyond-v2.md, "Post metrics"; docs/metrics.md): the figures, when a published post
 * is collected, how figures add up (a thread's parts, an account, a period), the refresh limit and
 * the analytics period. Pure rules: the collector (lib/use-cases/collect-metrics.ts) applies them.
 */

/** The figures of the contract, in its order. A figure the platform does not give is null, never 0. */
export const METRIC_FIGURES = ['impressions', 'likes', 'comments', 'reposts', 'quotes', 'bookmarks', 'clicks'] as const;
export type MetricFigure = (typeof METRIC_FIGURES)[number];

export type PostFigures = Record<MetricFigure, number | null>;

/** A post's metrics as the API shows them: the figures and when they were collected. */
export interface PostMetrics extends PostFigures {
  collectedAt: string;
}

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** When a published post is collected, after publishedAt: about 1 h, 6 h, 24 h, 3 d, 7 d and 30 d, then never again. */
export const METRICS_SCHEDULE_MS = [HOUR_MS, 6 * HOUR_MS, DAY_MS, 3 * DAY_MS, 7 * DAY_MS, 30 * DAY_MS] as const;

/** POST /posts/{id}/metrics/refresh: at most once per this long per post. */
export const METRICS_REFRESH_INTERVAL_MS = 5 * 60_000;

/** Entries kept in a post's history: the six scheduled ones and the latest refreshes (bounded item size). */
export const METRICS_HISTORY_LIMIT = 24;

/** GET /analytics: the longest period, in days. */
export const ANALYTICS_MAX_DAYS = 92;

/** How long a collection may hold a post before another may take it (a collector killed mid-way). */
export const METRICS_CLAIM_MS = 2 * 60_000;

/**
 * The next scheduled collection after `after` (the time of the one just done, or publishedAt for a
 * post just published), or null once the last one (30 d) is past. A collection that ran late
 * (after a restart, a 429) does not make the ones it skipped run one after another: the next is
 * the first point still ahead.
 */
export function nextMetricsDueAt(publishedAt: string, after: Date): Date | null {
  const published = Date.parse(publishedAt);
  for (const offset of METRICS_SCHEDULE_MS) {
    const due = published + offset;
    if (due > after.getTime()) return new Date(due);
  }
  return null;
}

/** The first collection of a post published at `publishedAt`. */
export function firstMetricsDueAt(publishedAt: string): Date {
  return new Date(Date.parse(publishedAt) + METRICS_SCHEDULE_MS[0]);
}

/** A post published at or before this is past its last collection (30 d): nothing left to schedule. */
export function metricsTrackedSince(now: Date): Date {
  return new Date(now.getTime() - Math.max(...METRICS_SCHEDULE_MS));
}

/**
 * When a post published before collection existed is first collected by the backfill: now (it
 * has no figures yet, and the run batches the account's posts together), but never before its
 * first point; the schedule goes on from there (nextMetricsDueAt).
 */
export function backfillMetricsDueAt(publishedAt: string, now: Date): Date {
  return new Date(Math.max(now.getTime(), firstMetricsDueAt(publishedAt).getTime()));
}

/** Null plus anything is the other figure; null only when every part is null (nothing given). */
function addFigure(a: number | null, b: number | null): number | null {
  if (a === null) return b;
  if (b === null) return a;
  return a + b;
}

/** The sum of several posts' (or a thread's parts') figures; null where none of them gives the figure. */
export function sumFigures(all: readonly PostFigures[]): PostFigures {
  const total = emptyFigures();
  for (const figures of all) for (const name of METRIC_FIGURES) total[name] = addFigure(total[name], figures[name]);
  return total;
}

export function emptyFigures(): PostFigures {
  return { impressions: null, likes: null, comments: null, reposts: null, quotes: null, bookmarks: null, clicks: null };
}

/**
 * A new collection over the last: a figure the platform stopped giving (X's link clicks after a
 * post's first 30 days) keeps its last value instead of turning null; a figure it gives wins.
 */
export function mergeFigures(latest: PostFigures, previous: PostFigures | null): PostFigures {
  if (previous === null) return { ...latest };
  const merged = { ...latest };
  for (const name of METRIC_FIGURES) if (merged[name] === null) merged[name] = previous[name];
  return merged;
}

/** When a refresh is allowed again after one at `lastRefreshAt`, or null when it is allowed now. */
export function refreshAllowedAt(lastRefreshAt: string | null, now: Date): Date | null {
  if (lastRefreshAt === null) return null;
  const allowed = Date.parse(lastRefreshAt) + METRICS_REFRESH_INTERVAL_MS;
  return allowed > now.getTime() ? new Date(allowed) : null;
}

export type PeriodCheck = { ok: true; from: Date; to: Date } | { ok: false; message: string };

/** GET /analytics's `from` and `to`: ISO 8601 instants, from before to, at most ANALYTICS_MAX_DAYS apart. */
export function checkAnalyticsPeriod(from: string | undefined, to: string | undefined): PeriodCheck {
  if (from === undefined || to === undefined) return { ok: false, message: '`from` and `to` are required (ISO 8601 times).' };
  const instant = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2}))?$/;
  if (!instant.test(from) || !instant.test(to)) return { ok: false, message: '`from` and `to` must be ISO 8601 dates or times with a zone.' };
  const start = new Date(from);
  const end = new Date(to);
  if (Number.isNaN(start.getTime()) || Number.isNaN(end.getTime())) return { ok: false, message: '`from` and `to` must be valid dates.' };
  if (start.getTime() >= end.getTime()) return { ok: false, message: '`from` must be before `to`.' };
  if (end.getTime() - start.getTime() > ANALYTICS_MAX_DAYS * DAY_MS) return { ok: false, message: `The period may be at most ${ANALYTICS_MAX_DAYS} days.` };
  return { ok: true, from: start, to: end };
}
