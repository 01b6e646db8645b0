/** The pure rules of post metrics (lib/domain/post-metrics.ts) and analytics' arithmetic (lib/use-cases/post-metrics.ts). */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { METRIC_FIGURES, checkAnalyticsPeriod, mergeFigures, nextMetricsDueAt, refreshAllowedAt, sumFigures, type PostFigures } from '../../lib/domain/post-metrics.js';
import { analyticsOf } from '../../lib/use-cases/post-metrics.js';
import { postFixture } from '../support/post-fixture.js';

const HOUR = 3_600_000;
const PUBLISHED = '2026-11-01T10:00:00.000Z';
const at = (ms: number) => new Date(Date.parse(PUBLISHED) + ms);

const figure = fc.option(fc.integer({ min: 0, max: 1_000_000 }), { nil: null });
const figures = fc.record(Object.fromEntries(METRIC_FIGURES.map((name) => [name, figure])) as Record<keyof PostFigures, typeof figure>);

describe('the schedule', () => {
  it('comes due 1 h, 6 h, 24 h, 3 d, 7 d and 30 d after publishing, then stops; a late run skips to the next point ahead', () => {
    const points: string[] = [];
    for (let after = new Date(PUBLISHED); ; ) {
      const next = nextMetricsDueAt(PUBLISHED, after);
      if (next === null) break;
      points.push(next.toISOString());
      after = next;
    }
    expect(points).toEqual([1, 6, 24, 72, 168, 720].map((hours) => at(hours * HOUR).toISOString()));
    expect(nextMetricsDueAt(PUBLISHED, at(50 * HOUR))?.toISOString()).toBe(at(72 * HOUR).toISOString());
    expect(nextMetricsDueAt(PUBLISHED, at(721 * HOUR))).toBeNull();
  });

  it('a refresh once per 5 minutes', () => {
    expect(refreshAllowedAt(null, at(0))).toBeNull();
    expect(refreshAllowedAt(PUBLISHED, at(60_000))?.toISOString()).toBe(at(300_000).toISOString());
    expect(refreshAllowedAt(PUBLISHED, at(300_000))).toBeNull();
  });

  it('a period: both ends, in order, at most 92 days', () => {
    expect(checkAnalyticsPeriod('2026-01-01', '2026-04-03').ok).toBe(true);
    expect(checkAnalyticsPeriod('2026-01-01', '2026-04-04').ok).toBe(false);
    expect(checkAnalyticsPeriod('2026-01-02', '2026-01-01').ok).toBe(false);
    expect(checkAnalyticsPeriod(undefined, '2026-01-01').ok).toBe(false);
    expect(checkAnalyticsPeriod('yesterday', 'today').ok).toBe(false);
  });
});

describe('figures', () => {
  it('a sum is null only where no part gives the figure, never 0 for nothing', () => {
    fc.assert(
      fc.property(fc.array(figures, { maxLength: 10 }), (parts) => {
        const sum = sumFigures(parts);
        for (const name of METRIC_FIGURES) {
          const given = parts.map((part) => part[name]).filter((value): value is number => value !== null);
          expect(sum[name]).toBe(given.length === 0 ? null : given.reduce((a, b) => a + b, 0));
        }
      }),
    );
  });

  it('a figure the platform stops giving keeps its last value; one it gives wins', () => {
    fc.assert(
      fc.property(figures, figures, (latest, previous) => {
        const merged = mergeFigures(latest, previous);
        for (const name of METRIC_FIGURES) expect(merged[name]).toBe(latest[name] ?? previous[name]);
      }),
    );
  });

  it('analytics: every total, per account and per day, is the sum of its posts', () => {
    const accounts = ['acct_a', 'acct_b', 'acct_c'];
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.constantFrom(...accounts), fc.integer({ min: 0, max: 9 }), fc.option(figures, { nil: null })), { maxLength: 30 }), (rows) => {
        const posts = rows.map(([accountId, day, metrics], index) =>
          postFixture({
            id: `post_${String(index).padStart(20, '0')}`,
            userId: 'usr_1',
            createdAt: PUBLISHED,
            accountId,
            status: 'published',
            publishedAt: at(day * 24 * HOUR).toISOString(),
            metrics: metrics === null ? null : { ...metrics, collectedAt: PUBLISHED },
          }),
        );
        const view = analyticsOf(posts, { from: at(0), to: at(10 * 24 * HOUR), accountId: null, campaignId: null });
        expect(view.totals.posts).toBe(posts.length);
        for (const name of METRIC_FIGURES) {
          const given = posts.map((post) => post.metrics?.[name] ?? null).filter((value): value is number => value !== null);
          expect(view.totals[name]).toBe(given.length === 0 ? null : given.reduce((a, b) => a + b, 0));
          const byAccount = view.byAccount.map((row) => row[name]).filter((value): value is number => value !== null);
          expect(byAccount.length === 0 ? null : byAccount.reduce((a, b) => a + b, 0)).toBe(view.totals[name]);
        }
        // Every UTC day the period touches: it starts and ends at 10:00, so 11.
        expect(view.byDay).toHaveLength(11);
        expect(view.byDay.reduce((sum, day) => sum + day.posts, 0)).toBe(posts.length);
        expect(view.topPosts.length).toBeLessThanOrEqual(10);
        const impressions = view.topPosts.map((id) => posts.find((post) => post.id === id)?.metrics?.impressions ?? -1);
        expect(impressions).toEqual([...impressions].sort((a, b) => b - a));
      }),
    );
  });
});
